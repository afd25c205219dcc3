#include "api/middleware.h"

#include <atomic>
#include <cctype>
#include <cmath>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/auth.h"
#include "api/etag.h"
#include "api/json_encode.h"
#include "api/problem.h"
#include "api/request_admission.h"
#include "db/cached_catalog.h"
#include "db/sql.h"
#include "db/text.h"
#include "db/write_transaction.h"
#include "plan/deadline.h"

namespace gpuplan::api {

namespace {

thread_local std::optional<std::chrono::steady_clock::time_point> request_start;
// Whether this thread's request was counted in flight and not yet logged (the request-end
// handler finishes one that never reached the logger: a handler or logger that threw).
thread_local bool request_in_flight = false;
std::atomic<unsigned long long> request_counter{0};

std::string NewRequestId() {
  static const unsigned long long boot =
      static_cast<unsigned long long>(std::chrono::system_clock::now().time_since_epoch().count());
  return fmt::format("{:x}-{}", boot & 0xffffffULL, ++request_counter);
}

bool IsSafeRequestId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

// The answer for an exception that escaped a handler: what it says about the service's
// state maps to a status; the details go to the log only.
void AnswerException(const MiddlewareOptions& o, const httplib::Request& req,
                     httplib::Response& res, std::exception_ptr ep) noexcept {
  try {
    std::string what = "unknown exception";
    int status = 500;
    std::string detail = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const db::PoolExhausted& e) {
      what = e.what();
      status = 503;
      detail = "the service is busy: no database connection came free in time; retry shortly";
    } catch (const plan::DeadlineExceeded& e) {
      what = e.what();
      status = 503;
      detail = "the request needed more work than one request may do; narrow it (fewer "
               "clouds, GPUs, nodes or scenarios) or retry";
    } catch (const db::SqlError& e) {
      what = e.what();
      db::CountSqlError(e);
      if (db::IsBusy(e)) {
        status = 503;
        detail = "the catalog is busy with another write; retry shortly";
      } else if (db::IsStorageFault(e)) {
        status = 503;
        detail = "the database cannot answer now; retry shortly";
      }
    } catch (const std::bad_alloc&) {
      what = "out of memory";
      status = 503;
      detail = "the service has no memory for this request now; retry shortly";
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    if (o.error_log) {
      o.error_log(req.method + " " + db::Printable(req.path) + " id=" +
                  res.get_header_value("X-Request-Id") + " failed: " + db::Printable(what));
    }
    res.headers.erase("Content-Length");
    WriteProblem(req, res, status, detail);
  } catch (...) {
    res.status = 500;
  }
}

}  // namespace

std::function<void()> InstallMiddleware(httplib::Server& server, MiddlewareOptions options) {
  auto o = std::make_shared<const MiddlewareOptions>(std::move(options));
  auto admit = [o](const httplib::Request& req, httplib::Response& res) -> bool {
    NormalizeEmptyBody(const_cast<httplib::Request&>(req));  // see request_admission.h
    Admission admission = AdmitRequest(req);
    if (admission.status != 0) {
      res.set_header("Connection", "close");
      if (o->close_after_response) o->close_after_response();  // its body is never read
      WriteError(req, res, admission.error, admission.status);
      return false;
    }
    if (o->expect_body) o->expect_body(admission.body_bytes);
    return true;
  };
  server.set_expect_100_continue_handler([admit](const httplib::Request& req, httplib::Response& res) {
    return admit(req, res) ? 100 : res.status;
  });
  const std::string cache_control =
      o->require_auth_for_reads ? kPrivateCatalogCacheControl : kCatalogCacheControl;
  server.set_pre_routing_handler([o, admit, cache_control](const httplib::Request& req,
                                                           httplib::Response& res) {
    db::ForgetRequestCatalogState();  // a request's state is never an earlier request's
    request_start = std::chrono::steady_clock::now();
    o->metrics->RequestStarted();
    request_in_flight = true;
    plan::SetRequestDeadline(o->request_deadline);
    std::string id = req.get_header_value("X-Request-Id");
    res.set_header("X-Request-Id", IsSafeRequestId(id) ? id : NewRequestId());
    o->cors->Apply(req, res);
    if (!admit(req, res)) return httplib::Server::HandlerResponse::Handled;
    // Range is served by static files only (ServeStaticFile); httplib would claim it on HEAD.
    if (req.method == "HEAD") res.set_header("Accept-Ranges", "none");
    bool api_path = req.path.rfind("/api/", 0) == 0;
    // OPTIONS (and CORS preflights) before authentication: browsers send no key with them.
    if (req.method == "OPTIONS") {
      std::vector<std::string> methods = o->routes->MethodsFor(req.path);
      if (methods.empty() && !api_path && o->is_static && o->is_static(req.path)) {
        methods = {"GET", "HEAD", "OPTIONS"};
      }
      if (methods.empty()) {
        WriteError(req, res, Error::NotFound("no resource at " + db::Printable(req.path, 200)));
      } else {
        o->cors->AnswerOptions(req, res, methods);
      }
      return httplib::Server::HandlerResponse::Handled;
    }
    // With --require-auth-for-reads every API request, whatever its method, needs a key:
    // estimates and recommendations reveal catalog prices too.
    if (o->require_auth_for_reads && api_path && !Authorize(*o->pool, req, res, "write")) {
      res.set_header("Connection", "close");
      if (o->close_after_response) o->close_after_response();
      return httplib::Server::HandlerResponse::Handled;
    }
    if (IsCatalogRead(req)) {
      long long generation = 0;
      {
        auto lease = o->pool->Acquire();
        generation = db::ReadRequestCatalogState(lease).generation;
      }
      std::string etag = CatalogEtag(o->version, generation);
      // The answer (post-routing) turns into 304 if it is a 200 the client already holds:
      // a 404 or 422 stays what it is, whatever If-None-Match says.
      res.set_header("ETag", etag);
      res.set_header("Cache-Control", cache_control);
    }
    if (!api_path && (req.method == "GET" || req.method == "HEAD")) {
      if (o->serve_static && o->serve_static(req, res)) {
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // An ETag and Cache-Control set before routing describe the catalog answer, not an error;
  // a 200 whose tag If-None-Match holds becomes 304 Not Modified without its body. An answer
  // that closes the connection drops the Keep-Alive httplib adds to it.
  server.set_post_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.get_header_value("Connection") == "close") res.headers.erase("Keep-Alive");
    if (!res.has_header("ETag")) return;
    if (res.status != 200) {
      res.headers.erase("ETag");
      res.headers.erase("Cache-Control");
    } else if (req.has_header("If-None-Match") &&
               IfNoneMatchHolds(req.get_header_value("If-None-Match"),
                                     res.get_header_value("ETag"))) {
      res.status = 304;
      res.body.clear();
      res.headers.erase("Content-Type");
      res.headers.erase("Content-Length");
      // httplib set Content-Length for the body just dropped, and does not set it again.
      res.set_header("Content-Length", "0");
    }
  });
  server.set_logger([o](const httplib::Request& req, const httplib::Response& res) {
    try {
      double ms = 0;
      if (request_start) {
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                       *request_start)
                 .count();
        request_start.reset();
      }
      std::string route = CurrentRoute();
      if (route.empty()) route = o->routes->TemplateFor(req.path);  // answered before routing
      if (route.empty()) {
        route = req.path.rfind("/api/", 0) == 0 || res.status >= 400 ? "unmatched" : "static";
      }
      if (request_in_flight) {
        request_in_flight = false;
        o->metrics->RequestFinished(route, db::Printable(req.method, 16), res.status, ms / 1000);
      }
      if (!o->access_log) return;
      if (o->json_logs) {
        nlohmann::json line = {{"method", db::Printable(req.method, 16)},
                               {"path", db::Printable(req.path)},
                               {"route", route},
                               {"status", res.status},
                               {"ms", std::round(ms * 100) / 100},
                               {"request_id", res.get_header_value("X-Request-Id")}};
        o->access_log(EncodeJson(line));
      } else {
        o->access_log(fmt::format("{} {} {} {:.2f}ms id={}", db::Printable(req.method, 16),
                                  db::Printable(req.path), res.status, ms,
                                  res.get_header_value("X-Request-Id")));
      }
    } catch (...) {
    }
  });
  server.set_exception_handler(
      [o](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        AnswerException(*o, req, res, ep);
      });
  // Per-request thread state ends with the request, whether or not it was routed and logged
  // (a malformed request line never reaches pre-routing; a throw skips the logger).
  return [o] {
    if (request_in_flight) o->metrics->RequestAbandoned();
    request_in_flight = false;
    request_start.reset();
    ResetCurrentRoute();
    db::ForgetRequestCatalogState();
  };
}

}  // namespace gpuplan::api
