// Estimates, comparisons and recommendations over real HTTP against the seeded catalog:
// the questions of DESIGN.md section 1 and every validation path.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::TestServer;

class EstimateApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() { delete server_; }
  static TestServer::Reply Post(const std::string& path, const json& body) {
    return server_->Post(path, body);
  }
  static json Training(const json& overrides = json::object()) {
    json body = {{"workload", "bert-large"},
                 {"dataset", {{"samples", 10000000}, {"epochs", 3}}},
                 {"global_batch_size", 256},
                 {"precision", "bf16"},
                 {"hardware", {{"gpu", "A100-80GB-SXM4"}, {"gpus_per_node", 8}, {"nodes", 1}}}};
    if (overrides.is_object()) body.update(overrides);
    return body;
  }
  static void ExpectNoDominatedPoint(const json& front) {
    for (const auto& a : front) {
      for (const auto& b : front) {
        bool dominates = b["hours"].get<double>() <= a["hours"].get<double>() &&
                         b["cost"].get<double>() <= a["cost"].get<double>() &&
                         (b["hours"].get<double>() < a["hours"].get<double>() ||
                          b["cost"].get<double>() < a["cost"].get<double>());
        EXPECT_FALSE(dominates) << a.dump() << " dominated by " << b.dump();
      }
    }
  }
  static TestServer* server_;
};
TestServer* EstimateApiTest::server_ = nullptr;

// Q1: fine-tune BERT-large on 10 M sequences x 3 epochs within 24 h, cheapest option.
TEST_F(EstimateApiTest, Q1CheapestBertFineTuneWithinADeadline) {
  json body = Training({{"constraints", {{"clouds", {"aws", "gcp", "alibaba"}},
                                         {"deadline_hours", 24},
                                         {"max_nodes", 4}}},
                        {"objective", "cost"},
                        {"limit", 20}});
  body.erase("hardware");
  auto reply = Post("/api/v1/recommendations", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& items = reply.body["items"];
  ASSERT_FALSE(items.empty());
  std::set<std::string> kinds;
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_LE(items[i]["hours"].get<double>(), 24.0);  // never misses the deadline
    EXPECT_TRUE(items[i]["cloud"] == "aws" || items[i]["cloud"] == "gcp" ||
                items[i]["cloud"] == "alibaba");
    if (i > 0) {
      EXPECT_LE(items[i - 1]["cost"].get<double>(), items[i]["cost"].get<double>());
    }
    kinds.insert(items[i]["price_kind"].get<std::string>());
    EXPECT_FALSE(items[i]["why"].get<std::string>().empty());
  }
  EXPECT_TRUE(kinds.count("spot"));  // spot at a discount is among the cheapest
  EXPECT_GT(reply.body["considered"].get<int>(), reply.body["feasible"].get<int>());
  EXPECT_GT(reply.body["rejected"]["over_deadline"].get<int>(), 0);
  ExpectNoDominatedPoint(reply.body["pareto_front"]);
}

