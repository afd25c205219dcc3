// Issue 13 over real HTTP: measured runs that calibrate later estimates (per API key),
// a reference run translated to other hardware, and spot with an on-demand fallback.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "server/admin_commands.h"
#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::TestServer;

httplib::Headers Bearer(const std::string& key) {
  return {{"Authorization", "Bearer " + key}};
}

class PlanningLoopTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new TestServer();
    alice_ = new std::string(testing::CreateApiKey(*server_, "alice", "write"));
    bob_ = new std::string(testing::CreateApiKey(*server_, "bob", "write"));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete alice_;
    delete bob_;
  }
  static TestServer::Reply Send(const std::string& method, const std::string& path,
                                const json& body, const std::string& key) {
    return server_->Send(method, path, body.is_null() ? "" : body.dump(), "application/json",
                         key.empty() ? httplib::Headers{} : Bearer(key));
  }
  static json Run(const std::string& gpu, double samples_per_s, bool shared = false) {
    return {{"workload", "resnet-50"},
            {"hardware", {{"gpu", gpu}}},
            {"global_batch_size", 256},
            {"precision", "fp16"},
            {"measured", {{"samples_per_s", samples_per_s}}},
            {"note", "timed over 500 steps after warm-up"},
            {"measured_on", "2026-11-20"},
            {"shared", shared}};
  }
  static json Estimate(const std::string& gpu) {
    return {{"workload", "resnet-50"},
            {"dataset", {{"samples", 1281167}, {"epochs", 90}}},
            {"global_batch_size", 256},
            {"precision", "fp16"},
            {"hardware", {{"gpu", gpu}}}};
  }
  static TestServer* server_;
  static std::string* alice_;
  static std::string* bob_;
};

TestServer* PlanningLoopTest::server_ = nullptr;
std::string* PlanningLoopTest::alice_ = nullptr;
std::string* PlanningLoopTest::bob_ = nullptr;

TEST_F(PlanningLoopTest, TheCorrectionIsTheShrunkMeanRatioAndItsErrorIsLeaveOneOut) {
  const std::string gpu = "L4";
  const std::string carol = testing::CreateApiKey(*server_, "carol", "write");
  auto probe = Send("POST", "/api/v1/estimates/training", Estimate(gpu), carol);
  ASSERT_EQ(probe.status, 200) << probe.raw;
  const double model_rate = probe.body["throughput"]["samples_per_s"].get<double>();
  const double model_hours = probe.body["time"]["total_hours"].get<double>();
  // A run needs a key: the key is whose run it is.
  EXPECT_EQ(Send("POST", "/api/v1/measurements", Run(gpu, 1000), "").status, 401);
  // The model's unrounded prediction for the run, from a run another key records.
  auto probe_run = Send("POST", "/api/v1/measurements", Run(gpu, 1000), *bob_);
  ASSERT_EQ(probe_run.status, 201) << probe_run.raw;
  const double predicted = probe_run.body["predicted_samples_per_s"].get<double>();
  EXPECT_NEAR(predicted, model_rate, 0.01 * model_rate);
  std::vector<double> ratios = {0.80, 0.86, 0.83};
  std::vector<int> ids;
  for (double r : ratios) {
    auto stored = Send("POST", "/api/v1/measurements", Run(gpu, predicted * r), carol);
    ASSERT_EQ(stored.status, 201) << stored.raw;
    ids.push_back(stored.body["id"].get<int>());
  }
  auto after = Send("POST", "/api/v1/estimates/training", Estimate(gpu), carol);
  ASSERT_EQ(after.status, 200) << after.raw;
  const json& c = after.body["calibration"];
  ASSERT_TRUE(c.is_object()) << after.raw;
  EXPECT_EQ(c["runs"], 3);
  EXPECT_EQ(c["measurement_ids"], json(ids));
  double sum_log = 0;
  for (double r : ratios) sum_log += std::log(r);
  const double factor = std::exp(sum_log / (3 + 2));  // kMeasurementPriorRuns = 2
  EXPECT_NEAR(c["factor"].get<double>(), factor, 1e-9);
  double before = 0, loo = 0;
  for (double r : ratios) {
    before += std::abs(1 / r - 1);
    loo += std::abs(std::exp((sum_log - std::log(r)) / (2 + 2)) / r - 1);
  }
  EXPECT_NEAR(c["error_before"].get<double>(), before / 3, 1e-9);
  EXPECT_NEAR(c["error_after"].get<double>(), loo / 3, 1e-9);
  EXPECT_LT(c["error_after"].get<double>(), c["error_before"].get<double>());
  EXPECT_NEAR(after.body["time"]["total_hours"].get<double>(), model_hours / factor,
              0.01 * model_hours);
  std::printf("L4 ResNet-50: 3 runs, factor %.4f, error %.1f%% -> %.1f%%, %.2f h -> %.2f h\n",
              c["factor"].get<double>(), 100 * c["error_before"].get<double>(),
              100 * c["error_after"].get<double>(), model_hours,
              after.body["time"]["total_hours"].get<double>());
  // Another key, and no key, see none of carol's private runs.
  auto other = Send("POST", "/api/v1/estimates/training", Estimate(gpu), "");
  EXPECT_TRUE(other.body["calibration"].is_null()) << other.body["calibration"].dump();
  auto list = Send("GET", "/api/v1/measurements?gpu=L4", json(), *alice_);
  ASSERT_EQ(list.status, 200);
  EXPECT_TRUE(list.body["items"].empty()) << list.raw;
  // Other GPUs and families are not corrected by them.
  auto t4 = Send("POST", "/api/v1/estimates/training", Estimate("T4"), carol);
  EXPECT_TRUE(t4.body["calibration"].is_null());
  json bert = {{"workload", "bert-base"}, {"dataset", {{"samples", 100000}}},
               {"global_batch_size", 32}, {"precision", "fp16"}, {"hardware", {{"gpu", gpu}}}};
  auto other_family = Send("POST", "/api/v1/estimates/training", bert, carol);
  ASSERT_EQ(other_family.status, 200) << other_family.raw;
  EXPECT_TRUE(other_family.body["calibration"].is_null());
}

