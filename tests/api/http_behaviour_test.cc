// HTTP semantics over real HTTP: 405 with Allow, HEAD, OPTIONS, ETag with If-None-Match ->
// 304 (and a new tag after a write), Cache-Control, CORS (allowed and refused origins,
// preflights without a key), request ids, and /metrics after traffic.
#include <gtest/gtest.h>

#include <regex>

#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::TestServer;

class HttpBehaviourTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::function<void(server::ServeConfig&)> configure = [](server::ServeConfig& c) {
      c.cors_origins = {"https://plan.example.com"};
    };
    server_ = new TestServer(configure);
  }
  static void TearDownTestSuite() { delete server_; }
  static TestServer* server_;
};
TestServer* HttpBehaviourTest::server_ = nullptr;

TEST_F(HttpBehaviourTest, AWrongMethodOnAKnownPathIs405WithAllow) {
  auto client = server_->Client();
  auto res = client.Delete("/api/v1/workloads");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
  EXPECT_EQ(res->get_header_value("Allow"), "GET, HEAD, OPTIONS");
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/problem+json");
  json problem = json::parse(res->body);
  EXPECT_EQ(problem["status"], 405);
  EXPECT_NE(problem["detail"].get<std::string>().find("GET, HEAD, OPTIONS"), std::string::npos);

  // A path with a parameter; PUT and DELETE exist there, POST does not.
  auto post = client.Post("/api/v1/gpus/A100-80GB-SXM4", "{}", "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD, PUT, DELETE, OPTIONS");

  // An unknown path stays a 404, without Allow.
  auto unknown = client.Delete("/api/v1/nothing");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_FALSE(unknown->has_header("Allow"));
}

TEST_F(HttpBehaviourTest, HeadAnswersTheHeadersOfGetWithoutTheBody) {
  auto client = server_->Client();
  auto get = client.Get("/api/v1/clouds");
  auto head = client.Head("/api/v1/clouds");
  ASSERT_TRUE(get && head);
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
  EXPECT_EQ(head->get_header_value("Content-Length"), std::to_string(get->body.size()));
  EXPECT_EQ(head->get_header_value("Content-Type"), get->get_header_value("Content-Type"));
  EXPECT_EQ(head->get_header_value("ETag"), get->get_header_value("ETag"));
  auto options = client.Options("/api/v1/instances/aws/p4d.24xlarge");
  ASSERT_TRUE(options);
  EXPECT_EQ(options->status, 204);
  EXPECT_EQ(options->get_header_value("Allow"), "GET, HEAD, PUT, DELETE, OPTIONS");
}

TEST_F(HttpBehaviourTest, CatalogReadsRevalidateWithTheirETag) {
  auto client = server_->Client();
  auto first = client.Get("/api/v1/gpus");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200);
  std::string etag = first->get_header_value("ETag");
  EXPECT_TRUE(std::regex_match(etag, std::regex(R"("v[0-9.]+-g[0-9]+")"))) << etag;
  EXPECT_EQ(first->get_header_value("Cache-Control"), "no-cache");

  auto again = client.Get("/api/v1/gpus", {{"If-None-Match", etag}});
  ASSERT_TRUE(again) << httplib::to_string(again.error());
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  EXPECT_EQ(again->get_header_value("ETag"), etag);
  auto weak = client.Get("/api/v1/gpus", {{"If-None-Match", "\"other\", W/" + etag}});
  ASSERT_TRUE(weak);
  EXPECT_EQ(weak->status, 304);
  auto other = client.Get("/api/v1/gpus", {{"If-None-Match", "\"v0-g0\""}});
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200);
  EXPECT_EQ(other->body, first->body);

  // A write changes the catalog: the old tag no longer matches.
  json rate = {{"units_per_usd", 150.0}, {"as_of", "2026-11-01"}, {"source", "test"}};
  std::string admin = testing::CreateApiKey(*server_, "etag-test", "admin");
  auto put = server_->Send("PUT", "/api/v1/fx-rates/JPY", rate.dump(), "application/json",
                           {{"Authorization", "Bearer " + admin}});
  ASSERT_TRUE(put.status == 200 || put.status == 201) << put.body.dump();
  auto after = client.Get("/api/v1/gpus", {{"If-None-Match", etag}});
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_NE(after->get_header_value("ETag"), etag);

  // Errors and planning answers carry no ETag, and If-None-Match never hides an error.
  std::string current = after->get_header_value("ETag");
  for (const std::string& tag : {current, std::string("*")}) {
    auto missing = client.Get("/api/v1/gpus/NOPE", {{"If-None-Match", tag}});
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404) << tag;
    EXPECT_EQ(missing->get_header_value("Content-Type"), "application/problem+json");
    EXPECT_FALSE(missing->has_header("ETag"));
    auto bad = client.Get("/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&since=notadate",
                          {{"If-None-Match", tag}});
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 422) << tag;
    EXPECT_NE(bad->body.find("\"parameter\":\"since\""), std::string::npos) << bad->body;
  }
  auto healthz = client.Get("/healthz");
  ASSERT_TRUE(healthz);
  EXPECT_FALSE(healthz->has_header("ETag"));
  auto estimate = server_->Client().Post(
      "/api/v1/estimates/training", {{"If-None-Match", "*"}},
      R"({"workload":"bert-large","dataset":{"samples":1e6},"global_batch_size":64,"hardware":{"gpu":"A10G"}})",
      "application/json");
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->status, 200);
  EXPECT_FALSE(estimate->has_header("ETag"));
}

