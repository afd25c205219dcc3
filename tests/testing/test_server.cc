#include "tests/testing/test_server.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "db/api_keys.h"
#include "db/database.h"

namespace gpuplan::testing {

std::string CreateApiKey(const TestServer& server, const std::string& name, const std::string& scope) {
  auto db = db::OpenDatabase(server.db_path());
  if (!db.ok()) {
    ADD_FAILURE() << "CreateApiKey: " << db.error().message;
    return "";
  }
  auto key = db::ApiKeyStore(**db).Create(name, scope);
  if (!key.ok()) {
    ADD_FAILURE() << "CreateApiKey " << name << ": " << key.error().message;
    return "";
  }
  return key->key;
}

bool AddOfferWithSpotAboveOnDemand(const TestServer& server, const std::string& instance_type,
                                   const std::string& gpu, int gpu_count, double ondemand) {
  httplib::Headers auth{{"Authorization", "Bearer " + CreateApiKey(server, "ops", "write")}};
  nlohmann::json type = {{"cloud", "testcloud"}, {"instance_type", instance_type},
                         {"gpu", gpu},           {"gpu_count", gpu_count},
                         {"vcpus", 16 * gpu_count}, {"memory_gib", 128 * gpu_count}};
  auto created = server.Send("POST", "/api/v1/instances", type.dump(), "application/json", auth);
  if (created.status != 201) {
    ADD_FAILURE() << "POST /api/v1/instances: " << created.body.dump();
    return false;
  }
  nlohmann::json prices = nlohmann::json::array();
  for (auto [kind, price] : {std::pair{"ondemand", ondemand}, {"spot", 2 * ondemand}}) {
    prices.push_back({{"cloud", "testcloud"}, {"instance_type", instance_type}, {"region", "r1"},
                      {"kind", kind}, {"price_per_hour", price}, {"currency", "USD"}});
  }
  auto posted = server.Send("POST", "/api/v1/prices", nlohmann::json{{"prices", prices}}.dump(),
                            "application/json", auth);
  if (posted.status != 201) {
    ADD_FAILURE() << "POST /api/v1/prices: " << posted.body.dump();
    return false;
  }
  return true;
}

TestServer::TestServer(bool require_auth_for_reads)
    : TestServer(server::ConnectionLimits{}, require_auth_for_reads) {}

TestServer::TestServer(const server::ConnectionLimits& limits, bool require_auth_for_reads)
    : TestServer([&](server::ServeConfig& config) {
        config.require_auth_for_reads = require_auth_for_reads;
        config.limits = limits;
      }) {}

TestServer::TestServer(const std::function<void(server::ServeConfig&)>& configure)
    : db_(dir_) {
  spdlog::set_level(spdlog::level::warn);
  server::ServeConfig config;
  config.db_connections = 4;
  configure(config);
  config.port = 0;
  config.db_path = db_.url();
  config.static_dir = STATIC_DIR;
  auto app = server::App::Create(config);
  if (!app.ok()) throw std::runtime_error("App::Create: " + app.error().message);
  app_ = std::move(app).value();
  auto port = app_->Bind();
  if (!port.ok()) throw std::runtime_error("Bind: " + port.error().message);
  port_ = *port;
  thread_ = std::thread([this] { app_->Run(); });
}

TestServer::~TestServer() {
  app_->Stop();
  thread_.join();
}

httplib::Client TestServer::Client() const {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(30, 0);
  return client;
}

namespace {
TestServer::Reply ToReply(const httplib::Result& res, const std::string& what) {
  TestServer::Reply reply;
  if (!res) {
    ADD_FAILURE() << what << " failed: " << httplib::to_string(res.error());
    return reply;
  }
  reply.status = res->status;
  reply.content_type = res->get_header_value("Content-Type");
  reply.body = nlohmann::json::parse(res->body, nullptr, false);
  if (reply.body.is_discarded()) ADD_FAILURE() << what << ": body is not JSON";
  return reply;
}
}  // namespace

TestServer::Reply TestServer::Send(const std::string& method, const std::string& target,
                                   const std::string& body, const std::string& content_type,
                                   const httplib::Headers& headers) const {
  auto client = Client();
  httplib::Request req;
  req.method = method;
  req.path = target;
  req.headers = headers;
  if (!body.empty() || method == "POST" || method == "PUT") {
    req.body = body;
    req.set_header("Content-Type", content_type);
  }
  auto res = client.send(req);
  Reply reply;
  if (!res) {
    ADD_FAILURE() << method << " " << target << " failed: " << httplib::to_string(res.error());
    return reply;
  }
  reply.status = res->status;
  reply.content_type = res->get_header_value("Content-Type");
  reply.location = res->get_header_value("Location");
  if (!res->body.empty()) {
    reply.body = nlohmann::json::parse(res->body, nullptr, false);
    if (reply.body.is_discarded()) reply.raw = res->body;
  }
  return reply;
}

TestServer::Reply TestServer::Post(const std::string& target, const nlohmann::json& body) const {
  return PostRaw(target, body.dump(), "application/json");
}

TestServer::Reply TestServer::PostRaw(const std::string& target, const std::string& body,
                                      const std::string& content_type) const {
  auto client = Client();
  return ToReply(client.Post(target, body, content_type), "POST " + target);
}

TestServer::Reply TestServer::Get(const std::string& target) const {
  auto client = Client();
  auto res = client.Get(target);
  Reply reply;
  if (!res) {
    ADD_FAILURE() << "GET " << target << " failed: " << httplib::to_string(res.error());
    return reply;
  }
  reply.status = res->status;
  reply.content_type = res->get_header_value("Content-Type");
  reply.body = nlohmann::json::parse(res->body, nullptr, false);
  if (reply.body.is_discarded()) ADD_FAILURE() << "GET " << target << ": body is not JSON";
  return reply;
}

int ConnectTo(int port, const std::string& from_ip) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (!from_ip.empty()) {
    sockaddr_in local{};
    local.sin_family = AF_INET;
    inet_pton(AF_INET, from_ip.c_str(), &local.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
      ::close(fd);
      return -1;
    }
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

namespace {
// Whether `answer` holds a whole response with a Content-Length body.
bool ResponseComplete(const std::string& answer) {
  size_t end = answer.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  std::string head = answer.substr(0, end);
  for (char& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  size_t at = head.find("\r\ncontent-length:");
  if (at == std::string::npos) return false;
  size_t length = std::strtoul(head.c_str() + at + 17, nullptr, 10);
  return answer.size() >= end + 4 + length;
}
}  // namespace

std::string TestServer::Raw(const std::string& bytes, std::chrono::milliseconds timeout,
                            const std::string& from_ip) const {
  int fd = ConnectTo(port_, from_ip);
  if (fd < 0) {
    ADD_FAILURE() << "cannot connect to the test server";
    return "";
  }
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may close early (refusing the body): read its answer
    sent += static_cast<size_t>(n);
  }
  std::string answer;
  auto until = std::chrono::steady_clock::now() + timeout;
  char buffer[65536];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    answer.append(buffer, static_cast<size_t>(n));
    if (ResponseComplete(answer)) break;  // a kept-alive connection: the answer is whole
  }
  ::close(fd);
  return answer;
}

int RawStatus(const std::string& answer) {
  if (answer.rfind("HTTP/1.", 0) != 0 || answer.size() < 12) return 0;
  return std::atoi(answer.c_str() + 9);
}

}  // namespace gpuplan::testing
