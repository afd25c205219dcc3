#include "server/guarded_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include "api/problem.h"
#include "server/request_head.h"

namespace gpuplan::server {

namespace {

using Clock = std::chrono::steady_clock;

std::string AddressOf(const sockaddr_storage& addr, int& port) {
  char text[INET6_ADDRSTRLEN] = {0};
  port = 0;
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    port = ntohs(a->sin6_port);
  }
  return text;
}

// Waits for `events` on `sock` for at most `timeout` (>= 0). True when ready.
bool Wait(socket_t sock, short events, std::chrono::milliseconds timeout) {
  pollfd p{sock, events, 0};
  auto ms = static_cast<int>(std::clamp<long long>(timeout.count(), 0, 1 << 30));
  while (true) {
    int r = ::poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    return r > 0;
  }
}

// The stream httplib parses from: buffered reads with a byte budget and a deadline per
// request phase, writes with a stall timeout. A request's whole head is read and checked
// (RequestHeadChecker) before httplib parses any of it.
class GuardedStream final : public httplib::Stream {
 public:
  enum class Head { kReady, kMalformed, kTooLarge, kGone };

  GuardedStream(socket_t sock, const ConnectionLimits& limits) : sock_(sock), limits_(limits) {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      remote_ip_ = AddressOf(addr, remote_port_);
    }
    len = sizeof(addr);
    if (getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      local_ip_ = AddressOf(addr, local_port_);
    }
  }

  // A new request starts: its line and headers get the header budget and deadline.
  void BeginRequest() {
    buffer_.erase(0, pos_);
    pos_ = 0;
    parsed_ = false;
    range_.reset();
    in_body_ = false;
    delivered_ = 0;
    budget_ = limits_.max_header_bytes;
    deadline_ = Clock::now() + limits_.header_timeout;
    close_after_response_ = false;
    may_hold_ = true;
  }
  void ExpectBody(size_t bytes) {
    in_body_ = true;
    delivered_ = 0;
    budget_ = bytes;
    deadline_ = Clock::now() + limits_.body_timeout;
  }
  void CloseAfterResponse() { close_after_response_ = true; }
  // httplib parsed the request line and headers (its setup hook ran).
  void MarkParsed() { parsed_ = true; }
  bool parsed() const { return parsed_; }

  // Reads until the request's head (line, headers, blank line) is buffered and checked:
  // kReady, or kMalformed (the checker says why), kTooLarge (over the header budget),
  // kGone (deadline, closed or broken: nothing to answer). Up to
  // kMaxEmptyLinesBeforeRequest empty lines before the request line are dropped (RFC 9112
  // 2.2); more are malformed. On kReady the Range lines are taken out of the head
  // (see RequestRange).
  Head ReadHead(RequestHeadChecker& checker) {
    while (true) {
      while (buffer_.compare(pos_, 2, "\r\n") == 0) {
        pos_ += 2;
        if (checker.SkipEmptyLine() == RequestHeadChecker::State::kMalformed) return Head::kMalformed;
      }
      std::string_view pending(buffer_.data() + pos_, buffer_.size() - pos_);
      switch (checker.Check(pending)) {
        case RequestHeadChecker::State::kComplete: TakeRangeLines(checker); return Head::kReady;
        case RequestHeadChecker::State::kMalformed: return Head::kMalformed;
        case RequestHeadChecker::State::kIncomplete: break;
      }
      if (pending.size() >= limits_.max_header_bytes) {
        over_budget_ = true;
        return Head::kTooLarge;
      }
      if (!Fill()) return Head::kGone;
    }
  }
  // The Range header of the request being answered, as sent; nullopt when there was none,
  // and "" when there were several (never a valid range).
  const std::optional<std::string>& range() const { return range_; }

