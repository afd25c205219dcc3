// Serving model v3 (issue 24): the engine's caps, the iteration model, the closed-form load
// model against the discrete-event simulation, and the plan's replicas from the p95.
#include <gtest/gtest.h>

#include "model/inference.h"
#include "model/serving_engine.h"
#include "model/serving_load.h"
#include "model/serving_simulation.h"
#include "model/workload_presets.h"
#include "tests/model/model_fixtures.h"

namespace gpuplan::model {
namespace {

using testing::A100_80;
using testing::H100;
using testing::Chat;
using testing::Node;

ServingEstimate Serve(const char* preset, const NodeSpec& node, const ServingRequest& r) {
  auto e = EstimateServing(*FindPreset(preset), node, r);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? *e : ServingEstimate{};
}

TEST(ServingEngineTest, VllmDefaultsFollowTheEnginesOwnRules) {
  std::vector<std::string> said;
  auto h100 = ResolveEngine({}, H100(), 8192, 500, &said);
  ASSERT_TRUE(h100.ok());
  EXPECT_EQ(h100->max_num_seqs, 1024);  // V1: >= 70 GiB and not an A100
  EXPECT_EQ(h100->max_num_batched_tokens, 8192);
  EXPECT_TRUE(h100->chunked_prefill);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("max_num_seqs 1024"), std::string::npos) << said[0];
  auto a100 = ResolveEngine({}, A100_80(), 8192, 500, nullptr);
  ASSERT_TRUE(a100.ok());
  EXPECT_EQ(a100->max_num_seqs, 256);
  EXPECT_EQ(a100->max_num_batched_tokens, 2048);
  EngineConfig v0;
  v0.version = "v0";
  auto old = ResolveEngine(v0, H100(), 8000, 500, nullptr);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->max_num_seqs, 256);
  EXPECT_FALSE(old->chunked_prefill);
  EXPECT_EQ(old->max_num_batched_tokens, 8000);  // max(max_model_len, 2048)
  EngineConfig bad;
  bad.version = "v9";
  auto refused = ResolveEngine(bad, H100(), 8192, 500, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().fields[0].id, FieldId(Part::kEngine, "version"));
}

TEST(ServingModelTest, ThroughputRisesWithBatchUpToTheEngineCapAndNeverBeyond) {
  ServingRequest r = Chat(0, 0);
  r.engine.max_num_seqs = 64;
  ServingEstimate e = Serve("llama-3-8b", Node(H100(), 1).node, r);
  ASSERT_FALSE(e.curve.empty());
  EXPECT_EQ(e.batch_cap.effective, 64);
  EXPECT_STREQ(e.batch_cap.binding, "max_num_seqs");
  EXPECT_EQ(e.curve.back().batch, 64);  // the curve stops at the cap
  for (size_t i = 1; i < e.curve.size(); ++i) {
    EXPECT_GT(e.curve[i].tokens_per_s, e.curve[i - 1].tokens_per_s) << i;
  }
  EXPECT_NEAR(e.saturation.tokens_per_s, e.curve.back().tokens_per_s, 1e-6 * e.curve.back().tokens_per_s);
  // The KV cache alone would allow far more: what the engine never runs.
  EXPECT_GT(e.batch_cap.kv_capacity, 64);
  EXPECT_GT(e.kv_limit.tokens_per_s, e.saturation.tokens_per_s);
  // A higher rate than saturation is never planned on one replica.
  r.target_requests_per_s = 10 * e.saturation.requests_per_s;
  ServingEstimate loaded = Serve("llama-3-8b", Node(H100(), 1).node, r);
  EXPECT_LE(loaded.planned_requests_per_s_per_replica, loaded.saturation.requests_per_s);
  EXPECT_GE(loaded.replicas, 10);
}

