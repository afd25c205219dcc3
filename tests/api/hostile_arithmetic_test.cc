// The hostile suite, arithmetic (issue 22, finding 4 and the numeric part of finding 11):
// extreme numbers in every numeric field of every planning endpoint, over real HTTP to the
// real server. Each answer is a 4xx problem naming a field, or a 2xx whose numbers are
// finite and not negative and agree with each other: replicas x GPUs per replica = total
// GPUs, cost = price per hour x instances x hours (within the rounding of money), per_month
// = per_hour x 730. The grid is fixed (no random inputs), so every run sends the same
// requests and a failure names the one that broke.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "model/hardware.h"
#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::TestServer;

// The most GPUs one plan may use (docs/api.md, Limits): nodes x GPUs per node at their maxima.
constexpr long long kMaxPlanGpus =
    static_cast<long long>(model::kMaxGpusPerNode) * model::kMaxNodes;

// Zero, the smallest subnormal, tiny, one, large, huge, 2^31 and 2^63 (as JSON integers).
std::vector<json> ExtremeValues() {
  return {0,   5e-324, 1e-300, 1, 1e9, 1e15, 1e300, json(std::uint64_t{1} << 31),
          json(std::uint64_t{1} << 63)};
}

// `value` as a query parameter: integers in full, other numbers with every digit.
std::string QueryText(const json& value) {
  if (value.is_number_unsigned()) return std::to_string(value.get<std::uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", value.get<double>());
  return text;
}

json With(json body, const std::string& pointer, const json& value) {
  body[json::json_pointer(pointer)] = value;
  return body;
}

// Keys whose numbers may be negative: none of the planning answers has one; ownership
// compares buying with renting, and a difference may go either way.
bool MayBeNegative(const std::string& key) {
  return key.find("saving") != std::string::npos || key.find("difference") != std::string::npos;
}

// Every number in `v` is finite, and not negative unless its key is a signed difference.
void ExpectSaneNumbers(const json& v, const std::string& path, const std::string& request) {
  if (v.is_object()) {
    for (const auto& [key, item] : v.items()) {
      if (item.is_number() && MayBeNegative(key)) {
        EXPECT_TRUE(std::isfinite(item.get<double>())) << path << "/" << key << " in " << request;
        continue;
      }
      ExpectSaneNumbers(item, path + "/" + key, request);
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      ExpectSaneNumbers(v[i], path + "/" + std::to_string(i), request);
    }
  } else if (v.is_number()) {
    double d = v.get<double>();
    EXPECT_TRUE(std::isfinite(d)) << path << " = " << d << " in " << request;
    EXPECT_GE(d, 0) << path << " in " << request;
  }
}

// Money is rounded to 1e-6 of the unit: allow that on the product and on the price in it.
void ExpectProduct(const json& total, double product, double units, const std::string& what) {
  ASSERT_TRUE(total.is_number()) << what;
  double tolerance = 1e-6 * std::max(1.0, std::fabs(product)) + 1e-6 * units + 1e-6;
  EXPECT_NEAR(total.get<double>(), product, tolerance) << what;
}

// A refusal: a 4xx problem whose errors name a field (a JSON pointer or a parameter).
void ExpectProblemNamingAField(const TestServer::Reply& r, const std::string& request) {
  EXPECT_GE(r.status, 400) << request << " -> " << r.body.dump();
  EXPECT_LT(r.status, 500) << request << " -> " << r.body.dump();
  EXPECT_EQ(r.content_type, "application/problem+json") << request;
  ASSERT_TRUE(r.body.contains("errors") && r.body["errors"].is_array() &&
              !r.body["errors"].empty())
      << request << " -> " << r.body.dump();
  const json& first = r.body["errors"][0];
  EXPECT_TRUE(first.contains("pointer") || first.contains("parameter")) << first.dump();
}

void ExpectTrainingCostConsistent(const json& cost, const std::string& request) {
  if (!cost.is_object()) return;
  const json& od = cost["ondemand"];
  if (od.is_object()) {
    double price = od["price_per_hour"], hours = od["hours"];
    int instances = od["instances"];
    ExpectProduct(od["total"], price * instances * hours, instances * hours, request);
    if (!od["per_epoch"].is_null()) {
      EXPECT_GE(od["per_epoch"].get<double>(), 0) << request;
    }
  }
  const json& spot = cost["spot"];
  if (spot.is_object() && spot["viable"] == true) {
    double price = spot["price_per_hour"], hours = spot["billable_hours"];
    int instances = spot["instances"];
    ExpectProduct(spot["expected_total"], price * instances * hours, instances * hours, request);
  }
}

void ExpectServingCostConsistent(const json& cost, int instances, const std::string& request) {
  if (!cost.is_object()) return;
  EXPECT_EQ(cost["instances"], instances) << request;
  double price = cost["price_per_hour"];
  ExpectProduct(cost["per_hour"], price * instances, instances, request);
  ExpectProduct(cost["per_month"], cost["per_hour"].get<double>() * 730, 730, request);
}

void ExpectInferencePlanConsistent(const TestServer::Reply& r, const json&,
                                   const std::string& request) {
  const json& a = r.body;
  if (a["replicas"].is_null()) return;  // does not fit: nothing is served
  long long replicas = a["replicas"], per_replica = a["gpus_per_replica"];
  long long total = a["total_gpus"];
  EXPECT_GE(replicas, 1) << request;
  EXPECT_EQ(replicas * per_replica, total) << request;
  EXPECT_LE(total, kMaxPlanGpus) << request;
  int instances = a["instances"];
  EXPECT_GE(static_cast<long long>(instances) * a["hardware"]["gpus_per_node"].get<int>(), total)
      << request;
  ExpectServingCostConsistent(a["cost"]["ondemand"], instances, request);
  ExpectServingCostConsistent(a["cost"]["spot"], instances, request);
}

void ExpectRecommendationConsistent(const TestServer::Reply& r, const json& body,
                                    const std::string& request) {
  const json& a = r.body;
  for (const char* list : {"items", "pareto_front"}) {
    for (const json& item : a[list]) {
      int nodes = item["nodes"], per_instance = item["gpus_per_instance"];
      EXPECT_EQ(item["total_gpus"], nodes * per_instance) << request;
      double price = item["price_per_hour"];
      if (item.contains("replicas")) {
        long long used = item["replicas"].get<long long>() * item["gpus_per_replica"].get<int>();
        EXPECT_LE(used, static_cast<long long>(nodes) * per_instance) << request;
        ExpectProduct(item["cost_per_hour"], price * nodes, nodes, request);
        ExpectProduct(item["cost_per_month"], item["cost_per_hour"].get<double>() * 730, 730,
                      request);
      } else if (item["price_kind"] == "ondemand") {
        double hours = item["hours"];
        ExpectProduct(item["cost"], price * nodes * hours, nodes * hours, request);
      }
    }
  }
  const json& budget = body["constraints"]["budget"];
  if (budget.is_number()) {
    for (const json& item : a["items"]) {
      double cost = item.contains("cost_per_month") ? item["cost_per_month"] : item["cost"];
      EXPECT_LE(cost, budget.get<double>() * (1 + 1e-9)) << request;
    }
  }
}

// A parsed Kubernetes export: a Deployment's replicas and every GPU limit are whole counts
// within the plan maximum.
void ExpectKubernetesCountsSane(const std::string& yaml, const std::string& request) {
  YAML::Node doc;
  try {
    doc = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    ADD_FAILURE() << request << ": not YAML: " << e.what();
    return;
  }
  if (doc["spec"] && doc["spec"]["replicas"]) {
    long long replicas = doc["spec"]["replicas"].as<long long>();
    EXPECT_GE(replicas, 1) << request;
    EXPECT_LE(replicas, kMaxPlanGpus) << request;
  }
  EXPECT_EQ(yaml.find("replicas: -"), std::string::npos) << request;
}

class HostileArithmeticSweep : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  // Sends `body` with each extreme value at each pointer; checks each answer with `check`.
  template <typename Check>
  static void Sweep(const std::string& target, const json& base,
                    const std::vector<std::string>& pointers, Check check) {
    for (const std::string& pointer : pointers) {
      for (const json& value : ExtremeValues()) {
        json body = With(base, pointer, value);
        std::string request = target + " " + pointer + "=" + value.dump();
        auto reply = server_->Send("POST", target, body.dump(), "application/json", {});
        ASSERT_NE(reply.status, 0) << request << ": no answer";
        if (reply.status >= 400) {
          ExpectProblemNamingAField(reply, request);
          continue;
        }
        EXPECT_EQ(reply.status, 200) << request;
        if (reply.content_type.rfind("application/json", 0) == 0) {
          ExpectSaneNumbers(reply.body, "", request);
        }
        check(reply, body, request);
      }
    }
  }

  static json Training() {
    return {{"workload", "bert-large"},
            {"dataset", {{"samples", 1000000}, {"epochs", 1}}},
            {"global_batch_size", 256},
            {"hardware",
             {{"gpu", "A100-80GB-SXM4"}, {"gpus_per_node", 8}, {"nodes", 1},
              {"price_per_hour", 30}, {"spot_price_per_hour", 12}}},
            {"pricing", {{"kind", "both"}}}};
  }
  static json Serving() {
    return {{"workload", "llama-2-70b"},
            {"input_tokens", 2000},
            {"output_tokens", 2000},
            {"target_requests_per_s", 10},
            {"hardware",
             {{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"}, {"region", "us-east-1"}}},
            {"pricing", {{"kind", "both"}}}};
  }

  static TestServer* server_;
};
TestServer* HostileArithmeticSweep::server_ = nullptr;

const std::vector<std::string> kTrainingFields = {
    "/dataset/samples", "/dataset/epochs", "/global_batch_size", "/micro_batch_size",
    "/hardware/nodes", "/hardware/gpus_per_node", "/hardware/price_per_hour",
    "/hardware/spot_price_per_hour", "/pricing/interruption_rate_per_hour",
    "/pricing/checkpoint_interval_minutes", "/pricing/restart_minutes",
    "/pricing/capacity_wait_minutes", "/pricing/checkpoint_write_minutes"};

TEST_F(HostileArithmeticSweep, TrainingEstimates) {
  auto check = [](const TestServer::Reply& r, const json&, const std::string& request) {
    ExpectTrainingCostConsistent(r.body["cost"], request);
  };
  Sweep("/api/v1/estimates/training", Training(), kTrainingFields, check);
  json tokens = Training();
  tokens["dataset"] = {{"tokens", 1e9}};
  Sweep("/api/v1/estimates/training", tokens, {"/dataset/tokens"}, check);
  json hours = Training();
  hours["dataset"] = {{"hours", 10}};
  Sweep("/api/v1/estimates/training", hours, {"/dataset/hours"}, check);
  json fallback = Training();
  fallback["pricing"] = {{"kind", "spot_with_fallback"}, {"deadline_hours", 48}};
  Sweep("/api/v1/estimates/training", fallback,
        {"/pricing/deadline_hours", "/pricing/interruption_rate_per_hour"}, check);
}

TEST_F(HostileArithmeticSweep, TrainingBatches) {
  json base = {{"scenarios", json::array({Training(), Training()})}};
  Sweep("/api/v1/estimates/training:batch", base,
        {"/scenarios/1/dataset/samples", "/scenarios/1/global_batch_size",
         "/scenarios/1/hardware/nodes", "/scenarios/1/hardware/price_per_hour"},
        [](const TestServer::Reply& r, const json&, const std::string& request) {
          ASSERT_EQ(r.body["items"].size(), 2u) << request;
          for (const json& item : r.body["items"]) {
            if (item["status"] == 200) {
              ExpectTrainingCostConsistent(item["result"]["cost"], request);
            } else {
              EXPECT_EQ(item["status"], 422) << request;
              EXPECT_FALSE(item["problem"]["errors"].empty()) << request << item.dump();
            }
          }
        });
}

TEST_F(HostileArithmeticSweep, InferenceEstimatesAndTheirKubernetesExport) {
  const std::vector<std::string> fields = {"/target_requests_per_s", "/input_tokens",
                                           "/output_tokens", "/latency_slo_ms",
                                           "/hardware/nodes"};
  Sweep("/api/v1/estimates/inference", Serving(), fields, ExpectInferencePlanConsistent);
  json cnn = {{"workload", "resnet-50"}, {"target_samples_per_s", 100},
              {"hardware", {{"gpu", "T4"}, {"price_per_hour", 0.5}}}};
  Sweep("/api/v1/estimates/inference", cnn,
        {"/target_samples_per_s", "/hardware/price_per_hour", "/hardware/gpus_per_node"},
        ExpectInferencePlanConsistent);
  Sweep("/api/v1/estimates/inference?format=kubernetes", Serving(),
        {"/target_requests_per_s", "/output_tokens"},
        [](const TestServer::Reply& r, const json&, const std::string& request) {
          ExpectKubernetesCountsSane(r.raw, request);
        });
  Sweep("/api/v1/estimates/training?format=kubernetes", Training(),
        {"/hardware/nodes", "/dataset/samples"},
        [](const TestServer::Reply& r, const json&, const std::string& request) {
          ExpectKubernetesCountsSane(r.raw, request);
        });
}

TEST_F(HostileArithmeticSweep, Recommendations) {
  json training = Training();
  training.erase("hardware");
  training["constraints"] = {{"clouds", {"aws"}}, {"gpus", {"A100"}}, {"max_nodes", 2},
                             {"budget", 1e6}, {"deadline_hours", 1000}};
  Sweep("/api/v1/recommendations", training,
        {"/dataset/samples", "/dataset/epochs", "/global_batch_size", "/constraints/budget",
         "/constraints/deadline_hours", "/constraints/max_nodes",
         "/pricing/interruption_rate_per_hour"},
        ExpectRecommendationConsistent);
  json serving = Serving();
  serving.erase("hardware");
  serving.erase("pricing");
  serving["task"] = "inference";
  serving["constraints"] = {
      {"clouds", {"aws"}}, {"budget", 1e7}, {"price_kinds", {"ondemand", "spot"}}};
  Sweep("/api/v1/recommendations", serving,
        {"/target_requests_per_s", "/input_tokens", "/output_tokens", "/latency_slo_ms",
         "/constraints/budget"},
        ExpectRecommendationConsistent);
}

TEST_F(HostileArithmeticSweep, ComparisonsAndOwnership) {
  json compare = Training();
  compare.erase("hardware");
  compare.erase("pricing");
  compare["gpus"] = {"A100-80GB-SXM4", "T4"};
  auto rows = [](const TestServer::Reply& r, const json&, const std::string& request) {
    for (const json& row : r.body["items"]) {
      if (!row["price_per_gpu_hour"].is_number() || !row["hours"].is_number()) continue;
      double gpus = r.body.value("gpus_per_node", 1);
      double hours = row["hours"];
      ExpectProduct(row["cost"], row["price_per_gpu_hour"].get<double>() * gpus * hours,
                    gpus * hours, request);
    }
  };
  Sweep("/api/v1/compare", compare,
        {"/dataset/samples", "/dataset/epochs", "/global_batch_size", "/gpus_per_node"}, rows);
  for (const char* param : {"samples", "epochs", "global_batch_size", "gpus_per_node", "tokens"}) {
    for (const json& value : ExtremeValues()) {
      std::string target = "/api/v1/compare?workload=bert-large&gpus=A100-80GB-SXM4,T4&" +
                           std::string(param) + "=" + QueryText(value);
      if (std::string(param) != "samples" && std::string(param) != "tokens") {
        target += "&samples=1000000";
      }
      auto reply = server_->Get(target);
      if (reply.status >= 400) {
        ExpectProblemNamingAField(reply, target);
        continue;
      }
      EXPECT_EQ(reply.status, 200) << target;
      ExpectSaneNumbers(reply.body, "", target);
      rows(reply, json::object(), target);
    }
  }
  json ownership = {{"gpu", "RTX-4090"},
                    {"gpus", 1},
                    {"training", {{"workload", "resnet-50"},
                                  {"dataset", {{"samples", 1281167}, {"epochs", 1}}},
                                  {"global_batch_size", 256}}}};
  Sweep("/api/v1/estimates/ownership", ownership,
        {"/gpus", "/purchase_price", "/power_watts", "/electricity_price_per_kwh", "/years",
         "/utilisation", "/training/dataset/samples", "/training/global_batch_size"},
        [](const TestServer::Reply&, const json&, const std::string&) {});
}

class HostileArithmetic : public HostileArithmeticSweep {};

// Finding 4: 1e9 requests/s of llama-2-70b with 4000/4000 tokens on p4d needed more replicas
// than an int holds; the cast made them -2147483648 and the cost -3.4e13 a month.
TEST_F(HostileArithmetic, ServingLoadBeyondTheGpuMaximumIsRefusedNamingTheTarget) {
  json body = With(Serving(), "/target_requests_per_s", 1e9);
  for (const char* target : {"/api/v1/estimates/inference",
                             "/api/v1/estimates/inference?format=kubernetes"}) {
    auto reply = server_->Send("POST", target, body.dump(), "application/json", {});
    EXPECT_EQ(reply.status, 422) << target << " " << reply.body.dump() << reply.raw;
    ASSERT_TRUE(reply.body.contains("errors")) << reply.raw;
    EXPECT_EQ(reply.body["errors"][0]["pointer"], "/target_requests_per_s");
    const std::string detail = reply.body["errors"][0]["detail"];
    EXPECT_NE(detail.find("over the maximum of 262144"), std::string::npos)
        << reply.body.dump();
  }
}

// The same load in a recommendation: every option is a counted rejection, none an item
// (they ranked first, at a negative cost, under any budget).
TEST_F(HostileArithmetic, RecommendationsCountOptionsOverTheGpuMaximumAsRejected) {
  json body = With(Serving(), "/target_requests_per_s", 1e9);
  body.erase("hardware");
  body.erase("pricing");
  body["task"] = "inference";
  body["constraints"] = {{"budget", 1000}};
  auto reply = server_->Post("/api/v1/recommendations", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  EXPECT_TRUE(reply.body["items"].empty()) << reply.body["items"].dump();
  EXPECT_GT(reply.body["rejected"]["over_max_gpus"].get<int>(), 0) << reply.body.dump();
}

// A load just within the maximum is served, with whole, consistent counts.
TEST_F(HostileArithmetic, ServingLoadWithinTheGpuMaximumHasConsistentCounts) {
  json body = With(Serving(), "/target_requests_per_s", 50);
  auto reply = server_->Post("/api/v1/estimates/inference", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  EXPECT_GT(reply.body["replicas"].get<int>(), 1);
  ExpectInferencePlanConsistent(reply, body, "50 requests/s");
  ExpectSaneNumbers(reply.body, "", "50 requests/s");
}

// Finding 11: a huge micro-batch of a large model made breakdown.overhead_s negative (the
// micro-step's smooth maximum of GPU and host time rounded below the GPU time).
TEST_F(HostileArithmetic, StepBreakdownIsNeverNegativeOnHugeMicroBatches) {
  for (int micro : {1024, 1 << 16}) {
    json body = Training();
    body["workload"] = "llama-2-70b";
    body["hardware"] = {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 8}, {"price_per_hour", 30}};
    body["global_batch_size"] = micro * 8;
    body["micro_batch_size"] = micro;
    auto reply = server_->Post("/api/v1/estimates/training", body);
    ASSERT_EQ(reply.status, 200) << reply.body.dump();
    ASSERT_TRUE(reply.body["breakdown"].is_object()) << reply.body.dump();
    // A micro-batch that does not fit has no step time at all (issue 23): null, never a
    // figure; one that fits has no negative term.
    const bool fits = reply.body["feasibility"]["feasible"].get<bool>();
    for (const auto& [key, value] : reply.body["breakdown"].items()) {
      if (!fits) {
        EXPECT_TRUE(value.is_null()) << key << " at micro-batch " << micro;
      } else {
        EXPECT_GE(value.get<double>(), 0) << key << " at micro-batch " << micro;
      }
    }
    ExpectSaneNumbers(reply.body, "", "micro-batch " + std::to_string(micro));
  }
}

// Finding 11: a price of 0 is a price; its cost per epoch is 0, not null.
TEST_F(HostileArithmetic, ZeroPriceHasZeroUnitCostsNotNull) {
  json body = Training();
  body["hardware"]["price_per_hour"] = 0;
  body["hardware"]["spot_price_per_hour"] = 0;
  auto reply = server_->Post("/api/v1/estimates/training", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  for (const char* kind : {"ondemand", "spot"}) {
    const json& cost = reply.body["cost"][kind];
    ASSERT_TRUE(cost.is_object()) << kind;
    EXPECT_EQ(cost["per_epoch"], 0.0) << kind << " " << cost.dump();
    EXPECT_EQ(cost["per_thousand_samples"], 0.0) << kind;
  }
}

// Finding 11: a MoE shape sized in tokens without seq_len was told "a cnn workload is sized
// in samples, not tokens".
TEST_F(HostileArithmetic, MoeWithoutSeqLenNamesSeqLen) {
  json moe = {{"family", "moe"}, {"layers", 32}, {"hidden", 4096}, {"heads", 32},
              {"experts", 8}, {"active_experts", 2}, {"vocab", 32000}};
  json body = Training();
  body["workload"] = moe;
  body["dataset"] = {{"tokens", 1e9}};
  json recommend = body;
  recommend.erase("hardware");
  for (const auto& [target, request] : {std::pair{"/api/v1/estimates/training", body},
                                        std::pair{"/api/v1/recommendations", recommend}}) {
    auto reply = server_->Post(target, request);
    EXPECT_EQ(reply.status, 422) << target;
    ASSERT_TRUE(reply.body.contains("errors")) << reply.body.dump();
    EXPECT_EQ(reply.body["errors"][0]["pointer"], "/workload/seq_len") << reply.body.dump();
    EXPECT_EQ(reply.body["detail"].get<std::string>().find("cnn"), std::string::npos)
        << reply.body.dump();
  }
}

// More optimizer steps than a double counts exactly is refused on the dataset field.
TEST_F(HostileArithmetic, StepsBeyondTwoToTheFiftyThirdAreRefused) {
  json body = Training();
  body["dataset"] = {{"samples", 1e15}, {"epochs", 1e6}};
  body["global_batch_size"] = 1;
  auto reply = server_->Post("/api/v1/estimates/training", body);
  EXPECT_EQ(reply.status, 422) << reply.body.dump();
  ASSERT_TRUE(reply.body.contains("errors")) << reply.body.dump();
  EXPECT_EQ(reply.body["errors"][0]["pointer"], "/dataset/epochs");
}

}  // namespace
}  // namespace gpuplan::api