TEST_F(PlanningLoopTest, ExportsOfAnEstimateUseTheCallersRunsLikeThePost) {
  const std::string gpu = "A10";
  const std::string erin = testing::CreateApiKey(*server_, "erin", "write");
  ASSERT_EQ(Send("POST", "/api/v1/measurements", Run(gpu, 100), erin).status, 201);
  const json body = Estimate(gpu);
  auto post = server_->Send("POST", "/api/v1/estimates/training?format=skypilot", body.dump(),
                            "application/json", Bearer(erin));
  ASSERT_EQ(post.status, 200) << post.raw;
  std::string target = "/api/v1/plans/export?format=skypilot&kind=training&request=";
  for (unsigned char ch : body.dump()) {
    char hex[4];
    std::snprintf(hex, sizeof(hex), "%%%02X", ch);
    target += hex;
  }
  auto get = server_->Send("GET", target, "", "", Bearer(erin));
  ASSERT_EQ(get.status, 200) << get.raw;
  EXPECT_EQ(get.raw, post.raw);
  auto anonymous = server_->Send("GET", target, "", "", {});
  ASSERT_EQ(anonymous.status, 200) << anonymous.raw;
  EXPECT_NE(anonymous.raw, post.raw) << "erin's slow run must change the expected hours";
  EXPECT_EQ(server_->Send("GET", target, "", "", Bearer("gpk_nope")).status, 401);
}

TEST_F(PlanningLoopTest, SharedRunsCalibrateEveryonesEstimates) {
  const std::string gpu = "A10G";
  auto stored = Send("POST", "/api/v1/measurements", Run(gpu, 500, true), *bob_);
  ASSERT_EQ(stored.status, 201) << stored.raw;
  for (const std::string& key : {std::string(), *alice_}) {
    auto e = Send("POST", "/api/v1/estimates/training", Estimate(gpu), key);
    ASSERT_EQ(e.status, 200) << e.raw;
    ASSERT_TRUE(e.body["calibration"].is_object()) << (key.empty() ? "anonymous" : "alice");
    EXPECT_EQ(e.body["calibration"]["runs"], 1);
  }
  auto list = Send("GET", "/api/v1/measurements?family=cnn&gpu=A10G", json(), *alice_);
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.body["items"].size(), 1u);
  EXPECT_EQ(list.body["items"][0]["owner"], "bob");
  EXPECT_EQ(list.body["items"][0]["shared"], true);
}