TEST(ServingModelTest, P95IsNeverBelowP50) {
  for (double share : {0.1, 0.5, 0.8}) {
    ServingRequest r = Chat(0, 0);
    ServingEstimate sat = Serve("llama-3-8b", Node(A100_80(), 1).node, r);
    r.target_requests_per_s = share * sat.saturation.requests_per_s;
    ServingEstimate e = Serve("llama-3-8b", Node(A100_80(), 1).node, r);
    EXPECT_GE(e.planned.ttft_s.p95, e.planned.ttft_s.p50) << share;
    EXPECT_GE(e.planned.tpot_s.p95, e.planned.tpot_s.p50) << share;
    EXPECT_GE(e.planned.e2e_s.p95, e.planned.e2e_s.p50) << share;
    EXPECT_GT(e.planned.e2e_s.p50, e.planned.ttft_s.p50) << share;
  }
}

TEST(ServingModelTest, TimePerOutputTokenFallsWithBandwidth) {
  ServingRequest r = Chat(1, 0);
  r.tensor_parallel = 1;
  GpuSpec slow = H100(), fast = H100();
  fast.memory_bw_gbps *= 2;
  fast.achievable_bw_gbps *= 2;
  ServingEstimate a = Serve("llama-3-8b", Node(slow, 1).node, r);
  ServingEstimate b = Serve("llama-3-8b", Node(fast, 1).node, r);
  ASSERT_FALSE(a.curve.empty() || b.curve.empty());
  EXPECT_LT(b.curve.front().tpot_s, 0.8 * a.curve.front().tpot_s);
  EXPECT_LT(b.planned.tpot_s.p50, a.planned.tpot_s.p50);
}

TEST(ServingModelTest, TensorParallelOverNvswitchIsNeverSlowerThanOverPcie) {
  for (int tp : {2, 4, 8}) {
    ServingRequest r = Chat(5, 0);
    r.tensor_parallel = tp;
    NodeSpec nvswitch = Node(H100(), 8).node, pcie = nvswitch;
    pcie.interconnect = Interconnect::kPcie;
    ServingEstimate fast = Serve("llama-3-8b", nvswitch, r);
    ServingEstimate slow = Serve("llama-3-8b", pcie, r);
    ASSERT_FALSE(fast.curve.empty() || slow.curve.empty());
    for (size_t i = 0; i < fast.curve.size() && i < slow.curve.size(); ++i) {
      EXPECT_LE(fast.curve[i].tpot_s, slow.curve[i].tpot_s) << tp << " " << i;
    }
    EXPECT_GE(fast.saturation.requests_per_s, slow.saturation.requests_per_s) << tp;
  }
}