// Q2: a 7 B decoder on 100 B tokens on 8xA100-80GB, 8xH100, 8xL4.
TEST_F(EstimateApiTest, Q2SevenBillionDecoderAcrossGpus) {
  json body = {{"workload", "llama-2-7b"},
               {"dataset", {{"tokens", 1e11}}},
               {"global_batch_size", 512},
               {"precision", "bf16"},
               {"framework", "optimized"},
               {"gpus", {"A100-80GB-SXM4", "H100-80GB-SXM5", "L4"}},
               {"gpus_per_node", 8}};
  auto reply = Post("/api/v1/compare", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  std::map<std::string, json> rows;
  for (const auto& r : reply.body["items"]) rows[r["gpu"].get<std::string>()] = r;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_LT(rows["H100-80GB-SXM5"]["hours"].get<double>(), rows["A100-80GB-SXM4"]["hours"].get<double>());
  EXPECT_LT(rows["A100-80GB-SXM4"]["hours"].get<double>(), rows["L4"]["hours"].get<double>());
  // 24 GB L4s need the model split (tensor parallel and/or ZeRO-3) to fit at all.
  const json& l4 = rows["L4"]["layout"];
  EXPECT_TRUE(l4["tensor_parallel"].get<int>() > 1 || l4["zero_stage"].get<int>() == 3);
  EXPECT_GT(rows["L4"]["smallest_fitting_gpus"].get<int>(), 1);
  for (auto& [gpu, r] : rows) EXPECT_TRUE(r["cost"].is_number()) << gpu;

  // On demand vs spot for one of them, from the catalog.
  json est = {{"workload", "llama-2-7b"}, {"dataset", {{"tokens", 1e11}}}, {"global_batch_size", 512},
              {"framework", "optimized"},
              {"hardware", {{"cloud", "aws"}, {"region", "us-east-1"}, {"instance_type", "p5.48xlarge"}}},
              {"pricing", {{"kind", "both"}}}};
  auto e = Post("/api/v1/estimates/training", est);
  ASSERT_EQ(e.status, 200) << e.body.dump();
  EXPECT_TRUE(e.body["cost"]["ondemand"]["total"].is_number());
  EXPECT_TRUE(e.body["cost"]["spot"]["expected_total"].is_number());
  EXPECT_GT(e.body["cost"]["spot"]["wall_hours"].get<double>(), e.body["time"]["total_hours"].get<double>());
}

// Q3: serve a 7 B model at 50 requests/s, 200 in / 300 out, p95 under 2 s.
TEST_F(EstimateApiTest, HardwareThatCannotServeTheModelSaysSo) {
  json body = {{"workload", "llama-2-70b"}, {"precision", "fp16"}, {"input_tokens", 200},
               {"output_tokens", 200}, {"target_requests_per_s", 5}, {"latency_slo_ms", 5000},
               {"hardware", {{"gpu", "T4"}}}};
  auto reply = Post("/api/v1/estimates/inference", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  EXPECT_EQ(reply.body["memory"]["verdict"], "does_not_fit");
  EXPECT_EQ(reply.body["slo_met"], false);
  EXPECT_TRUE(reply.body["replicas"].is_null()) << reply.body["replicas"];
  EXPECT_TRUE(reply.body["latency_s"].is_null());
  EXPECT_NE(reply.body["does_not_fit_reason"].get<std::string>().find("do not fit"),
            std::string::npos);
}

TEST_F(EstimateApiTest, Q3ServingA7BModelUnderALatencySlo) {
  json body = {{"task", "inference"}, {"workload", "llama-2-7b"}, {"precision", "bf16"},
               {"input_tokens", 200}, {"output_tokens", 300}, {"target_requests_per_s", 50},
               {"latency_slo_ms", 2000}, {"objective", "cost"}};
  auto reply = Post("/api/v1/recommendations", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  ASSERT_FALSE(reply.body["items"].empty());
  for (const auto& item : reply.body["items"]) {
    EXPECT_LE(item["latency_s"].get<double>(), 2.0);
    EXPECT_GE(item["replicas"].get<int>(), 1);
    EXPECT_NEAR(item["cost_per_month"].get<double>(), item["cost_per_hour"].get<double>() * 730, 0.01);
  }
  const json& best = reply.body["items"][0];
  json est = {{"workload", "llama-2-7b"}, {"precision", "bf16"}, {"input_tokens", 200},
              {"output_tokens", 300}, {"target_requests_per_s", 50}, {"latency_slo_ms", 2000},
              {"hardware", {{"cloud", best["cloud"]}, {"region", best["region"]},
                            {"instance_type", best["instance_type"]}}}};
  auto e = Post("/api/v1/estimates/inference", est);
  ASSERT_EQ(e.status, 200) << e.body.dump();
  EXPECT_TRUE(e.body["slo_met"].get<bool>());
  EXPECT_GE(e.body["capacity_requests_per_s"].get<double>(), 50);
  EXPECT_TRUE(e.body["cost"]["ondemand"]["per_million_tokens"].is_number() ||
              e.body["cost"]["spot"]["per_million_tokens"].is_number());
  EXPECT_EQ(e.body["memory"]["kv_cache_bytes_per_token"].get<double>(), 524288.0);
  EXPECT_FALSE(e.body["curve"].empty());
}

// Q4: will ViT-L at batch 64 in fp16 fit on a T4? The largest batch that fits?
TEST_F(EstimateApiTest, Q4VitLargeOnAT4) {
  json body = {{"workload", "vit-l-16"}, {"dataset", {{"samples", 1281167}}},
               {"global_batch_size", 64}, {"micro_batch_size", 64}, {"precision", "fp16"},
               {"hardware", {{"gpu", "T4"}}}};
  auto reply = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& memory = reply.body["memory"];
  EXPECT_EQ(memory["capacity_gb"], 16.0);
  EXPECT_EQ(memory["verdict"], "does_not_fit");
  int max_batch = memory["max_micro_batch"].get<int>();
  EXPECT_GT(max_batch, 0);
  EXPECT_LT(max_batch, 64);
  body["micro_batch_size"] = max_batch;
  auto at_max = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(at_max.status, 200);
  EXPECT_NE(at_max.body["memory"]["verdict"], "does_not_fit");
}

// Q5 (prices of one's own, passed inline; imports come with the catalog writes).
TEST_F(EstimateApiTest, Q5OwnPricesAreUsedAndConverted) {
  json body = Training({{"hardware", {{"gpu", "A100-80GB-SXM4"}, {"gpus_per_node", 8},
                                      {"price_per_hour", 20.0}, {"spot_price_per_hour", 7.0},
                                      {"price_currency", "USD"}}},
                        {"currency", "EUR"}});
  auto reply = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  EXPECT_EQ(reply.body["cost"]["currency"], "EUR");
  double price = reply.body["cost"]["ondemand"]["price_per_hour"].get<double>();
  EXPECT_LT(price, 20.0);  // EUR per USD < 1
  EXPECT_GT(price, 15.0);
  EXPECT_NEAR(reply.body["cost"]["ondemand"]["total"].get<double>(),
              price * reply.body["time"]["total_hours"].get<double>(), 0.01);
}

// Q6: expected cost of a 3-day job on spot with checkpoints every 30 minutes.
TEST_F(EstimateApiTest, Q6ThreeDaySpotJobWithCheckpoints) {
  json body = {{"workload", "llama-2-7b"}, {"dataset", {{"tokens", 6e9}}},
               {"global_batch_size", 512}, {"framework", "optimized"},
               {"hardware", {{"cloud", "aws"}, {"region", "us-east-1"}, {"instance_type", "p4d.24xlarge"}}},
               {"pricing", {{"kind", "both"}, {"checkpoint_interval_minutes", 30},
                            {"interruption_rate_per_hour", 0.1}}}};
  auto reply = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  double hours = reply.body["time"]["total_hours"].get<double>();
  EXPECT_GT(hours, 48);  // about three days
  EXPECT_LT(hours, 120);
  const json& spot = reply.body["cost"]["spot"];
  EXPECT_EQ(spot["checkpoint_interval_minutes"].get<double>(), 30.0);
  EXPECT_GT(spot["billable_hours"].get<double>(), hours);
  EXPECT_GT(spot["wall_hours"].get<double>(), spot["billable_hours"].get<double>());
  EXPECT_GT(spot["expected_interruptions"].get<double>(), 1);
  // Spot at a large discount costs less than on demand even with interruptions.
  EXPECT_LT(spot["expected_total"].get<double>(), reply.body["cost"]["ondemand"]["total"].get<double>());
}

// Q7: rank every rentable GPU by price-performance for ResNet-50 (images per dollar).
TEST_F(EstimateApiTest, Q7GpusRankedByImagesPerDollar) {
  auto reply = server_->Get("/api/v1/compare?workload=resnet-50&samples=1281167&epochs=90");
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& items = reply.body["items"];
  ASSERT_GE(items.size(), 8u);
  double previous = 1e300;
  for (const auto& item : items) {
    if (item["memory_verdict"] == "does_not_fit" || !item["samples_per_currency_unit"].is_number()) continue;
    double value = item["samples_per_currency_unit"].get<double>();
    EXPECT_LE(value, previous);
    previous = value;
    EXPECT_GT(item["price_per_gpu_hour"].get<double>(), 0);
  }
}

TEST_F(EstimateApiTest, EightA100sTrainResNet50SixToEightTimesFaster) {
  json one = {{"workload", "resnet-50"}, {"dataset", {{"samples", 1281167}}}, {"global_batch_size", 256},
              {"precision", "fp16"}, {"optimizer", "sgd"}, {"hardware", {{"gpu", "A100-80GB-SXM4"}}}};
  json eight = one;
  eight["global_batch_size"] = 2048;
  eight["hardware"]["gpus_per_node"] = 8;
  auto a = Post("/api/v1/estimates/training", one);
  auto b = Post("/api/v1/estimates/training", eight);
  ASSERT_EQ(a.status, 200);
  ASSERT_EQ(b.status, 200);
  double speedup = b.body["throughput"]["samples_per_s"].get<double>() /
                   a.body["throughput"]["samples_per_s"].get<double>();
  EXPECT_GE(speedup, 6.0);
  EXPECT_LE(speedup, 8.0);
  EXPECT_LE(b.body["scaling_efficiency"].get<double>(), 1.0);
}

TEST_F(EstimateApiTest, H100BeatsA100OnBertLarge) {
  auto a100 = Post("/api/v1/estimates/training", Training());
  auto h100 = Post("/api/v1/estimates/training",
                   Training({{"hardware", {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 8}}}}));
  ASSERT_EQ(a100.status, 200);
  ASSERT_EQ(h100.status, 200);
  EXPECT_LT(h100.body["time"]["total_hours"].get<double>(), a100.body["time"]["total_hours"].get<double>());
}

TEST_F(EstimateApiTest, SeventyBillionDoesNotFitOneGpuAndTheRecommendationFindsALayout) {
  json one = {{"workload", "llama-2-70b"}, {"dataset", {{"tokens", 1e9}}}, {"global_batch_size", 64},
              {"optimizer", "adamw"}, {"framework", "optimized"}, {"activation_checkpointing", "selective"},
              {"hardware", {{"gpu", "A100-80GB-SXM4"}}}};
  auto e = Post("/api/v1/estimates/training", one);
  ASSERT_EQ(e.status, 200) << e.body.dump();
  EXPECT_EQ(e.body["memory"]["verdict"], "does_not_fit");  // one 80 GB GPU
  json node = one;
  node["hardware"]["gpus_per_node"] = 8;
  auto n = Post("/api/v1/estimates/training", node);
  ASSERT_EQ(n.status, 200) << n.body.dump();
  EXPECT_EQ(n.body["memory"]["verdict"], "does_not_fit");  // nor one node of eight
  EXPECT_GT(n.body["smallest_fitting_layout"]["gpus"].get<int>(), 8);

  json rec = one;
  rec.erase("hardware");
  rec["constraints"] = {{"max_nodes", 8}, {"gpus", {"A100", "H100"}}};
  auto r = Post("/api/v1/recommendations", rec);
  ASSERT_EQ(r.status, 200) << r.body.dump();
  ASSERT_FALSE(r.body["items"].empty());
  for (const auto& item : r.body["items"]) {
    EXPECT_GT(item["total_gpus"].get<int>(), 8);
    EXPECT_NE(item["memory_verdict"], "does_not_fit");
  }
  EXPECT_GT(r.body["rejected"]["does_not_fit"].get<int>(), 0);
}

TEST_F(EstimateApiTest, NothingFeasibleIsAnEmptyListWithReasons) {
  json body = Training({{"constraints", {{"deadline_hours", 0.01}}}});
  body.erase("hardware");
  auto reply = Post("/api/v1/recommendations", body);
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(reply.body["items"].empty());
  EXPECT_TRUE(reply.body["pareto_front"].empty());
  EXPECT_GT(reply.body["rejected"]["over_deadline"].get<int>(), 0);
}

TEST_F(EstimateApiTest, BudgetIsNeverExceeded) {
  json body = Training({{"constraints", {{"budget", 30}, {"max_nodes", 2}}}, {"objective", "time"}});
  body.erase("hardware");
  auto reply = Post("/api/v1/recommendations", body);
  ASSERT_EQ(reply.status, 200);
  for (const auto& item : reply.body["items"]) EXPECT_LE(item["cost"].get<double>(), 30.0);
  for (size_t i = 1; i < reply.body["items"].size(); ++i) {
    EXPECT_LE(reply.body["items"][i - 1]["hours"].get<double>(), reply.body["items"][i]["hours"].get<double>());
  }
  EXPECT_GT(reply.body["rejected"]["over_budget"].get<int>(), 0);
}

TEST_F(EstimateApiTest, InlineWorkloadShapesAreAccepted) {
  json body = Training({{"workload", {{"family", "decoder"}, {"params", 6.7e9}, {"layers", 32}, {"hidden", 4096},
                                      {"heads", 32}, {"kv_heads", 32}, {"ffn", 11008}, {"vocab", 32000},
                                      {"seq_len", 4096}, {"gated_mlp", true}}},
                        {"dataset", {{"tokens", 1e9}}}});
  auto reply = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  EXPECT_EQ(reply.body["workload"]["id"], "custom");
  json preset = Training({{"workload", {{"preset", "llama-2-7b"}, {"seq_len", 2048}}}, {"dataset", {{"tokens", 1e9}}}});
  auto p = Post("/api/v1/estimates/training", preset);
  ASSERT_EQ(p.status, 200) << p.body.dump();
  EXPECT_EQ(p.body["workload"]["seq_len"], 2048);
  // Heads narrower than hidden / heads (Mistral-Nemo: 32 x 128 = 4096 of hidden 5120), and a
  // hidden size no multiple of the heads once their width is stated.
  json nemo = Training({{"workload", {{"family", "decoder"}, {"layers", 40}, {"hidden", 5120},
                                      {"heads", 32}, {"kv_heads", 8}, {"head_dim", 128},
                                      {"ffn", 14336}, {"vocab", 131072}, {"seq_len", 4096},
                                      {"gated_mlp", true}}},
                        {"dataset", {{"tokens", 1e9}}}});
  auto n = Post("/api/v1/estimates/training", nemo);
  ASSERT_EQ(n.status, 200) << n.body.dump();
  EXPECT_EQ(n.body["workload"]["head_dim"], 128);
  EXPECT_NEAR(n.body["workload"]["params"].get<double>(), 12.25e9, 0.01e9);
  nemo["workload"]["hidden"] = 5100;
  EXPECT_EQ(Post("/api/v1/estimates/training", nemo).status, 200);
}

TEST_F(EstimateApiTest, EveryDefaultAnInlineShapeReliesOnIsAWarning) {
  auto mentions = [](const json& warnings, const std::string& word) {
    for (const auto& w : warnings) {
      if (w.get<std::string>().find(word) != std::string::npos) return true;
    }
    return false;
  };
  json shape = {{"family", "decoder"}, {"layers", 32}, {"hidden", 4096}, {"heads", 32},
                {"vocab", 32000}, {"seq_len", 2048}};
  auto bare = Post("/api/v1/estimates/training",
                   Training({{"workload", shape}, {"dataset", {{"tokens", 1e9}}}}));
  ASSERT_EQ(bare.status, 200) << bare.body.dump();
  EXPECT_TRUE(mentions(bare.body["warnings"], "kv_heads")) << bare.body["warnings"].dump();
  EXPECT_TRUE(mentions(bare.body["warnings"], "ffn")) << bare.body["warnings"].dump();
  EXPECT_TRUE(mentions(bare.body["warnings"], "params")) << bare.body["warnings"].dump();
  json serving = {{"workload", shape}, {"input_tokens", 200}, {"output_tokens", 200},
                  {"hardware", {{"gpu", "A100-80GB-SXM4"}}}};
  auto s = Post("/api/v1/estimates/inference", serving);
  ASSERT_EQ(s.status, 200) << s.body.dump();
  EXPECT_TRUE(mentions(s.body["warnings"], "kv_heads")) << s.body["warnings"].dump();
  // Stated, they are not defaults; presets define theirs.
  shape["kv_heads"] = 8;
  shape["ffn"] = 14336;
  shape["params"] = 7.2e9;
  auto full = Post("/api/v1/estimates/training",
                   Training({{"workload", shape}, {"dataset", {{"tokens", 1e9}}}}));
  ASSERT_EQ(full.status, 200) << full.body.dump();
  EXPECT_FALSE(mentions(full.body["warnings"], "kv_heads"));
  EXPECT_FALSE(mentions(full.body["warnings"], "not given"));
  auto preset = Post("/api/v1/estimates/training", Training({{"dataset", {{"tokens", 1e9}}}}));
  ASSERT_EQ(preset.status, 200);
  EXPECT_FALSE(mentions(preset.body["warnings"], "not given"));
  // A CNN described only by its model-zoo counts: the depthwise share it did not state.
  json cnn = {{"family", "cnn"}, {"params", 5.3e6}, {"macs_per_sample", 3.9e8},
              {"activation_elements_per_sample", 6.75e6}, {"image_size", 224},
              {"reference_image_size", 224}, {"conv_layers", 82}};
  auto zoo = Post("/api/v1/estimates/training",
                  Training({{"workload", cnn}, {"dataset", {{"samples", 1e6}}}}));
  ASSERT_EQ(zoo.status, 200) << zoo.body.dump();
  EXPECT_TRUE(mentions(zoo.body["warnings"], "depthwise_macs_share"))
      << zoo.body["warnings"].dump();
  cnn["depthwise_macs_share"] = 0.09;
  auto stated = Post("/api/v1/estimates/training",
                     Training({{"workload", cnn}, {"dataset", {{"samples", 1e6}}}}));
  ASSERT_EQ(stated.status, 200) << stated.body.dump();
  EXPECT_FALSE(mentions(stated.body["warnings"], "depthwise_macs_share"));
  // Depthwise convs run far below the CUDA-core peak: stating them makes it slower.
  EXPECT_LT(stated.body["throughput"]["samples_per_s"].get<double>(),
            zoo.body["throughput"]["samples_per_s"].get<double>());
}

TEST_F(EstimateApiTest, VariableLengthBatchesScaleWorseAcrossReplicas) {
  auto efficiency = [&](bool variable) {
    json body = Training({{"workload", {{"preset", "transformer-big"}, {"variable_length", variable}}},
                          {"dataset", {{"samples", 1e7}}},
                          {"hardware", {{"gpu", "A100-80GB-SXM4"}, {"gpus_per_node", 8},
                                        {"interconnect", "nvswitch"}}}});
    auto reply = Post("/api/v1/estimates/training", body);
    EXPECT_EQ(reply.status, 200) << reply.body.dump();
    EXPECT_EQ(reply.body["workload"]["variable_length"], variable);
    return reply.body["scaling_efficiency"].get<double>();
  };
  double fixed = efficiency(false), variable = efficiency(true);
  EXPECT_LT(variable, fixed);
  EXPECT_GT(variable, 0.5);
}

// Issue 10: the default precision is "auto" (bf16 where the GPU has it, else fp16 mixed
// precision), named in assumptions; an explicit bf16 on a GPU without it stays a 422.
TEST_F(EstimateApiTest, PrecisionAutoRunsWhatEachGpuSupports) {
  json body = Training({{"hardware", {{"gpu", "T4"}}}, {"workload", "resnet-50"}});
  body.erase("precision");
  auto t4 = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(t4.status, 200) << t4.body.dump();
  EXPECT_EQ(t4.body["precision"], "fp16");
  EXPECT_NE(t4.body["assumptions"][0].get<std::string>().find("precision auto: fp16"),
            std::string::npos);
  body["hardware"]["gpu"] = "A100-80GB-SXM4";
  auto a100 = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(a100.status, 200);
  EXPECT_EQ(a100.body["precision"], "bf16");
  body["hardware"]["gpu"] = "T4";
  body["precision"] = "bf16";
  auto explicit_bf16 = Post("/api/v1/estimates/training", body);
  EXPECT_EQ(explicit_bf16.status, 422);
  EXPECT_EQ(explicit_bf16.body["errors"][0]["pointer"], "/precision");
  // Inference too.
  json serve = {{"workload", "llama-3-8b"}, {"input_tokens", 512}, {"output_tokens", 128},
                {"target_requests_per_s", 1}, {"hardware", {{"gpu", "V100-32GB-SXM2"}}}};
  auto v100 = Post("/api/v1/estimates/inference", serve);
  ASSERT_EQ(v100.status, 200) << v100.body.dump();
  EXPECT_EQ(v100.body["precision"], "fp16");
  // Recommendations no longer drop every GPU without BF16; compare no longer swaps quietly.
  json recommend = {{"workload", "resnet-50"},
                    {"dataset", {{"samples", 1281167}}},
                    {"global_batch_size", 256}};
  auto all = Post("/api/v1/recommendations", recommend);
  ASSERT_EQ(all.status, 200);
  EXPECT_EQ(all.body["rejected"]["precision_unsupported"], 0);
  recommend["precision"] = "bf16";
  auto bf16_only = Post("/api/v1/recommendations", recommend);
  ASSERT_EQ(bf16_only.status, 200) << bf16_only.body.dump();
  EXPECT_GT(bf16_only.body["rejected"]["precision_unsupported"].get<int>(), 0);
  auto compared = server_->Get("/api/v1/compare?workload=resnet-50&gpus=T4,A100-80GB-SXM4");
  ASSERT_EQ(compared.status, 200);
  ASSERT_EQ(compared.body["items"].size(), 2u);
  for (const auto& row : compared.body["items"]) {
    EXPECT_FALSE(row.contains("error")) << row.dump();
    EXPECT_EQ(row["precision"], row["gpu"] == "T4" ? "fp16" : "bf16");
  }
}

// Issue 10: a typo in a constraint is a 422 naming the item, not an empty answer; a field
// that does not apply to the task is refused.
TEST_F(EstimateApiTest, ConstraintTyposAreErrorsNotEmptyAnswers) {
  json body = {{"workload", "resnet-50"},
               {"dataset", {{"samples", 1281167}}},
               {"global_batch_size", 256},
               {"constraints",
                {{"gpus", {"a100", "H10O"}}, {"clouds", {"gcp", "AWS"}}, {"regions", {"us-east-99"}}}}};
  auto reply = Post("/api/v1/recommendations", body);
  ASSERT_EQ(reply.status, 422) << reply.body.dump();
  std::set<std::string> pointers;
  for (const auto& e : reply.body["errors"]) pointers.insert(e["pointer"].get<std::string>());
  EXPECT_EQ(pointers, (std::set<std::string>{"/constraints/gpus/1", "/constraints/clouds/1",
                                             "/constraints/regions/0"}));
  // GPU names match case-insensitively, as prefixes of catalog ids.
  body["constraints"] = {{"gpus", {"a100"}}, {"clouds", {"aws"}}};
  auto ok = Post("/api/v1/recommendations", body);
  ASSERT_EQ(ok.status, 200);
  ASSERT_FALSE(ok.body["items"].empty());
  EXPECT_EQ(ok.body["items"][0]["gpu"].get<std::string>().rfind("A100", 0), 0u);
  json serve = {{"task", "inference"}, {"workload", "llama-3-8b"}, {"input_tokens", 512},
                {"output_tokens", 128}, {"target_requests_per_s", 1},
                {"constraints", {{"deadline_hours", 3}}}};
  auto inference = Post("/api/v1/recommendations", serve);
  EXPECT_EQ(inference.status, 422);
  EXPECT_EQ(inference.body["errors"][0]["pointer"], "/constraints/deadline_hours");
}

// Issue 10: the automatic micro-batch splits the replica's samples evenly (ResNet-50, global
// 2048 on one A100 was timed as 2 x 1653 = 3306 samples); where the batch cannot split
// exactly, a warning says how much more work is timed.
TEST_F(EstimateApiTest, MicroBatchesSplitTheGlobalBatchWithoutSilentPadding) {
  auto warnings_about = [](const json& body, const std::string& word) {
    int n = 0;
    for (const auto& w : body["warnings"]) n += w.get<std::string>().find(word) != std::string::npos;
    return n;
  };
  json body = Training({{"workload", "resnet-50"}, {"global_batch_size", 2048},
                        {"hardware", {{"gpu", "A100-80GB-SXM4"}}}});
  auto even = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(even.status, 200) << even.body.dump();
  EXPECT_EQ(even.body["micro_batch_size"].get<int>() *
                even.body["gradient_accumulation_steps"].get<int>(),
            2048);
  EXPECT_EQ(warnings_about(even.body, "micro-batches"), 0);
  EXPECT_EQ(warnings_about(even.body, "not a multiple"), 0);
  body["global_batch_size"] = 2049;  // no equal split: said, with the extra work
  auto uneven = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(uneven.status, 200);
  EXPECT_EQ(warnings_about(uneven.body, "equal micro-batches"), 1) << uneven.body["warnings"];
  body["global_batch_size"] = 1001;
  body["hardware"] = {{"gpu", "A100-80GB-SXM4"}, {"gpus_per_node", 8}};
  auto replicas = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(replicas.status, 200);
  EXPECT_EQ(warnings_about(replicas.body, "not a multiple of the 8 data-parallel replicas"), 1)
      << replicas.body["warnings"];
  // A layout that does not divide the GPUs is refused, not silently replaced.
  json tp3 = Training({{"tensor_parallel", 3}});
  auto refused = Post("/api/v1/estimates/training", tp3);
  EXPECT_EQ(refused.status, 422);
  EXPECT_EQ(refused.body["errors"][0]["pointer"], "/tensor_parallel");
}

// Issue 10: a warning never contradicts the answer: no "does not fit" next to a usable
// micro-batch (ViT-L on a T4).
TEST_F(EstimateApiTest, FitWarningsAgreeWithTheMemoryAnswer) {
  // ViT-L fits (tightly) on each; Llama-2-7B fits on none of them alone.
  std::set<std::string> verdicts;
  for (auto [workload, gpu] : {std::pair{"vit-l-16", "T4"}, {"vit-l-16", "L4"}, {"vit-l-16", "A10G"},
                               {"vit-l-16", "V100-16GB-SXM2"}, {"llama-2-7b", "T4"}}) {
    json body = Training({{"workload", workload}, {"global_batch_size", 256},
                          {"hardware", {{"gpu", gpu}}}});
    body.erase("precision");
    auto reply = Post("/api/v1/estimates/training", body);
    ASSERT_EQ(reply.status, 200) << gpu << reply.body.dump();
    bool says_no_fit = false;
    for (const auto& w : reply.body["warnings"]) {
      says_no_fit = says_no_fit || w.get<std::string>().find("does not fit") != std::string::npos;
    }
    bool fits = reply.body["memory"]["verdict"] != "does_not_fit";
    verdicts.insert(reply.body["memory"]["verdict"].get<std::string>());
    EXPECT_NE(says_no_fit, fits) << gpu << reply.body.dump();
    if (fits) {
      EXPECT_GE(reply.body["memory"]["max_micro_batch"].get<int>(), 1) << gpu;
    } else {
      EXPECT_EQ(reply.body["memory"]["max_micro_batch"].get<int>(), 0) << gpu;
    }
  }
  EXPECT_TRUE(verdicts.count("does_not_fit")) << "both sides of the agreement are checked";
}

// Issue 10: without a region, the cheapest region is the cheapest for the price kind asked
// (a spot request picked the region with the lowest on-demand price).
TEST_F(EstimateApiTest, AutomaticRegionFollowsThePriceKind) {
  auto detail = server_->Get("/api/v1/instances/aws/g4dn.2xlarge");
  ASSERT_EQ(detail.status, 200);
  std::string cheapest_spot, cheapest_ondemand;
  double spot = 1e18, ondemand = 1e18;
  for (const auto& r : detail.body["regions"]) {
    if (r["price_spot_per_hour"].is_number() && r["price_spot_per_hour"].get<double>() < spot) {
      spot = r["price_spot_per_hour"].get<double>();
      cheapest_spot = r["region"].get<std::string>();
    }
    if (r["price_ondemand_per_hour"].is_number() &&
        r["price_ondemand_per_hour"].get<double>() < ondemand) {
      ondemand = r["price_ondemand_per_hour"].get<double>();
      cheapest_ondemand = r["region"].get<std::string>();
    }
  }
  ASSERT_FALSE(cheapest_spot.empty());
  json body = Training({{"workload", "resnet-50"},
                        {"hardware", {{"cloud", "aws"}, {"instance_type", "g4dn.2xlarge"}}},
                        {"pricing", {{"kind", "spot"}}}});
  body.erase("precision");
  auto on_spot = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(on_spot.status, 200) << on_spot.body.dump();
  EXPECT_NEAR(on_spot.body["instance"]["price_spot_per_hour"].get<double>(), spot, 1e-4)
      << cheapest_spot << " " << on_spot.body["instance"].dump();
  EXPECT_EQ(on_spot.body["instance"]["region"], cheapest_spot);
  body["pricing"]["kind"] = "ondemand";
  auto on_demand = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(on_demand.status, 200);
  EXPECT_NEAR(on_demand.body["instance"]["price_ondemand_per_hour"].get<double>(), ondemand, 1e-4)
      << cheapest_ondemand;
}

// Issue 10: serving recommendations do not rank spot first for a fleet that runs around the
// clock unless spot is asked for, and then carry the reclaim caveat; the per-token price
// says which tokens it counts.
TEST_F(EstimateApiTest, ServingOnSpotIsOptInAndCaveated) {
  json request = {{"task", "inference"}, {"workload", "llama-3-8b"}, {"input_tokens", 512},
                  {"output_tokens", 128}, {"target_requests_per_s", 2}, {"limit", 50}};
  auto by_default = Post("/api/v1/recommendations", request);
  ASSERT_EQ(by_default.status, 200) << by_default.body.dump();
  ASSERT_FALSE(by_default.body["items"].empty());
  for (const auto& item : by_default.body["items"]) EXPECT_EQ(item["price_kind"], "ondemand");
  EXPECT_NE(by_default.body["assumptions"][0].get<std::string>().find("on-demand prices only"),
            std::string::npos);
  request["constraints"] = {{"price_kinds", {"ondemand", "spot"}}};
  auto with_spot = Post("/api/v1/recommendations", request);
  ASSERT_EQ(with_spot.status, 200);
  int spot_items = 0;
  for (const auto& item : with_spot.body["items"]) {
    if (item["price_kind"] != "spot") continue;
    ++spot_items;
    ASSERT_TRUE(item["warnings"].is_array()) << item.dump();
    // Among its warnings (a price older than the stale age adds one before it).
    bool reclaimed = false;
    for (const auto& w : item["warnings"]) {
      reclaimed = reclaimed || w.get<std::string>().find("reclaimed") != std::string::npos;
    }
    EXPECT_TRUE(reclaimed) << item.dump();
  }
  EXPECT_GT(spot_items, 0);
  json serve = {{"workload", "llama-3-8b"}, {"input_tokens", 512}, {"output_tokens", 128},
                {"target_requests_per_s", 2},
                {"hardware", {{"cloud", "aws"}, {"instance_type", "g5.xlarge"}}}};
  auto estimate = Post("/api/v1/estimates/inference", serve);
  ASSERT_EQ(estimate.status, 200) << estimate.body.dump();
  const json& cost = estimate.body["cost"]["ondemand"];
  ASSERT_TRUE(cost["per_million_tokens"].is_number()) << estimate.body.dump();
  // 512 in + 128 out: the per-token price over all tokens is 128/640 of the output one.
  EXPECT_NEAR(cost["per_million_input_and_output_tokens"].get<double>(),
              cost["per_million_tokens"].get<double>() * 128 / 640, 0.01);
  bool explained = false;
  for (const auto& a : estimate.body["assumptions"]) {
    explained = explained || a.get<std::string>().find("output) tokens only") != std::string::npos;
  }
  EXPECT_TRUE(explained);
}

// Issue 10: compare's cheapest on-demand price is flagged when that offer's own spot price
// is higher (GCP us-central1 H100 was used without a word), and only then. The full seed
// (issue 27) has no cheapest offer of a GPU with an inverted spot, so this test adds one
// (an L4 below every seeded price) to a server of its own.
TEST_F(EstimateApiTest, CompareFlagsOnDemandPricesBelowTheirOwnSpot) {
  TestServer server;
  ASSERT_TRUE(testing::AddOfferWithSpotAboveOnDemand(server, "inverted.l4", "L4", 1, 0.01));
  auto reply = server.Get("/api/v1/compare?workload=resnet-50&gpus=H100-80GB-SXM5,A100-80GB-SXM4,T4,L4");
  ASSERT_EQ(reply.status, 200);
  int flagged = 0;
  for (const auto& row : reply.body["items"]) {
    ASSERT_TRUE(row["price_source"].is_object()) << row.dump();
    const json& source = row["price_source"];
    auto detail = server.Get("/api/v1/instances/" + source["cloud"].get<std::string>() + "/" +
                             source["instance_type"].get<std::string>());
    ASSERT_EQ(detail.status, 200);
    bool inverted = false;
    for (const auto& r : detail.body["regions"]) {
      if (r["region"] != source["region"]) continue;
      inverted = r["price_spot_per_hour"].is_number() && r["price_ondemand_per_hour"].is_number() &&
                 r["price_spot_per_hour"].get<double>() > r["price_ondemand_per_hour"].get<double>();
    }
    // The flag, and a warning that says it, exactly when the price is inverted (other
    // warnings, such as a price per GPU-hour from a larger instance, may stand beside it).
    bool flagged_inverted = false;
    for (const auto& f : row.value("price_flags", json::array())) {
      flagged_inverted = flagged_inverted || f == "spot_above_ondemand";
    }
    EXPECT_EQ(flagged_inverted, inverted) << row.dump();
    bool warned = false;
    for (const auto& w : row.value("warnings", json::array())) {
      warned = warned || w.get<std::string>().find("spot_above_ondemand") != std::string::npos;
    }
    EXPECT_EQ(warned, inverted) << row.dump();
    flagged += inverted;
  }
  EXPECT_GE(flagged, 1);  // the inverted L4 added above
}

// A job sized by its duration ("what do 24 h on this hardware give me?"): the time and
// the cost are fixed, the work (whole steps at the predicted throughput) has the range.
TEST_F(EstimateApiTest, AFixedDurationGivesTheWorkItProcesses) {
  json body = Training({{"dataset", {{"hours", 24}, {"samples", 10000000}}},
                        {"pricing", {{"kind", "ondemand"}}},
                        {"hardware", {{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"}}}});
  auto reply = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& t = reply.body["time"];
  EXPECT_EQ(t["total_hours"], 24.0);
  EXPECT_EQ(t["p10_hours"], 24.0);
  EXPECT_EQ(t["p90_hours"], 24.0);
  EXPECT_EQ(t["fixed_duration"], true);
  double samples = t["total_samples"].get<double>();
  EXPECT_LT(t["p10_samples"].get<double>(), samples);
  EXPECT_GT(t["p90_samples"].get<double>(), samples);
  // Whole steps at the predicted throughput: within one step of 24 h of samples.
  double per_s = reply.body["throughput"]["samples_per_s"].get<double>();
  EXPECT_NEAR(samples, per_s * 24 * 3600, 256 + per_s * 24 * 3600 * 1e-3);
  EXPECT_NEAR(t["epochs"].get<double>(), samples / 1e7, 1e-3 * samples / 1e7);
  const json& od = reply.body["cost"]["ondemand"];
  EXPECT_NEAR(od["total"].get<double>(), od["price_per_hour"].get<double>() * 24, 0.01);
  EXPECT_EQ(od["p10_total"], od["p90_total"]);
  bool said = false;
  for (const auto& a : reply.body["assumptions"]) said |= a.get<std::string>().find("fixed duration of 24") != std::string::npos;
  EXPECT_TRUE(said) << reply.body["assumptions"].dump();
  // Without samples there are no epochs to count; with tokens or epochs it is a 422.
  auto plain = Post("/api/v1/estimates/training", Training({{"dataset", {{"hours", 2}}}}));
  ASSERT_EQ(plain.status, 200) << plain.body.dump();
  EXPECT_EQ(plain.body["time"]["total_hours"], 2.0);
  auto both = Post("/api/v1/estimates/training", Training({{"dataset", {{"hours", 2}, {"tokens", 1e9}}}}));
  ASSERT_EQ(both.status, 422);
  EXPECT_EQ(both.body["errors"][0]["pointer"], "/dataset/hours");
  auto epochs = Post("/api/v1/estimates/training", Training({{"dataset", {{"hours", 2}, {"epochs", 3}}}}));
  ASSERT_EQ(epochs.status, 422);
  EXPECT_EQ(epochs.body["errors"][0]["pointer"], "/dataset/epochs");
  // Shorter than one step: an error, not an answer of zero samples.
  auto blink = Post("/api/v1/estimates/training",
                    Training({{"dataset", {{"hours", 0.001}}}, {"workload", "llama-2-70b"}, {"precision", "auto"},
                              {"hardware", {{"gpu", "T4"}, {"gpus_per_node", 8}, {"nodes", 4}}}}));
  ASSERT_EQ(blink.status, 422) << blink.body.dump();
  EXPECT_EQ(blink.body["errors"][0]["pointer"], "/dataset/hours");
  // A recommendation over a fixed duration has nothing to rank.
  json rec = Training({{"dataset", {{"hours", 24}}}});
  rec.erase("hardware");
  auto refused = Post("/api/v1/recommendations", rec);
  ASSERT_EQ(refused.status, 422) << refused.body.dump();
  EXPECT_EQ(refused.body["errors"][0]["pointer"], "/dataset/hours");
  // On spot the same work takes longer than the hours, and the answer says so.
  json spot = body;
  spot["pricing"] = {{"kind", "spot"}};
  auto on_spot = Post("/api/v1/estimates/training", spot);
  ASSERT_EQ(on_spot.status, 200) << on_spot.body.dump();
  EXPECT_GT(on_spot.body["cost"]["spot"]["wall_hours"].get<double>(), 24.0);
  bool spot_said = false;
  for (const auto& a : on_spot.body["assumptions"]) {
    spot_said |= a.get<std::string>().find("fixed duration on spot") != std::string::npos;
  }
  EXPECT_TRUE(spot_said) << on_spot.body["assumptions"].dump();
}

TEST_F(EstimateApiTest, BatchAnswersEveryScenarioInOrder) {
  json good = Training();
  json bad = Training({{"global_batch_size", 0}});
  json scenarios = json::array({good, bad, Training({{"workload", "resnet-50"}}), 1});
  auto reply = Post("/api/v1/estimates/training:batch", {{"scenarios", scenarios}});
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& items = reply.body["items"];
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[3]["status"], 422);  // not an object: the problem points at the whole scenario
  EXPECT_EQ(items[3]["problem"]["errors"][0], json({{"detail", "a scenario must be an object"}, {"pointer", ""}}));
  EXPECT_EQ(items[0]["status"], 200);
  EXPECT_EQ(items[1]["status"], 422);
  EXPECT_EQ(items[1]["problem"]["errors"][0]["pointer"], "/global_batch_size");
  EXPECT_EQ(items[2]["status"], 200);
  EXPECT_EQ(items[2]["result"]["workload"]["id"], "resnet-50");
  EXPECT_EQ(reply.body["failed"], 2);
}

TEST_F(EstimateApiTest, BatchLimits) {
  json many = json::array();
  for (int i = 0; i < 1001; ++i) many.push_back(json::object());
  auto reply = Post("/api/v1/estimates/training:batch", {{"scenarios", many}});
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.body["errors"][0]["pointer"], "/scenarios");
}

TEST_F(EstimateApiTest, WorkloadPresetsAreListed) {
  auto list = server_->Get("/api/v1/workloads");
  ASSERT_EQ(list.status, 200);
  EXPECT_GE(list.body["items"].size(), 16u);
  auto one = server_->Get("/api/v1/workloads/llama-2-70b");
  ASSERT_EQ(one.status, 200);
  EXPECT_EQ(one.body["kv_heads"], 8);
  EXPECT_EQ(one.body["head_dim"], 128);  // hidden / heads
  EXPECT_FALSE(one.body["source"].get<std::string>().empty());
  auto gemma = server_->Get("/api/v1/workloads/gemma-2-9b");
  ASSERT_EQ(gemma.status, 200);
  EXPECT_EQ(gemma.body["head_dim"], 256);  // stated: not 3584 / 16
  EXPECT_EQ(gemma.body["max_context"], 8192);
  auto moe = server_->Get("/api/v1/workloads?family=moe");
  ASSERT_EQ(moe.status, 200);
  std::vector<std::string> ids;
  for (const auto& w : moe.body["items"]) ids.push_back(w["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"mixtral-8x7b", "mixtral-8x22b", "gpt-oss-20b",
                                           "gpt-oss-120b"}));
  EXPECT_EQ(server_->Get("/api/v1/workloads/nope").status, 404);
  EXPECT_EQ(server_->Get("/api/v1/workloads?family=bogus").status, 422);
}

TEST_F(EstimateApiTest, EveryValidationPath) {
  struct Case {
    json body;
    const char* pointer;
  } cases[] = {
      {Training({{"hardware", {{"gpu", "A100-80GB-SXM4"}, {"nodes", 0}}}}), "/hardware/nodes"},
      {Training({{"workload", "no-such-model"}}), "/workload"},
      {Training({{"workload", {{"preset", "nope"}}}}), "/workload/preset"},
      {Training({{"workload", {{"family", "decoder"}, {"layers", -1}}}}), "/workload/layers"},
      {Training({{"hardware", {{"gpu", "NO-GPU"}}}}), "/hardware/gpu"},
      {Training({{"hardware", {{"cloud", "aws"}, {"instance_type", "p9.huge"}}}}), "/hardware/instance_type"},
      {Training({{"hardware", {{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"}, {"region", "mars-1"}}}}),
       "/hardware/region"},
      {Training({{"hardware", {{"gpu", "V100-16GB-SXM2"}}}}), "/precision"},
      {Training({{"precision", "fp4"}}), "/precision"},
      {Training({{"global_batch_size", -3}}), "/global_batch_size"},
      {Training({{"global_batch_size", "many"}}), "/global_batch_size"},
      {Training({{"dataset", json::object()}}), "/dataset/samples"},
      {Training({{"dataset", {{"hours", 0}}}}), "/dataset/hours"},
      {Training({{"dataset", {{"hours", -1}}}}), "/dataset/hours"},
      {Training({{"dataset", {{"hours", "x"}}}}), "/dataset/hours"},
      {Training({{"dataset", {{"hours", 1e7}}}}), "/dataset/hours"},
      {Training({{"currency", "XYZ"}}), "/currency"},
      {Training({{"pricing", {{"kind", "free"}}}}), "/pricing/kind"},
      {Training({{"pricing", {{"interruption_rate_per_hour", -1}}}}), "/pricing/interruption_rate_per_hour"},
      {Training({{"colour", "blue"}}), "/colour"},
      {Training({{"optimizer", "adagrad"}}), "/optimizer"},
      {Training({{"zero_stage", 5}}), "/zero_stage"},
      // A CNN without its activation count, and a 7 B label on a ~65 B shape.
      {Training({{"workload", {{"family", "cnn"}, {"params", 25.6e6}, {"macs_per_sample", 4.1e9},
                               {"image_size", 224}}}}),
       "/workload/activation_elements_per_sample"},
      {Training({{"workload", {{"family", "decoder"}, {"params", 7e9}, {"layers", 96},
                               {"hidden", 8192}, {"heads", 64}, {"vocab", 32000},
                               {"seq_len", 2048}}}}),
       "/workload/params"},
      // Fields that do not apply to the family are refused, not ignored.
      {Training({{"workload", {{"preset", "llama-2-7b"}, {"image_size", 224}}}}),
       "/workload/image_size"},
      {Training({{"workload", {{"preset", "llama-2-7b"}, {"experts", 8}}}}), "/workload/experts"},
      {Training({{"workload", {{"preset", "resnet-50"}, {"seq_len", 512}}}}), "/workload/seq_len"},
      {Training({{"workload", {{"preset", "vit-b-16"}, {"macs_per_sample", 1e9}}}}),
       "/workload/macs_per_sample"},
      {Training({{"workload", {{"preset", "bert-large"}, {"decoder_layers", 6}}}}),
       "/workload/decoder_layers"},
      {Training({{"workload", {{"preset", "gpt2"}, {"depthwise_macs_share", 0.1}}}}),
       "/workload/depthwise_macs_share"},
      {Training({{"workload", {{"preset", "efficientnet-b0"}, {"depthwise_macs_share", 1.5}}}}),
       "/workload/depthwise_macs_share"},
      {Training({{"workload", {{"preset", "resnet-50"}, {"variable_length", true}}}}),
       "/workload/variable_length"},
      {Training({{"workload", {{"preset", "bert-large"}, {"spatial_dims", 3}}}}),
       "/workload/spatial_dims"},
      {Training({{"workload", {{"preset", "nnunet-3d"}, {"spatial_dims", 4}}}}),
       "/workload/spatial_dims"},
      {Training({{"workload", {{"preset", "resnet-50"}, {"head_dim", 64}}}}), "/workload/head_dim"},
      {Training({{"workload", {{"preset", "gnmt-v2"}, {"head_dim", 64}}}}), "/workload/head_dim"},
      {Training({{"workload", {{"preset", "llama-2-7b"}, {"head_dim", 0}}}}), "/workload/head_dim"},
      // hidden 4100 is no multiple of 32 heads: a head width must be stated.
      {Training({{"workload", {{"family", "decoder"}, {"layers", 32}, {"hidden", 4100},
                               {"heads", 32}, {"vocab", 32000}, {"seq_len", 2048}}}}),
       "/workload/heads"},
      // Sequence length beyond the model's context is an error, not an extrapolation.
      {Training({{"workload", {{"preset", "llama-2-7b"}, {"seq_len", 8192}}}}),
       "/workload/seq_len"},
      {Training({{"workload", {{"preset", "bart-large"}, {"target_len", 4096}}}}),
       "/workload/target_len"},
      // An encoder-decoder needs its decoder.
      {Training({{"workload", {{"family", "encoder_decoder"}, {"layers", 6}, {"hidden", 512},
                               {"heads", 8}, {"vocab", 32000}, {"seq_len", 64},
                               {"target_len", 64}}}}),
       "/workload/decoder_layers"},
  };
  for (const Case& c : cases) {
    auto reply = Post("/api/v1/estimates/training", c.body);
    EXPECT_EQ(reply.status, 422) << c.pointer << " " << reply.body.dump();
    EXPECT_EQ(reply.content_type, "application/problem+json") << c.pointer;
    bool named = false;
    for (const auto& e : reply.body["errors"]) named = named || e["pointer"] == c.pointer;
    EXPECT_TRUE(named) << c.pointer << " " << reply.body.dump();
  }
}

TEST_F(EstimateApiTest, MalformedAndOversizedBodies) {
  auto malformed = server_->PostRaw("/api/v1/estimates/training", "{\"workload\": ", "application/json");
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(malformed.content_type, "application/problem+json");
  auto array = server_->PostRaw("/api/v1/recommendations", "[1, 2]", "application/json");
  EXPECT_EQ(array.status, 400);
  auto form = server_->PostRaw("/api/v1/estimates/inference", "a=b", "application/x-www-form-urlencoded");
  EXPECT_EQ(form.status, 415);
  std::string big = "{\"workload\": \"" + std::string(1100000, 'x') + "\"}";
  auto too_big = server_->PostRaw("/api/v1/estimates/training", big, "application/json");
  EXPECT_EQ(too_big.status, 413);
  EXPECT_EQ(too_big.content_type, "application/problem+json");
}

TEST_F(EstimateApiTest, InferenceValidation) {
  json body = {{"workload", "llama-2-7b"}, {"input_tokens", 0}, {"output_tokens", 10},
               {"hardware", {{"gpu", "A100-80GB-SXM4"}}}};
  auto reply = Post("/api/v1/estimates/inference", body);
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.body["errors"][0]["pointer"], "/input_tokens");
  json cnn = {{"workload", "resnet-50"}, {"target_samples_per_s", 2000}, {"latency_slo_ms", 100},
              {"precision", "fp16"}, {"hardware", {{"gpu", "T4"}, {"price_per_hour", 0.5}}}};
  auto ok = Post("/api/v1/estimates/inference", cnn);
  ASSERT_EQ(ok.status, 200) << ok.body.dump();
  EXPECT_GE(ok.body["replicas"].get<int>(), 2);
  EXPECT_LE(ok.body["latency_s"].get<double>(), 0.1);
  EXPECT_TRUE(ok.body["cost"]["ondemand"]["per_thousand_requests"].is_number());
}

}  // namespace
}  // namespace gpuplan::api