TEST_F(HttpBehaviourTest, CorsAllowsTheConfiguredOriginOnly) {
  auto client = server_->Client();
  auto allowed = client.Get("/api/v1/clouds", {{"Origin", "https://plan.example.com"}});
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->get_header_value("Access-Control-Allow-Origin"), "https://plan.example.com");
  EXPECT_EQ(allowed->get_header_value("Vary"), "Origin");
  EXPECT_NE(allowed->get_header_value("Access-Control-Expose-Headers").find("ETag"), std::string::npos);

  auto refused = client.Get("/api/v1/clouds", {{"Origin", "https://evil.example.com"}});
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 200);  // the browser, not the server, refuses the answer
  EXPECT_FALSE(refused->has_header("Access-Control-Allow-Origin"));
  EXPECT_EQ(refused->get_header_value("Vary"), "Origin");  // caches keep the answers apart
  auto plain = client.Get("/api/v1/clouds");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->get_header_value("Vary"), "Origin");
  auto upper = client.Get("/api/v1/clouds", {{"Origin", "HTTPS://Plan.Example.COM"}});
  ASSERT_TRUE(upper);  // origins compare without case
  EXPECT_EQ(upper->get_header_value("Access-Control-Allow-Origin"), "HTTPS://Plan.Example.COM");
  auto nowhere = client.Options("/api/v1/nothing-here");
  ASSERT_TRUE(nowhere);
  EXPECT_EQ(nowhere->status, 404);
  EXPECT_EQ(nowhere->get_header_value("Content-Type"), "application/problem+json");

  // A preflight for a POST with JSON: no key needed, the path's methods, once each header.
  httplib::Headers preflight = {{"Origin", "https://plan.example.com"},
                                {"Access-Control-Request-Method", "POST"},
                                {"Access-Control-Request-Headers", "content-type"}};
  auto pre = client.Options("/api/v1/estimates/training", preflight);
  ASSERT_TRUE(pre);
  EXPECT_EQ(pre->status, 204);
  EXPECT_EQ(pre->get_header_value("Access-Control-Allow-Methods"), "POST, OPTIONS");
  EXPECT_NE(pre->get_header_value("Access-Control-Allow-Headers").find("Content-Type"), std::string::npos);
  EXPECT_EQ(pre->get_header_value("Access-Control-Max-Age"), "600");
  EXPECT_EQ(pre->get_header_value_count("Access-Control-Allow-Origin"), 1u);
  auto evil = client.Options("/api/v1/estimates/training",
                             {{"Origin", "https://evil.example.com"}, {"Access-Control-Request-Method", "POST"}});
  ASSERT_TRUE(evil);
  EXPECT_FALSE(evil->has_header("Access-Control-Allow-Methods"));
  EXPECT_FALSE(evil->has_header("Access-Control-Allow-Origin"));
}

TEST(HttpBehaviourConfigTest, AnOriginThatIsNotOneStopsTheStart) {
  for (const std::string bad : {"plan.example.com", "https://plan.example.com/app", "ftp://x.example", "5"}) {
    server::ServeConfig config;
    config.db_path = ":memory:";
    config.cors_origins = {"https://ok.example", bad};
    auto app = server::App::Create(config);
    ASSERT_FALSE(app.ok()) << bad;
    EXPECT_EQ(app.error().fields.at(0).field, "cors-origin");
    EXPECT_NE(app.error().message.find(bad), std::string::npos) << app.error().message;
  }
}