TEST(ServingModelTest, AnSloNoLoadMeetsIsNotMetAndSaysWhy) {
  // 300 tokens in 50 ms: no GPU decodes 6 000 tokens per second for one request.
  ServingEstimate e = Serve("llama-3-8b", Node(H100(), 1).node, Chat(10, 0.05));
  EXPECT_FALSE(e.slo_met);
  EXPECT_NE(e.slo_detail.find("end-to-end latency p95"), std::string::npos) << e.slo_detail;
  bool warned = false;
  for (const auto& w : e.warnings) warned = warned || w.find("not met") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(ServingModelTest, ReplicasComeFromTheP95) {
  // The fleet meets the target at p95 at its planned rate, and one replica fewer would not.
  ServingRequest r = Chat(150, 4);
  ServingEstimate e = Serve("llama-3-8b", Node(H100(), 1).node, r);
  ASSERT_TRUE(e.slo_met);
  EXPECT_LE(e.planned.e2e_s.p95, 4.0);
  EXPECT_GE(e.replicas * e.planned_requests_per_s_per_replica, 150 * (1 - 1e-9));
  EXPECT_NE(e.replica_rule.find("p95"), std::string::npos);
  // One replica fewer would not do: a single replica cannot take the load each would carry.
  ASSERT_GT(e.replicas, 1);
  ServingRequest fewer = r;
  fewer.target_requests_per_s = 150.0 / (e.replicas - 1);
  EXPECT_GE(Serve("llama-3-8b", Node(H100(), 1).node, fewer).replicas, 2);
  // A looser p95 target needs no more replicas.
  ServingEstimate loose = Serve("llama-3-8b", Node(H100(), 1).node, Chat(150, 30));
  EXPECT_LE(loose.replicas, e.replicas);
}

// A plan that says it meets its targets meets them in its own figures, whatever the load:
// the p95 is checked at the rate the plan runs at (review of issue 24: a p95 that steps where
// batches leave the captured graph sizes once let a plan say slo_met over its own p95).
TEST(ServingModelTest, SloMetMeansEveryReportedP95IsWithinItsTarget) {
  int met = 0;
  for (const char* preset : {"mistral-7b", "llama-3-8b", "qwen2.5-0.5b"}) {
    for (int tp : {1, 2, 4}) {
      if (FindPreset(preset)->heads % tp != 0) continue;  // (a 422 naming tensor_parallel)
      for (double rps : {5.0, 45.0, 200.0}) {
        for (double tpot_ms : {8.0, 12.0, 30.0}) {
          ServingRequest r = Chat(rps, 0);
          r.input_tokens = 500;
          r.output_tokens = 50;
          r.tensor_parallel = tp;
          r.tpot_slo_s = tpot_ms / 1000;
          r.latency_slo_s = 3;
          ServingEstimate e = Serve(preset, Node(A100_80(), 4).node, r);
          if (!e.slo_met) continue;
          ++met;
          EXPECT_LE(e.planned.tpot_s.p95, r.tpot_slo_s * (1 + 1e-9)) << preset << tp << rps << tpot_ms;
          EXPECT_LE(e.planned.e2e_s.p95, r.latency_slo_s * (1 + 1e-9)) << preset << tp << rps;
          EXPECT_LE(e.planned_requests_per_s_per_replica, e.saturation.requests_per_s);
        }
      }
    }
  }
  EXPECT_GT(met, 20);
}

TEST(ServingModelTest, NoTargetGetsTheHeadroomRuleAndAWarningWhenSlow) {
  ServingRequest r = Chat(0, 0);
  r.input_tokens = 4000;  // long requests at 80 % load: a p95 of minutes end to end
  r.output_tokens = 2000;
  ServingEstimate sat = Serve("llama-3-8b", Node(A100_80(), 1).node, r);
  r.target_requests_per_s = 0.8 * sat.saturation.requests_per_s;
  ServingEstimate e = Serve("llama-3-8b", Node(A100_80(), 1).node, r);
  EXPECT_EQ(e.replicas, 1);
  bool rule = false;
  for (const auto& a : e.assumptions) rule = rule || a.find("80 %") != std::string::npos;
  EXPECT_TRUE(rule);
  ASSERT_GT(e.planned.e2e_s.p95, ServingConstants().high_e2e_s);
  bool warned = false;
  for (const auto& w : e.warnings) warned = warned || w.find("no latency target") != std::string::npos;
  EXPECT_TRUE(warned);
  // A short chat at light load stays quiet.
  ServingEstimate quiet = Serve("llama-3-8b", Node(A100_80(), 1).node, Chat(1, 0));
  for (const auto& w : quiet.warnings) EXPECT_EQ(w.find("no latency target"), std::string::npos) << w;
}

TEST(ServingModelTest, QuantisedWeightsDecodeFasterAndHoldMoreKv) {
  ServingRequest bf16 = Chat(1, 0), int4 = Chat(1, 0), fp8kv = Chat(1, 0);
  int4.quantization = WeightQuantization::kInt4Awq;
  fp8kv.kv_cache = KvCacheDtype::kFp8;
  ServingEstimate a = Serve("llama-3-8b", Node(A100_80(), 1).node, bf16);
  ServingEstimate b = Serve("llama-3-8b", Node(A100_80(), 1).node, int4);
  ServingEstimate c = Serve("llama-3-8b", Node(A100_80(), 1).node, fp8kv);
  EXPECT_LT(b.weights_gb, 0.3 * a.weights_gb);
  EXPECT_LT(b.curve.front().tpot_s, a.curve.front().tpot_s);
  EXPECT_GT(b.batch_cap.kv_capacity, a.batch_cap.kv_capacity);
  EXPECT_NEAR(c.kv_cache_bytes_per_token, a.kv_cache_bytes_per_token / 2, 1e-9);
  EXPECT_GT(c.batch_cap.kv_capacity, 1.9 * a.batch_cap.kv_capacity);
}

TEST(ServingModelTest, MixtureOfExpertsReadsOnlyTheRoutedExpertsAtSmallBatches) {
  Workload moe = *FindPreset("mixtral-8x7b");
  ReplicaShape r = MakeReplicaShape(moe, Node(H100(), 2).node, 2, Precision::kBf16,
                                    WeightQuantization::kNone, KvCacheDtype::kAuto, DefaultConstants());
  EngineSettings e;
  EngineConstants k = FindEngineProfile("vllm", "v1")->shipped;
  IterationLoad one, many;
  one.decode_seqs = 1;
  many.decode_seqs = 256;
  IterationTime t1 = TimeIteration(r, one, e, k), t256 = TimeIteration(r, many, e, k);
  const double all = (r.dense_weight_bytes + r.expert_weight_bytes) / (r.dram_bytes_per_s * k.eta_bandwidth * 2);
  EXPECT_LT(t1.weights_s, 0.4 * all);  // top-2 of 8 experts
  EXPECT_NEAR(t256.weights_s, all, 1e-3 * all);
}

TEST(ServingModelTest, APrefixCacheShortensTheFirstToken) {
  ServingRequest plain = Chat(2, 0), cached = Chat(2, 0);
  plain.input_tokens = cached.input_tokens = 3000;
  cached.shared_prefix_tokens = 2500;
  ServingEstimate a = Serve("llama-3-8b", Node(A100_80(), 1).node, plain);
  ServingEstimate b = Serve("llama-3-8b", Node(A100_80(), 1).node, cached);
  EXPECT_LT(b.planned.ttft_s.p50, a.planned.ttft_s.p50);
  cached.engine.prefix_caching = false;
  ServingEstimate c = Serve("llama-3-8b", Node(A100_80(), 1).node, cached);
  EXPECT_NEAR(c.planned.ttft_s.p50, a.planned.ttft_s.p50, 1e-9);
}

// The closed-form load model against the simulation of the same replica and stream.
TEST(ServingModelTest, TheLoadModelAgreesWithTheSimulation) {
  Workload w = *FindPreset("llama-3-8b");
  NodeSpec node = Node(H100(), 1).node;
  auto engine = ResolveEngine({}, node.gpu, 8192, 500, nullptr);
  ASSERT_TRUE(engine.ok());
  const EngineConstants& k = FindEngineProfile("vllm", "v1")->shipped;
  ReplicaShape shape = MakeReplicaShape(w, node, 1, Precision::kBf16, WeightQuantization::kNone,
                                        KvCacheDtype::kAuto, DefaultConstants());
  const double kv = KvCapacityTokens(shape, node.gpu, *engine, k);
  RequestShape q{200, 0, 300};
  BatchCap cap = BatchLimit(*engine, kv, q, 0);
  OperatingPoint sat = ClosedLoop(shape, *engine, k, q, cap.effective);
  for (double share : {0.3, 0.6}) {
    const double rate = share * sat.requests_per_s;
    OperatingPoint p = AtRate(shape, *engine, k, q, cap, rate);
    SimulatedLoad load;
    load.requests = 4000;
    load.rate = rate;
    load.mean_input = 200;
    load.mean_output = 300;
    load.warmup_share = 0.2;
    SimulationResult s = SimulateServing(shape, *engine, k, kv, load);
    EXPECT_NEAR(p.tpot_s.p50, s.tpot_s.p50, 0.15 * s.tpot_s.p50) << share;
    EXPECT_NEAR(p.e2e_s.p50, s.e2e_s.p50, 0.15 * s.e2e_s.p50) << share;
    EXPECT_NEAR(p.ttft_s.p50, s.ttft_s.p50, 0.35 * s.ttft_s.p50) << share;
    EXPECT_GE(p.e2e_s.p95, 0.9 * s.e2e_s.p95) << share;  // the formula's p95 is not optimistic
    EXPECT_NEAR(s.requests_per_s, rate, 0.05 * rate) << share;
  }
  // A long prompt at light load: the first token waits for the prompt's compute.
  {
    RequestShape longq{8000, 0, 100};
    BatchCap long_cap = BatchLimit(*engine, kv, longq, 0);
    const double rate = 0.05 * ClosedLoop(shape, *engine, k, longq, long_cap.effective).requests_per_s;
    OperatingPoint p = AtRate(shape, *engine, k, longq, long_cap, rate);
    SimulatedLoad load;
    load.requests = 400;
    load.rate = rate;
    load.mean_input = 8000;
    load.mean_output = 100;
    load.warmup_share = 0.1;
    SimulationResult s = SimulateServing(shape, *engine, k, kv, load);
    EXPECT_NEAR(p.ttft_s.p50, s.ttft_s.p50, 0.25 * s.ttft_s.p50);
    // 8 000 prompt tokens of an 8 B model: at least 1.2e14 FLOPs at the fitted share of peak.
    EXPECT_GT(p.ttft_s.p50, 2 * 7.5e9 * 8000 / (node.gpu.bf16_tflops * 1e12 * k.eta_compute));
  }
  // Saturated: a burst far larger than the cap completes at the closed loop's rate.
  SimulatedLoad burst;
  burst.requests = 3 * cap.effective;
  burst.mean_input = 200;
  burst.mean_output = 300;
  SimulationResult s = SimulateServing(shape, *engine, k, kv, burst);
  EXPECT_NEAR(s.output_tokens_per_s, sat.tokens_per_s, 0.2 * sat.tokens_per_s);
}

TEST(ServingSimulationTest, IsDeterministicAndBounded) {
  Workload w = *FindPreset("llama-2-7b");
  NodeSpec node = Node(A100_80(), 1).node;
  auto engine = ResolveEngine({}, node.gpu, 4096, 500, nullptr);
  ASSERT_TRUE(engine.ok());
  const EngineConstants& k = FindEngineProfile("vllm", "v1")->shipped;
  ReplicaShape shape = MakeReplicaShape(w, node, 1, Precision::kBf16, WeightQuantization::kNone,
                                        KvCacheDtype::kAuto, DefaultConstants());
  SimulatedLoad load;
  load.requests = 500;
  load.rate = 5;
  load.mean_input = 300;
  load.mean_output = 200;
  load.length_cv = 1;
  const double kv = KvCapacityTokens(shape, node.gpu, *engine, k);
  SimulationResult a = SimulateServing(shape, *engine, k, kv, load);
  SimulationResult b = SimulateServing(shape, *engine, k, kv, load);
  EXPECT_EQ(a.duration_s, b.duration_s);
  EXPECT_EQ(a.ttft_s.p95, b.ttft_s.p95);
  EXPECT_FALSE(a.truncated);
  load.requests = 1 << 30;  // clamped to kMaxSimulatedRequests
  load.rate = 1e6;
  SimulationResult big = SimulateServing(shape, *engine, k, kv, load);
  EXPECT_GT(big.duration_s, 0);
  EXPECT_NEAR(big.requests_per_s * big.duration_s, kMaxSimulatedRequests, 1);  // clamped
}

}  // namespace
}  // namespace gpuplan::model