  // Waits up to `timeout` for the next request's first byte (buffered or on the wire).
  // Gives up early when `stopping` turns true.
  bool WaitForRequest(std::chrono::milliseconds timeout, const std::atomic<socket_t>& listener) {
    if (!Flush()) return false;
    if (pos_ < buffer_.size()) return true;
    auto until = Clock::now() + timeout;
    while (listener != INVALID_SOCKET) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      if (left.count() <= 0) return false;
      if (Wait(sock_, POLLIN, std::min(left, std::chrono::milliseconds(100)))) return true;
    }
    return false;
  }

  bool failed() const { return timed_out_ || over_budget_ || broken_; }
  bool timed_out() const { return timed_out_; }
  bool over_budget() const { return over_budget_; }
  bool close_after_response() const { return close_after_response_; }
  const std::string& remote_ip() const { return remote_ip_; }

  bool is_readable() const override {
    return pos_ < buffer_.size() || Wait(sock_, POLLIN, std::chrono::milliseconds(0));
  }  // (a reader waiting on the socket then calls read(): Fill sends what is held first)
  bool is_writable() const override { return Wait(sock_, POLLOUT, limits_.io_timeout); }

  ssize_t read(char* ptr, size_t size) override {
    if (failed()) return -1;
    if (delivered_ >= budget_) {
      // A body's reader never asks past its length; the header reader does when the
      // headers do not end within the budget.
      over_budget_ = true;
      return -1;
    }
    size = std::min(size, budget_ - delivered_);
    if (pos_ == buffer_.size()) {
      buffer_.clear();
      pos_ = 0;
      if (!Fill()) return failed() ? -1 : 0;
    }
    size_t n = std::min(size, buffer_.size() - pos_);
    std::memcpy(ptr, buffer_.data() + pos_, n);
    pos_ += n;
    delivered_ += n;
    return static_cast<ssize_t>(n);
  }

  // A request's first write (httplib's response head, or a 100 Continue) of at most
  // kHeldBytes is held and sent with the next write (the body: one segment and one wake-up
  // of the client instead of two). Held bytes go out before any read or wait for a request
  // (Flush), and at the end of every request (GuardedServer). Later writes (chunks of a
  // streamed answer) go out at once.
  ssize_t write(const char* ptr, size_t size) override {
    if (broken_) return -1;
    if (may_hold_ && size <= kHeldBytes) {
      may_hold_ = false;
      held_.assign(ptr, size);
      return static_cast<ssize_t>(size);
    }
    may_hold_ = false;
    return Send(ptr, size);
  }
  // Sends what write() holds. False when the connection broke or stalled past io_timeout.
  bool Flush() { return held_.empty() || Send(nullptr, 0) >= 0; }
  // Drops what is held (a request whose handler threw: the client sees a clean close, not a
  // head without its body).
  void Discard() { held_.clear(); }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = remote_ip_;
    port = remote_port_;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = local_ip_;
    port = local_port_;
  }
  socket_t socket() const override { return sock_; }

 private:
  static constexpr size_t kReadChunk = 16 * 1024;
  static constexpr size_t kHeldBytes = 4 * 1024;

  // Appends what the socket has (waiting up to the phase's deadline). False when nothing
  // came: timed out or broken (failed() says so), or closed by the client.
  bool Fill() {
    if (!Flush()) return false;  // the client may wait for what is held before it sends
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
    if (left.count() <= 0) {
      timed_out_ = true;
      return false;
    }
    // What has arrived is taken at once; only an empty socket is waited on (one poll).
    ssize_t n = Receive(MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!Wait(sock_, POLLIN, std::min(left, limits_.io_timeout))) {
        timed_out_ = true;
        return false;
      }
      n = Receive(0);
    }
    if (n < 0) broken_ = true;
    return n > 0;
  }
  // recv() of up to kReadChunk bytes appended to buffer_: its result.
  ssize_t Receive(int flags) {
    thread_local char chunk[kReadChunk];
    ssize_t n;
    do {
      n = ::recv(sock_, chunk, kReadChunk, flags);
    } while (n < 0 && errno == EINTR);
    if (n > 0) buffer_.append(chunk, static_cast<size_t>(n));
    return n;
  }

  // Sends what is held, then [ptr, ptr + size): the bytes of ptr sent (all held bytes went
  // first), or -1 when the connection broke or stalled past io_timeout. Waits for room
  // only when the socket has none.
  ssize_t Send(const char* ptr, size_t size) {
    while (true) {
      iovec parts[2] = {{held_.data(), held_.size()}, {const_cast<char*>(ptr), size}};
      msghdr message{};
      message.msg_iov = held_.empty() ? parts + 1 : parts;
      message.msg_iovlen = held_.empty() ? 1 : 2;
      ssize_t n = ::sendmsg(sock_, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR) continue;
        // Read before Wait, whose poll may set errno: a full socket that stays full (or
        // whose wait fails) is a stall; any other error a broken connection.
        const bool full = errno == EAGAIN || errno == EWOULDBLOCK;
        if (full && Wait(sock_, POLLOUT, limits_.io_timeout)) continue;
        if (full) timed_out_ = true;
        broken_ = true;
        held_.clear();
        return -1;
      }
      auto sent = static_cast<size_t>(n);
      if (sent < held_.size()) {
        held_.erase(0, sent);
        continue;
      }
      sent -= held_.size();
      held_.clear();
      if (sent > 0 || size == 0) return static_cast<ssize_t>(sent);
    }
  }

  // httplib never sees Range: it would parse it with a regex and build multi-range answers
  // in memory. The value is kept for the static files (the one place ranges are served).
  void TakeRangeLines(const RequestHeadChecker& checker) {
    const auto& lines = checker.range_lines();
    if (lines.empty()) return;
    range_ = lines.size() == 1 ? lines.front().value : std::string();
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
      buffer_.erase(pos_ + it->begin, it->end - it->begin);
    }
  }

  socket_t sock_;
  const ConnectionLimits& limits_;
  std::string remote_ip_, local_ip_;
  int remote_port_ = 0, local_port_ = 0;
  std::string buffer_;  // received, not yet delivered from pos_ on
  size_t pos_ = 0;
  bool parsed_ = false;
  std::optional<std::string> range_;
  bool in_body_ = false;
  size_t delivered_ = 0, budget_ = 0;
  Clock::time_point deadline_{};
  bool timed_out_ = false, over_budget_ = false, broken_ = false;
  bool close_after_response_ = false;
  bool may_hold_ = true;  // the request has not written yet
  std::string held_;      // written, not yet sent (write())
};

