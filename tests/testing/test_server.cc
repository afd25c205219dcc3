#include "tests/testing/test_server.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

namespace gpuplan::testing {

TestServer::TestServer(bool require_auth_for_reads) : db_path_(dir_.File("gpuplan.db")) {
  spdlog::set_level(spdlog::level::warn);
  server::ServeConfig config;
  config.port = 0;
  config.db_path = db_path_;
  config.static_dir = STATIC_DIR;
  config.threads = 4;
  config.require_auth_for_reads = require_auth_for_reads;
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

}  // namespace gpuplan::testing
