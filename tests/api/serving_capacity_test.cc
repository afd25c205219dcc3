// Serving model v3 over real HTTP (issue 24): capacity plans sized from the p95 at the
// planned load, the engine's defaults named, its caps below the KV-cache limit, and the new
// request options validated.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::TestServer;

class ServingCapacityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() { delete server_; }
  static TestServer::Reply Post(const std::string& path, const json& body) {
    return server_->Post(path, body);
  }
  static json Llama8b(const json& overrides = json::object()) {
    json body = {{"workload", "llama-3-8b"}, {"input_tokens", 200}, {"output_tokens", 300},
                 {"target_requests_per_s", 50}, {"latency_slo_ms", 2000}};
    body.update(overrides);
    return body;
  }
  static bool Mentions(const json& list, const std::string& text) {
    for (const auto& s : list) {
      if (s.get<std::string>().find(text) != std::string::npos) return true;
    }
    return false;
  }
  static TestServer* server_;
};
TestServer* ServingCapacityTest::server_ = nullptr;

// The acceptance question: Llama-3-8B at 50 req/s, 200 in / 300 out, p95 <= 2 s, on
// a catalog instance.
TEST_F(ServingCapacityTest, ReplicasComeFromTheP95AndTheEngineCapsHoldBelowTheKvLimit) {
  json search = Llama8b({{"task", "inference"},
                         {"constraints", {{"gpus", {"A100-80GB-SXM4"}}}},
                         {"objective", "cost"}});
  auto ranked = Post("/api/v1/recommendations", search);
  ASSERT_EQ(ranked.status, 200) << ranked.body.dump();
  ASSERT_FALSE(ranked.body["items"].empty()) << ranked.body.dump();
  const json& best = ranked.body["items"][0];
  EXPECT_LE(best["latency_p95"]["e2e_s"].get<double>(), 2.0);
  json body = Llama8b({{"hardware", {{"cloud", best["cloud"]}, {"region", best["region"]},
                                     {"instance_type", best["instance_type"]}}}});
  auto reply = Post("/api/v1/estimates/inference", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& a = reply.body;
  ASSERT_TRUE(a["slo_met"].get<bool>()) << a.dump();
  // The p95 at the planned load meets the target, and the fleet carries the load.
  EXPECT_LE(a["latency"]["e2e_s"]["p95"].get<double>(), 2.0);
  EXPECT_GE(a["latency"]["e2e_s"]["p95"].get<double>(), a["latency"]["e2e_s"]["p50"].get<double>());
  const double per_replica = a["planned_requests_per_s_per_replica"].get<double>();
  const int replicas = a["replicas"].get<int>();
  EXPECT_NEAR(per_replica * replicas, 50, 1e-6);
  EXPECT_EQ(a["latency_s"].get<double>(), a["latency"]["e2e_s"]["p95"].get<double>());
  const std::string rule = a["replica_rule"].get<std::string>();
  EXPECT_NE(rule.find("p95"), std::string::npos) << rule;
  EXPECT_TRUE(Mentions(a["assumptions"], rule));
  // The engine's defaults are named: vLLM V1 on an A100 (not a "large" GPU): 256 / 2048.
  EXPECT_EQ(a["engine"]["name"], "vllm");
  EXPECT_EQ(a["engine"]["version"], "v1");
  EXPECT_EQ(a["engine"]["max_num_seqs"], 256);
  EXPECT_EQ(a["engine"]["max_num_batched_tokens"], 2048);
  EXPECT_TRUE(Mentions(a["assumptions"], "engine vllm v1 defaults for A100-80GB-SXM4"));
  EXPECT_TRUE(Mentions(a["assumptions"], "max_num_seqs 256"));
  // Saturated capacity per replica is that of the engine's cap, below the KV-limit curve.
  EXPECT_NE(a["batch_cap"]["binding"], "kv_capacity");
  EXPECT_LT(a["batch_cap"]["effective"].get<int>(), a["batch_cap"]["kv_capacity"].get<int>());
  EXPECT_LT(a["saturation"]["tokens_per_s"].get<double>(), a["kv_limit"]["tokens_per_s"].get<double>());
  EXPECT_EQ(a["curve"].back()["batch"], a["batch_cap"]["effective"]);
  EXPECT_LE(per_replica, a["saturation"]["requests_per_s"].get<double>());
  // The named terms (means over iterations) bound the mean iteration: each iteration takes
  // host + floors + all-reduce + max(memory, compute), so the mean lies between the max of the
  // means and their sum.
  const json& it = a["iteration"];
  const double fixed = it["kernel_floors_s"].get<double>() + it["allreduce_s"].get<double>() +
                       it["cpu_s"].get<double>();
  const double memory = it["weights_s"].get<double>() + it["kv_read_s"].get<double>() +
                        it["sampling_s"].get<double>();
  const double compute = it["compute_s"].get<double>();
  EXPECT_GE(it["total_s"].get<double>(), fixed + std::max(memory, compute) - 1e-12);
  EXPECT_LE(it["total_s"].get<double>(), fixed + memory + compute + 1e-12);
}

TEST_F(ServingCapacityTest, EngineOptionsOverrideTheDefaultsAndAreNotCalledDefaults) {
  json body = Llama8b({{"hardware", {{"gpu", "H100-80GB-SXM5"}}},
                       {"engine", {{"version", "v0"}, {"max_num_seqs", 64}}},
                       {"max_concurrency", 32}});
  auto reply = Post("/api/v1/estimates/inference", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& a = reply.body;
  EXPECT_EQ(a["engine"]["version"], "v0");
  EXPECT_EQ(a["engine"]["max_num_seqs"], 64);
  EXPECT_FALSE(a["engine"]["chunked_prefill"].get<bool>());
  EXPECT_EQ(a["batch_cap"]["client_concurrency"], 32);
  EXPECT_EQ(a["batch_cap"]["effective"], 32);
  EXPECT_EQ(a["batch_cap"]["binding"], "client_concurrency");
  EXPECT_FALSE(Mentions(a["assumptions"], "max_num_seqs 64"));  // given, not a default
  EXPECT_TRUE(Mentions(a["assumptions"], "engine vllm v0 defaults"));
}

TEST_F(ServingCapacityTest, QuantisationAndAnFp8KvCacheChangeMemoryAsStated) {
  auto plain = Post("/api/v1/estimates/inference", Llama8b({{"hardware", {{"gpu", "L4"}}}}));
  auto quant = Post("/api/v1/estimates/inference",
                    Llama8b({{"hardware", {{"gpu", "L4"}}}, {"weight_quantization", "int4_awq"},
                             {"kv_cache_dtype", "fp8"}}));
  ASSERT_EQ(plain.status, 200) << plain.body.dump();
  ASSERT_EQ(quant.status, 200) << quant.body.dump();
  EXPECT_LT(quant.body["memory"]["weights_gb"].get<double>(),
            0.3 * plain.body["memory"]["weights_gb"].get<double>());
  EXPECT_EQ(quant.body["memory"]["kv_cache_bytes_per_token"].get<double>(),
            plain.body["memory"]["kv_cache_bytes_per_token"].get<double>() / 2);
  EXPECT_GT(quant.body["batch_cap"]["kv_capacity"].get<int>(),
            2 * plain.body["batch_cap"]["kv_capacity"].get<int>());
  EXPECT_TRUE(Mentions(quant.body["assumptions"], "weights int4_awq"));
}

TEST_F(ServingCapacityTest, BadServingOptionsAre422NamingTheField) {
  struct Case {
    json overrides;
    std::string pointer;
  } cases[] = {
      {{{"engine", {{"version", "v9"}}}}, "/engine/version"},
      {{{"engine", {{"name", "tgi"}}}}, "/engine/name"},
      {{{"engine", {{"max_num_seqs", 0}}}}, "/engine/max_num_seqs"},
      {{{"engine", {{"gpu_memory_utilization", 1.5}}}}, "/engine/gpu_memory_utilization"},
      {{{"engine", {{"speculative", true}}}}, "/engine/speculative"},
      {{{"engine", {{"max_model_len", 256}}}}, "/engine/max_model_len"},
      {{{"weight_quantization", "int3"}}, "/weight_quantization"},
      {{{"kv_cache_dtype", "fp4"}}, "/kv_cache_dtype"},
      {{{"shared_prefix_tokens", 200}}, "/shared_prefix_tokens"},
      {{{"max_concurrency", 0}}, "/max_concurrency"},
      {{{"tensor_parallel", 3}}, "/tensor_parallel"},
      {{{"input_tokens", 8000}}, "/input_tokens"},
  };
  for (const Case& c : cases) {
    json body = Llama8b({{"hardware", {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 8}}}});
    body.update(c.overrides);
    auto reply = Post("/api/v1/estimates/inference", body);
    ASSERT_EQ(reply.status, 422) << c.overrides.dump() << " " << reply.body.dump();
    EXPECT_EQ(reply.content_type, "application/problem+json");
    bool named = false;
    for (const auto& e : reply.body["errors"]) named = named || e["pointer"] == c.pointer;
    EXPECT_TRUE(named) << c.pointer << " " << reply.body.dump();
  }
}

TEST_F(ServingCapacityTest, AnUnmeetableTargetIsInfeasibleWithTheReason) {
  auto reply = Post("/api/v1/estimates/inference",
                    Llama8b({{"hardware", {{"gpu", "L4"}}}, {"latency_slo_ms", 100}}));
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  EXPECT_FALSE(reply.body["slo_met"].get<bool>());
  EXPECT_FALSE(reply.body["feasibility"]["feasible"].get<bool>());
  EXPECT_EQ(reply.body["feasibility"]["reasons"][0]["code"], "slo_not_met");
  EXPECT_NE(reply.body["feasibility"]["reasons"][0]["detail"].get<std::string>().find("p95"),
            std::string::npos);
  EXPECT_TRUE(reply.body["cost"]["ondemand"].is_null());
}

}  // namespace
}  // namespace gpuplan::api