TEST_F(PlanningLoopTest, MeasurementsPageWithACursor) {
  const std::string dave = testing::CreateApiKey(*server_, "dave", "write");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Send("POST", "/api/v1/measurements", Run("T4", 300 + i), dave).status, 201);
  }
  auto page = Send("GET", "/api/v1/measurements?gpu=T4&limit=2", json(), dave);
  ASSERT_EQ(page.status, 200);
  ASSERT_EQ(page.body["items"].size(), 2u);
  ASSERT_TRUE(page.body["next_cursor"].is_string());
  auto next = Send("GET", "/api/v1/measurements?gpu=T4&limit=2&cursor=" +
                              page.body["next_cursor"].get<std::string>(), json(), dave);
  ASSERT_EQ(next.status, 200);
  ASSERT_EQ(next.body["items"].size(), 1u);
  EXPECT_EQ(next.body["items"][0]["measured"]["samples_per_s"], 302);
  auto replay = Send("GET", "/api/v1/measurements?gpu=L4&cursor=" +
                                page.body["next_cursor"].get<std::string>(), json(), dave);
  EXPECT_EQ(replay.status, 422);
  EXPECT_EQ(replay.body["errors"][0]["parameter"], "cursor") << replay.raw;
}

TEST_F(PlanningLoopTest, BadRunsAreRefusedNamingTheField) {
  struct Case {
    json patch;
    std::string pointer;
  };
  std::vector<Case> cases = {
      {{{"precision", "auto"}}, "/precision"},
      {{{"hardware", {{"gpu", "H999"}}}}, "/hardware/gpu"},
      {{{"measured", json::object()}}, "/measured/samples_per_s"},
      {{{"measured", {{"samples_per_s", 1}, {"step_time_s", 2}}}}, "/measured/samples_per_s"},
      {{{"measured", {{"tokens_per_s", 1000}}}}, "/measured/tokens_per_s"},  // a CNN has no tokens
      {{{"measured", {{"samples_per_s", -3}}}}, "/measured/samples_per_s"},
      {{{"measured_on", "2999-01-01"}}, "/measured_on"},
      {{{"dataset", {{"samples", 10}}}}, "/dataset"},
      {{{"pricing", {{"kind", "spot"}}}}, "/pricing"},
  };
  for (const Case& c : cases) {
    json body = Run("T4", 300);
    body.update(c.patch);
    auto r = Send("POST", "/api/v1/measurements", body, *alice_);
    EXPECT_EQ(r.status / 100, 4) << c.patch.dump();
    EXPECT_EQ(r.content_type.find("application/problem+json"), 0u) << c.patch.dump();
    bool named = false;
    for (const auto& e : r.body["errors"]) named = named || e["pointer"] == c.pointer;
    EXPECT_TRUE(named) << c.patch.dump() << " -> " << r.raw;
  }
  auto unknown = Send("POST", "/api/v1/estimates/training", Estimate("T4"), "gpk_not_a_key");
  EXPECT_EQ(unknown.status, 401);  // a key that is given must be valid
}

TEST_F(PlanningLoopTest, TheCliImportsACsvOfRuns) {
  const std::string path = server_->ScratchFile("runs.csv");
  {
    std::ofstream f(path);
    f << "workload,gpu,gpus_per_node,global_batch_size,precision,samples_per_s,step_time_s,"
         "measured_on,note,shared\n"
         "resnet-50,V100-16GB-SXM2,1,256,fp16,900,,2026-11-01,lab,false\n"
         "resnet-50,V100-16GB-SXM2,8,2048,fp16,,0.3,2026-11-02,\"dgx, 8 GPUs\",true\n";
  }
  std::ostringstream out, err;
  server::MeasurementsImportCommand command{server_->db_path(), path, "bob", false};
  ASSERT_EQ(server::RunMeasurementsImport(command, out, err), 0) << err.str();
  json answer = json::parse(out.str());
  EXPECT_EQ(answer["imported"], 2);
  auto list = Send("GET", "/api/v1/measurements?gpu=V100-16GB-SXM2", json(), *bob_);
  ASSERT_EQ(list.body["items"].size(), 2u) << list.raw;
  EXPECT_NEAR(list.body["items"][1]["samples_per_s"].get<double>(), 2048 / 0.3, 1e-6);
  EXPECT_EQ(list.body["items"][1]["gpus_per_node"], 8);
  EXPECT_EQ(list.body["items"][1]["note"], "dgx, 8 GPUs");
  // A bad row refuses the whole file.
  {
    std::ofstream f(path);
    f << "workload,gpu,global_batch_size,precision,samples_per_s\n"
         "resnet-50,T4,256,fp16,100\n"
         "resnet-50,T4,256,auto,100\n";
  }
  std::ostringstream out2, err2;
  EXPECT_EQ(server::RunMeasurementsImport(command, out2, err2), 2);
  EXPECT_NE(err2.str().find("line 3 /precision"), std::string::npos) << err2.str();
  auto t4 = Send("GET", "/api/v1/measurements?gpu=T4", json(), *bob_);
  EXPECT_TRUE(t4.body["items"].empty());
}