thread_local GuardedStream* current_stream = nullptr;

// How long and how much Linger drains.
struct LingerBudget {
  std::chrono::milliseconds total;
  std::chrono::milliseconds silence;  // no byte for this long: the client is done
  size_t max_bytes;
};
// A connection refused before its request was read (over a connection cap): short.
constexpr LingerBudget kRefusedConnectionLinger{std::chrono::milliseconds(500),
                                                std::chrono::milliseconds(50), size_t{1} << 20};
// A request answered without reading its body (413, 401, ...) or its head (malformed): long
// enough for a client sending the largest body any endpoint takes (20 MiB) on a slow link
// to finish and read the answer, bounded so a trickling client cannot hold the worker.
constexpr LingerBudget kUnreadRequestLinger{std::chrono::seconds(5), std::chrono::seconds(1),
                                            size_t{32} << 20};

// Ends our side, then drains (boundedly) what the client is still sending, so that closing
// with unread data does not reset the connection before the client has read our answer.
void Linger(socket_t sock, const LingerBudget& budget) {
  ::shutdown(sock, SHUT_WR);
  char sink[16384];
  auto until = Clock::now() + budget.total;
  size_t drained = 0;
  while (drained < budget.max_bytes) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0 || !Wait(sock, POLLIN, std::min(left, budget.silence))) break;
    ssize_t n = ::recv(sock, sink, sizeof(sink), 0);
    if (n <= 0) break;
    drained += static_cast<size_t>(n);
  }
}

// Writes a whole problem answer straight to the socket, with Connection: close (for
// answers httplib does not give: a connection over a cap, a malformed request head).
// `field` ("" for none) and `detail` are ASCII text.
void RawProblem(socket_t sock, int status, const std::string& field, const std::string& detail) {
  nlohmann::json problem = api::ProblemJson(
      field.empty() ? Error{ErrorCode::kUnavailable, detail, {}} : Error::Invalid(field, detail), status);
  std::string title = problem["title"].get<std::string>();
  std::string body = problem.dump();
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " + title +
                     "\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n" +
                     (status == 503 ? "Retry-After: 1\r\n" : "") +
                     "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  std::string all = head + body;
  if (Wait(sock, POLLOUT, std::chrono::milliseconds(1000))) {
    (void)::send(sock, all.data(), all.size(), MSG_NOSIGNAL);
  }
}

}  // namespace

