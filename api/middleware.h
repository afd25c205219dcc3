// The HTTP middleware every request passes, installed on the server by InstallMiddleware:
//   before routing   request id (X-Request-Id: the client's when safe, else a new one),
//                    timing and the in-flight metric, the request's planning deadline,
//                    CORS, admission (api/request_admission.h; also on Expect:
//                    100-continue), OPTIONS and CORS preflights, the API key when reads
//                    need one, the catalog ETag and Cache-Control of catalog reads, and
//                    static files (the server's, through a hook);
//   after routing    a catalog read the client already holds becomes 304 Not Modified,
//                    an error loses the catalog ETag; a closing answer drops Keep-Alive;
//   logging          one access-log line per request (text or JSON) and the request
//                    metrics; a request that ends unlogged is counted as abandoned;
//   exceptions       an exception that escaped a handler becomes a problem+json answer
//                    whose status says what it means (503 for a busy pool or database, a
//                    spent planning deadline or no memory; else 500), details to the log.
// Handlers run on the server's worker threads; per-request state is thread-local. The
// options' objects are not owned and must outlive the server.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "api/cors.h"
#include "api/metrics.h"
#include "api/route_table.h"
#include "db/database.h"

namespace gpuplan::api {

struct MiddlewareOptions {
  db::ConnectionPool* pool = nullptr;
  const RouteTable* routes = nullptr;
  const CorsPolicy* cors = nullptr;
  ServiceMetrics* metrics = nullptr;
  std::string version;  // in the catalog ETag
  bool require_auth_for_reads = false;
  std::chrono::milliseconds request_deadline{10000};  // plan/deadline.h
  bool json_logs = false;

  // What the connection layer does (server/guarded_server.h): close the connection after
  // this answer (its body, if any, is never read), and the body bytes admitted.
  std::function<void()> close_after_response;
  std::function<void(size_t bytes)> expect_body;
  // Answers a GET or HEAD of a non-API path when it is a static file (true: answered).
  std::function<bool(const httplib::Request&, httplib::Response&)> serve_static;
  // Whether a non-API path names a static file (for OPTIONS).
  std::function<bool(const std::string& path)> is_static;
  // Writes one access-log line (a JSON object when json_logs).
  std::function<void(const std::string& line)> access_log;
  // Writes one error line (an exception's details).
  std::function<void(const std::string& line)> error_log;
};

// Installs the handlers on `server`; returns what the server must run when a request ends,
// whether or not it was routed and logged (a malformed request line never reaches
// pre-routing; a throw skips the logger): it ends the request's thread-local state.
std::function<void()> InstallMiddleware(httplib::Server& server, MiddlewareOptions options);

}  // namespace gpuplan::api