// --- reference runs ---

TEST_F(PlanningLoopTest, APapersGpuHoursTranslateToOtherHardwareWithBothRanges) {
  json body = {{"workload", "bert-large"},
               {"global_batch_size", 256},
               {"reference_run",
                {{"hardware", {{"gpu", "V100-16GB-SXM2"}, {"gpus_per_node", 8}}}, {"hours", 144}}},
               {"pricing", {{"kind", "ondemand"}}}};
  std::map<std::string, json> answers;
  for (const char* instance : {"p4d.24xlarge", "p5.48xlarge"}) {
    body["hardware"] = {{"cloud", "aws"}, {"instance_type", instance}, {"region", "us-east-1"}};
    auto r = Send("POST", "/api/v1/estimates/training", body, "");
    ASSERT_EQ(r.status, 200) << r.raw;
    answers[instance] = r.body;
    const json& ref = r.body["reference_run"];
    EXPECT_EQ(ref["hardware"]["gpu"], "V100-16GB-SXM2");
    EXPECT_EQ(ref["precision"], "fp16");  // auto on a V100
    EXPECT_DOUBLE_EQ(ref["hours"].get<double>(), 144);
    // The work is the reference's throughput over its hours (whole steps).
    double work = ref["samples"].get<double>();
    EXPECT_NEAR(work, ref["samples_per_s"].get<double>() * 144 * 3600, 256);
    EXPECT_DOUBLE_EQ(r.body["time"]["total_samples"].get<double>(), work);
    // The range is wider than either prediction's own.
    const json& t = r.body["time"];
    double hours = t["total_hours"].get<double>();
    double ref_spread = ref["p90_samples"].get<double>() / work;
    EXPECT_GT(t["p90_hours"].get<double>() / hours, ref_spread - 0.01);
    EXPECT_LT(t["p10_hours"].get<double>(), hours);
    const json& cost = r.body["cost"]["ondemand"];
    EXPECT_NEAR(cost["total"].get<double>(), cost["price_per_hour"].get<double>() * hours, 0.01 * cost["total"].get<double>());
    std::printf("6 days on 8x V100-16GB of BERT-large on %s: %.1f h (P10 %.1f, P90 %.1f), "
                "%.0f USD (P10 %.0f, P90 %.0f)\n",
                instance, hours, t["p10_hours"].get<double>(), t["p90_hours"].get<double>(),
                cost["total"].get<double>(), cost["p10_total"].get<double>(),
                cost["p90_total"].get<double>());
  }
  EXPECT_LT(answers["p5.48xlarge"]["time"]["total_hours"].get<double>(),
            answers["p4d.24xlarge"]["time"]["total_hours"].get<double>());
  EXPECT_LT(answers["p4d.24xlarge"]["time"]["total_hours"].get<double>(), 144);
}

TEST_F(PlanningLoopTest, AReferenceRunReplacesTheDatasetAndNamesItsOwnErrors) {
  json body = {{"workload", "bert-large"},
               {"global_batch_size", 256},
               {"hardware", {{"gpu", "A100-80GB-SXM4"}, {"gpus_per_node", 8}}},
               {"reference_run", {{"hardware", {{"gpu", "V100-99GB"}}}, {"hours", 10}}}};
  auto r = Send("POST", "/api/v1/estimates/training", body, "");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["errors"][0]["pointer"], "/reference_run/hardware/gpu") << r.raw;
  body["reference_run"]["hardware"]["gpu"] = "V100-16GB-SXM2";
  body["dataset"] = {{"samples", 1000}};
  r = Send("POST", "/api/v1/estimates/training", body, "");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["errors"][0]["pointer"], "/reference_run") << r.raw;
  body.erase("dataset");
  body["reference_run"].erase("hours");
  r = Send("POST", "/api/v1/estimates/training", body, "");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["errors"][0]["pointer"], "/reference_run/hours") << r.raw;
  // bf16 was not run on a V100: the reference's precision is what is wrong.
  body["reference_run"]["hours"] = 10;
  body["reference_run"]["precision"] = "bf16";
  r = Send("POST", "/api/v1/estimates/training", body, "");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["errors"][0]["pointer"], "/reference_run/precision") << r.raw;
}