GuardedServer::GuardedServer(ConnectionLimits limits) : limits_(limits) {
  int workers = std::max(1, limits_.max_connections) + kSpareWorkers;
  new_task_queue = [workers] { return new httplib::ThreadPool(static_cast<size_t>(workers)); };
  set_keep_alive_max_count(static_cast<size_t>(std::max(1, limits_.max_requests_per_connection)));
}

void GuardedServer::RaiseBacklog() {
  socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET) ::listen(sock, limits_.listen_backlog);  // Linux: updates it
}

void GuardedServer::ExpectBody(size_t bytes) {
  if (current_stream) current_stream->ExpectBody(bytes);
}

void GuardedServer::CloseAfterResponse() {
  if (current_stream) current_stream->CloseAfterResponse();
}

const std::string* GuardedServer::RequestRange() {
  if (!current_stream || !current_stream->range()) return nullptr;
  return &*current_stream->range();
}

GuardedServer::Counters GuardedServer::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

bool GuardedServer::Admit(const std::string& client, bool& per_client_refusal) {
  std::lock_guard lock(mutex_);
  per_client_refusal = false;
  if (counters_.open >= limits_.max_connections) {
    ++counters_.refused_total;
    return false;
  }
  int& mine = per_client_[client];
  if (mine >= limits_.max_connections_per_client) {
    per_client_refusal = true;
    ++counters_.refused_per_client;
    if (mine == 0) per_client_.erase(client);
    return false;
  }
  ++mine;
  ++counters_.open;
  ++counters_.accepted;
  return true;
}

void GuardedServer::Release(const std::string& client) {
  std::lock_guard lock(mutex_);
  --counters_.open;
  auto it = per_client_.find(client);
  if (it != per_client_.end() && --it->second <= 0) per_client_.erase(it);
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  GuardedStream stream(sock, limits_);
  bool per_client = false;
  if (!Admit(stream.remote_ip(), per_client)) {
    RawProblem(sock, 503, "",
               per_client ? "too many open connections from this address; retry shortly"
                          : "too many open connections; retry shortly");
    Linger(sock, kRefusedConnectionLinger);
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return false;
  }
  current_stream = &stream;
  bool ok = true;
  bool unread = false;  // the last request's head or body was not read to its end
  for (int served = 0; served < limits_.max_requests_per_connection; ++served) {
    if (!stream.WaitForRequest(limits_.idle_timeout, svr_sock_)) break;
    stream.BeginRequest();
    RequestHeadChecker checker;
    GuardedStream::Head head = stream.ReadHead(checker);
    if (head != GuardedStream::Head::kReady) {
      if (head == GuardedStream::Head::kMalformed) {
        RawProblem(sock, checker.status(), checker.field(), checker.detail());
      } else if (head == GuardedStream::Head::kTooLarge) {
        RawProblem(sock, 431, "headers",
                   "the request line and headers are over the server's limit of " +
                       std::to_string(limits_.max_header_bytes) + " bytes");
      }
      std::lock_guard lock(mutex_);
      if (head != GuardedStream::Head::kGone) ++counters_.malformed;
      unread = head != GuardedStream::Head::kGone;
      break;
    }
    bool last = served + 1 == limits_.max_requests_per_connection;
    bool connection_closed = false;
    try {
      ok = process_request(stream, last, connection_closed,
                           [&stream](httplib::Request&) { stream.MarkParsed(); });
    } catch (...) {
      ok = false;  // a throwing error handler or logger: drop this connection, keep the server
      stream.Discard();
    }
    if (!stream.Flush()) ok = false;
    if (request_end_) request_end_();
    // httplib refused what the checker let through: its answer said Connection: close
    // (InstallErrorHandler), and the bytes after the head are never parsed.
    unread = !stream.parsed() || stream.close_after_response();
    if (!ok || connection_closed || stream.failed() || unread) break;
  }
  current_stream = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (stream.timed_out()) ++counters_.timed_out;
    if (stream.over_budget()) ++counters_.over_budget;
  }
  Release(stream.remote_ip());
  if (unread) Linger(sock, kUnreadRequestLinger);
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace gpuplan::server
