// cpp-httplib's Server with the connection handling a public service needs. Debian's
// cpp-httplib 0.11 reads a request line or header of any length, a body of any length
// when it is chunked or has no Content-Length, gives each connection a worker for as
// long as its client trickles bytes, and listens with a backlog of 5. GuardedServer
// replaces only the per-connection loop (process_and_close_socket) and the stream it
// reads from; parsing, routing and handlers stay httplib's. Per connection it enforces:
//   - one request per request: each request's line and headers are read whole and checked
//     against a strict grammar (server/request_head.h) before httplib parses them; a
//     malformed head is answered once (400, 414, 431, 501 or 505 problem+json with
//     Connection: close) and the connection closed, so the bytes after it are never parsed
//     as another request. A head httplib still refuses (its answer then says Connection:
//     close, see api::InstallErrorHandler) closes the connection too;
//   - Range is taken out of every head before httplib sees it (RequestRange): httplib
//     builds multi-range answers in memory without a cap, and API answers ignore Range;
//   - a cap on open connections in total and per client address (over it: 503 with
//     Retry-After, written without reading the request, then closed);
//   - an idle deadline between requests, a deadline for a request's line and headers
//     counted from its first byte, and one for its body, whatever the client's pace;
//   - a byte budget for the line and headers, and for the body the length admitted by
//     the pre-routing stage (ExpectBody); reading past a budget or a deadline fails the
//     read, httplib answers 400 or gives up, and the connection is closed;
//   - Connection: close semantics when the pre-routing stage refused a request whose body
//     was not read (CloseAfterResponse), so that body is never parsed as a request;
//   - after an answer to a request not read to its end, a bounded drain of what the client
//     still sends (5 s, 1 s of silence, 32 MiB at most) before closing, so a client that
//     sends a refused body whole still reads the 413 instead of a connection reset.
// Thread model: a pool of max_connections + kSpareWorkers threads, one per open
// connection (no longer the database pool's size).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <functional>
#include <mutex>
#include <string>

#include "server/config.h"

namespace gpuplan::server {

class GuardedServer : public httplib::Server {
 public:
  static constexpr int kSpareWorkers = 16;  // answer over-cap connections quickly

  explicit GuardedServer(ConnectionLimits limits);

  // Call after bind_to_port / bind_to_any_port: raises the listen backlog from 5.
  void RaiseBacklog();

  // For the pre-routing stage, on the thread serving the request (no-ops elsewhere):
  // the headers are done and the body has `bytes` bytes (its read budget and deadline
  // start now).
  static void ExpectBody(size_t bytes);
  // Close the connection after this response (its body, if any, was not read).
  static void CloseAfterResponse();
  // The Range header of the request this thread is answering, as sent: nullptr when it had
  // none (or off the serving thread); "" when it had several. Only static files read it.
  static const std::string* RequestRange();
  // Runs on the serving thread after every request, answered or not (a malformed request
  // line, a throwing handler): where per-request thread state is cleared. Set before
  // serving; must not throw.
  void set_request_end_handler(std::function<void()> handler) { request_end_ = std::move(handler); }

  struct Counters {
    long long accepted = 0;          // connections served
    long long refused_total = 0;     // over max_connections
    long long refused_per_client = 0;
    long long timed_out = 0;         // idle excluded: header or body deadline, or I/O stall
    long long over_budget = 0;       // header bytes or body bytes over their budget
    long long malformed = 0;         // request heads refused before httplib parsed them
    int open = 0;
  };
  Counters counters() const;
  const ConnectionLimits& limits() const { return limits_; }

 private:
  bool process_and_close_socket(socket_t sock) override;
  bool Admit(const std::string& client, bool& per_client_refusal);
  void Release(const std::string& client);

  ConnectionLimits limits_;
  std::function<void()> request_end_;
  mutable std::mutex mutex_;
  std::map<std::string, int> per_client_;
  Counters counters_;
};

}  // namespace gpuplan::server