TEST_F(PlanningLoopTest, ARecommendationCanStartFromAReferenceRun) {
  json body = {{"workload", "bert-large"},
               {"global_batch_size", 256},
               {"reference_run",
                {{"hardware", {{"gpu", "V100-16GB-SXM2"}, {"gpus_per_node", 8}}}, {"hours", 144}}},
               {"constraints", {{"clouds", {"aws"}}, {"price_kinds", {"ondemand"}}}},
               {"limit", 3}};
  auto r = Send("POST", "/api/v1/recommendations", body, "");
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_FALSE(r.body["items"].empty());
  bool said = false;
  for (const auto& a : r.body["assumptions"]) said = said || a.get<std::string>().find("reference run") == 0;
  EXPECT_TRUE(said) << r.body["assumptions"].dump();
}

// A comparison from a reference run says what the reference did, as an estimate and a
// recommendation do (it compared the inferred work silently).
TEST_F(PlanningLoopTest, AComparisonFromAReferenceRunNamesIt) {
  json body = {{"workload", "bert-large"},
               {"global_batch_size", 256},
               {"reference_run",
                {{"hardware", {{"gpu", "V100-16GB-SXM2"}, {"gpus_per_node", 8}}}, {"hours", 144}}},
               {"gpus", {"A100-80GB-SXM4", "H100-80GB-SXM5"}},
               {"gpus_per_node", 8}};
  auto r = Send("POST", "/api/v1/compare", body, "");
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_EQ(r.body["items"].size(), 2u) << r.raw;
  bool said = false;
  for (const auto& a : r.body["assumptions"]) {
    said = said || a.get<std::string>().find("reference run: the work is what the model "
                                             "predicts 8 x V100-16GB-SXM2") == 0;
  }
  EXPECT_TRUE(said) << r.body["assumptions"].dump();
}

// --- spot with an on-demand fallback ---

TEST_F(PlanningLoopTest, SpotWithFallbackMeetsTheDeadlineInItsP90AndSaysWhenToSwitch) {
  json body = {{"workload", "bert-large"},
               {"dataset", {{"samples", 5e8}}},
               {"global_batch_size", 256},
               {"objective", "cost"},
               {"limit", 5},
               {"constraints",
                {{"clouds", {"aws"}},
                 {"deadline_hours", 40},
                 {"price_kinds", {"spot_with_fallback"}}}},
               {"pricing", {{"interruption_rate_per_hour", 0.2}}}};
  auto r = Send("POST", "/api/v1/recommendations", body, "");
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_FALSE(r.body["items"].empty()) << r.raw;
  for (const auto& item : r.body["items"]) {
    EXPECT_EQ(item["price_kind"], "spot_with_fallback");
    const json& f = item["spot_with_fallback"];
    EXPECT_LE(f["p90_hours"].get<double>(), 40 + 1e-9) << item.dump();
    EXPECT_EQ(item["p90_hours"], f["p90_hours"]);
    EXPECT_TRUE(f["meets_deadline"].get<bool>());
    EXPECT_GT(f["switch_at_hours"].get<double>(), 0);
    EXPECT_LT(f["switch_at_hours"].get<double>(), 40);
    EXPECT_GT(item["checkpoint_interval_minutes"].get<double>(), 0);
    // The expected cost is the spot and on-demand hours at their prices.
    double expected = f["instances"].get<double>() *
                      (f["spot_price_per_hour"].get<double>() * f["expected_spot_hours"].get<double>() +
                       f["ondemand_price_per_hour"].get<double>() * f["expected_ondemand_hours"].get<double>());
    EXPECT_NEAR(item["cost"].get<double>(), expected, 1e-3 * expected + 1e-6);
  }
  const json& top = r.body["items"][0];
  std::printf("top spot_with_fallback: %dx %s (%s), expected %.1f h / %.0f USD, P90 %.1f h / %.0f "
              "USD, switch at %.1f h, moves with probability %.2f\n",
              top["nodes"].get<int>(), top["instance_type"].get<std::string>().c_str(),
              top["region"].get<std::string>().c_str(), top["hours"].get<double>(),
              top["cost"].get<double>(), top["p90_hours"].get<double>(),
              top["spot_with_fallback"]["p90_total"].get<double>(),
              top["spot_with_fallback"]["switch_at_hours"].get<double>(),
              top["spot_with_fallback"]["fallback_probability"].get<double>());
}