TEST_F(HttpBehaviourTest, RequestIdsAreHonouredOrMadeAndNamedInProblems) {
  auto client = server_->Client();
  auto mine = client.Get("/api/v1/gpus/NOPE", {{"X-Request-Id", "trace-42.a_b"}});
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->get_header_value("X-Request-Id"), "trace-42.a_b");
  json problem = json::parse(mine->body);
  EXPECT_EQ(problem["request_id"], "trace-42.a_b");
  EXPECT_EQ(problem["instance"], "/api/v1/gpus/NOPE#request-trace-42.a_b");
  auto made = client.Get("/api/v1/gpus/NOPE", {{"X-Request-Id", "has spaces"}});
  ASSERT_TRUE(made);
  std::string id = made->get_header_value("X-Request-Id");
  EXPECT_FALSE(id.empty());
  EXPECT_NE(id, "has spaces");
}

// The value of `series` (labels as written) in a Prometheus text answer; -1 when absent.
double MetricValue(const std::string& text, const std::string& series) {
  std::smatch m;
  std::regex line("(^|\n)" + std::regex_replace(series, std::regex(R"([{}\[\]().+*?^$|\\])"), R"(\$&)") +
                  R"( ([0-9.e+-]+))");
  return std::regex_search(text, m, line) ? std::stod(m[2]) : -1.0;
}

TEST_F(HttpBehaviourTest, MetricsCountRequestsByRouteAndStatus) {
  // One keep-alive connection: one server thread answers (and logs, which is when a request
  // is counted) each request before it reads the next, so the scrape sees all before it.
  auto client = server_->Client();
  client.set_keep_alive(true);
  auto scrape = [&] {
    auto metrics = client.Get("/metrics");
    EXPECT_TRUE(metrics);
    if (!metrics) return std::string();
    EXPECT_EQ(metrics->status, 200);
    EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    return metrics->body;
  };
  const std::string ok = R"(gpuplan_http_requests_total{method="GET",route="/api/v1/workloads/{id}",status="200"})";
  const std::string missing = R"(gpuplan_http_requests_total{method="GET",route="/api/v1/workloads/{id}",status="404"})";
  const std::string count = R"(gpuplan_http_request_duration_seconds_count{route="/api/v1/workloads/{id}"})";
  const std::string all = R"(gpuplan_http_request_duration_seconds_bucket{route="/api/v1/workloads/{id}",le="+Inf"})";
  const std::string trained = R"(gpuplan_model_evaluations_total{kind="training"})";
  std::string before = scrape();
  auto delta = [&](const std::string& after, const std::string& series) {
    return MetricValue(after, series) - std::max(0.0, MetricValue(before, series));
  };
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.Get("/api/v1/workloads/bert-large"));
  ASSERT_TRUE(client.Get("/api/v1/workloads/nope"));
  // One estimate with the default precision (auto) is one model evaluation.
  auto estimate = client.Post(
      "/api/v1/estimates/training",
      R"({"workload":"bert-large","dataset":{"samples":1e6},"global_batch_size":64,"hardware":{"gpu":"A10G"}})",
      "application/json");
  ASSERT_TRUE(estimate);
  ASSERT_EQ(estimate->status, 200);
  std::string after = scrape();
  EXPECT_EQ(delta(after, ok), 3);
  EXPECT_EQ(delta(after, missing), 1);
  EXPECT_EQ(delta(after, count), 4);
  EXPECT_EQ(delta(after, all), 4);
  EXPECT_EQ(delta(after, trained), 1);
  auto gpus = server_->Get("/api/v1/gpus");
  EXPECT_EQ(MetricValue(after, R"(gpuplan_catalog_rows{table="gpus"})"), gpus.body["items"].size());
  EXPECT_GE(MetricValue(after, "gpuplan_catalog_generation"), 1);
  EXPECT_EQ(MetricValue(after, "gpuplan_http_requests_in_flight"), 1);  // the scrape itself
  EXPECT_EQ(MetricValue(after, "gpuplan_db_pool_waits_total"), 0);
  EXPECT_EQ(after.find("status=\"0\""), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::api