TEST_F(PlanningLoopTest, WithADeadlineRecommendationsOfferFallbackByDefault) {
  json body = {{"workload", "resnet-50"},
               {"dataset", {{"samples", 1281167}, {"epochs", 10}}},
               {"global_batch_size", 256},
               {"limit", 100},
               {"constraints", {{"clouds", {"aws"}}, {"deadline_hours", 24}}}};
  auto r = Send("POST", "/api/v1/recommendations", body, "");
  ASSERT_EQ(r.status, 200) << r.raw;
  std::set<std::string> kinds;
  for (const auto& item : r.body["items"]) kinds.insert(item["price_kind"].get<std::string>());
  EXPECT_TRUE(kinds.count("spot_with_fallback")) << r.raw.substr(0, 400);
  bool said = false;
  for (const auto& a : r.body["assumptions"]) {
    said = said || a.get<std::string>().find("spot_with_fallback") != std::string::npos;
  }
  EXPECT_TRUE(said) << r.body["assumptions"].dump();
  body["constraints"].erase("deadline_hours");
  r = Send("POST", "/api/v1/recommendations", body, "");
  for (const auto& item : r.body["items"]) EXPECT_NE(item["price_kind"], "spot_with_fallback");
}

TEST_F(PlanningLoopTest, AnEstimateOnSpotWithFallbackNeedsADeadline) {
  json body = {{"workload", "resnet-50"},
               {"dataset", {{"samples", 1281167}, {"epochs", 30}}},
               {"global_batch_size", 256},
               {"hardware", {{"cloud", "aws"}, {"instance_type", "p3.8xlarge"}}},
               {"pricing", {{"kind", "spot_with_fallback"}}}};
  auto r = Send("POST", "/api/v1/estimates/training", body, "");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["errors"][0]["pointer"], "/pricing/deadline_hours") << r.raw;
  body["pricing"]["deadline_hours"] = 1000;
  r = Send("POST", "/api/v1/estimates/training", body, "");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_TRUE(r.body["cost"]["ondemand"].is_null());
  EXPECT_TRUE(r.body["cost"]["spot"].is_null());
  const json& f = r.body["cost"]["spot_with_fallback"];
  ASSERT_TRUE(f.is_object()) << r.raw;
  EXPECT_LE(f["p90_hours"].get<double>(), 1000);
  EXPECT_GT(f["switch_at_hours"].get<double>(), 0);
  // Even on demand, the P90 time misses a deadline shorter than it: said, not hidden.
  body["pricing"]["deadline_hours"] = 0.5;
  r = Send("POST", "/api/v1/estimates/training", body, "");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_FALSE(r.body["cost"]["spot_with_fallback"]["meets_deadline"].get<bool>());
  bool warned = false;
  for (const auto& w : r.body["warnings"]) warned = warned || w.get<std::string>().find("cannot be met") != std::string::npos;
  EXPECT_TRUE(warned) << r.body["warnings"].dump();
  // Not for serving, and not without a deadline in a recommendation.
  json serve = {{"workload", "llama-2-7b"}, {"hardware", {{"gpu", "A100-80GB-SXM4"}}},
                {"input_tokens", 512}, {"output_tokens", 128}, {"target_requests_per_s", 1},
                {"pricing", {{"kind", "spot_with_fallback"}, {"deadline_hours", 5}}}};
  r = Send("POST", "/api/v1/estimates/inference", serve, "");
  EXPECT_EQ(r.status, 422);
  json rec = {{"workload", "resnet-50"}, {"dataset", {{"samples", 1000000}}}, {"global_batch_size", 256},
              {"constraints", {{"price_kinds", {"spot_with_fallback"}}}}};
  r = Send("POST", "/api/v1/recommendations", rec, "");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["errors"][0]["pointer"], "/constraints/price_kinds") << r.raw;
}

}  // namespace
}  // namespace gpuplan::api
