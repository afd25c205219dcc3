// Properties the step model must keep for any GPU or workload, not only calibrated ones
// (issue 9): data-parallel efficiency, monotonicity in the specs, roofline behaviour of
// memory-bound families, and serving's dependence on bandwidth.
#include <gtest/gtest.h>

#include "model/inference.h"
#include "model/training.h"
#include "model/workload_presets.h"
#include "tests/model/model_fixtures.h"

namespace gpuplan::model {
namespace {

using testing::A100_80;
using testing::Node;

TrainingJob Job(Precision p, int global_batch) {
  TrainingJob job;
  job.precision = p;
  job.global_batch = global_batch;
  job.samples = 1e6;
  return job;
}

TrainingEstimate Estimate(const Workload& w, const TrainingJob& job, const Cluster& c) {
  auto e = EstimateTraining(w, job, c, DefaultConstants(), false);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? *e : TrainingEstimate{};
}

// One bf16 request shape on one GPU: 512 tokens in, 128 out.
ServingRequest ShortChat() {
  ServingRequest r;
  r.precision = Precision::kBf16;
  r.input_tokens = 512;
  r.output_tokens = 128;
  r.tensor_parallel = 1;
  return r;
}

GpuSpec Scaled(GpuSpec g, double f) {
  g.id += "-scaled";
  for (const GpuRateField& rate : kGpuRateFields) g.*rate.field *= f;
  return g;
}

TEST(ModelPropertiesTest, DataParallelEfficiencyIsAtMostOneAndFallsWithGpus) {
  for (const char* id : {"resnet-50", "bert-large", "gpt2", "efficientnet-b0"}) {
    Workload w = *FindPreset(id);
    double previous = 1.0;
    for (auto [gpus, nodes] : {std::pair{2, 1}, {4, 1}, {8, 1}, {8, 2}, {8, 4}, {8, 16}}) {
      TrainingEstimate e = Estimate(w, Job(Precision::kBf16, 32 * gpus * nodes),
                                    Node(A100_80(), gpus, nodes));
      EXPECT_EQ(e.layout.data, gpus * nodes) << id << ": plain data parallel is the default";
      EXPECT_EQ(e.layout.zero_stage, 0) << id;
      EXPECT_LE(e.scaling_efficiency, 1.0) << id << " on " << gpus << "x" << nodes;
      EXPECT_GT(e.scaling_efficiency, 0.0) << id;
      EXPECT_LE(e.scaling_efficiency, previous + 1e-9) << id << " on " << gpus << "x" << nodes;
      previous = e.scaling_efficiency;
    }
  }
}

TEST(ModelPropertiesTest, ScalingEfficiencyIsTheThroughputRatio) {
  Workload w = *FindPreset("bert-large");
  TrainingEstimate one = Estimate(w, Job(Precision::kBf16, 32), Node(A100_80(), 1));
  TrainingEstimate eight = Estimate(w, Job(Precision::kBf16, 256), Node(A100_80(), 8));
  EXPECT_NEAR(eight.scaling_efficiency, eight.samples_per_s / (8 * one.samples_per_s), 1e-6);
}

TEST(ModelPropertiesTest, AGpuWithEverySpecHigherIsNeverSlower) {
  for (const char* id : {"resnet-18", "resnet-50", "efficientnet-b0", "bert-large", "gpt2",
                         "gnmt-v2", "transformer-big", "vit-b-16"}) {
    Workload w = *FindPreset(id);
    for (int batch : {1, 8, 64}) {
      for (Precision p : {Precision::kBf16, Precision::kTf32, Precision::kFp32}) {
        double base = Estimate(w, Job(p, batch), Node(A100_80(), 1)).samples_per_s;
        double better = Estimate(w, Job(p, batch), Node(Scaled(A100_80(), 1.3), 1)).samples_per_s;
        EXPECT_GE(better, base) << id << " batch " << batch;
      }
    }
  }
}

TEST(ModelPropertiesTest, MemoryBoundFamiliesGainLessFromTensorPeak) {
  GpuSpec peak = A100_80();
  peak.fp16_tflops *= 2;
  peak.bf16_tflops *= 2;
  auto gain = [&](const char* id, int batch) {
    Workload w = *FindPreset(id);
    return Estimate(w, Job(Precision::kBf16, batch), Node(peak, 1)).samples_per_s /
           Estimate(w, Job(Precision::kBf16, batch), Node(A100_80(), 1)).samples_per_s;
  };
  double gemm_bound = gain("gpt2-xl", 8);
  EXPECT_GT(gemm_bound, 1.15);
  EXPECT_LT(gain("efficientnet-b0", 256), gemm_bound);
  EXPECT_LT(gain("resnet-50", 256), gemm_bound);
  // Bandwidth helps the memory-bound family more than the GEMM-bound one (EfficientNet is
  // bound by its depthwise kernels, which neither peak speeds up much).
  GpuSpec bandwidth = A100_80();
  bandwidth.memory_bw_gbps *= 2;
  auto bw_gain = [&](const char* id, int batch) {
    Workload w = *FindPreset(id);
    return Estimate(w, Job(Precision::kBf16, batch), Node(bandwidth, 1)).samples_per_s /
           Estimate(w, Job(Precision::kBf16, batch), Node(A100_80(), 1)).samples_per_s;
  };
  EXPECT_GT(bw_gain("resnet-50", 256), bw_gain("gpt2-xl", 8));
  EXPECT_LT(bw_gain("efficientnet-b0", 256), 2.0);
}

TEST(ModelPropertiesTest, SmallBatchesRunFurtherFromPeak) {
  Workload w = *FindPreset("resnet-50");
  double small = Estimate(w, Job(Precision::kFp16, 8), Node(A100_80(), 1)).mfu;
  double large = Estimate(w, Job(Precision::kFp16, 256), Node(A100_80(), 1)).mfu;
  EXPECT_LT(small, large);
}

TEST(ModelPropertiesTest, ServingTimePerTokenFallsWithBandwidth) {
  Workload w = *FindPreset("llama-3-8b");
  ServingRequest r = ShortChat();
  double previous = 1e9;
  for (double f : {0.5, 1.0, 1.5, 2.0}) {
    GpuSpec g = A100_80();
    g.memory_bw_gbps *= f;
    auto e = EstimateServing(w, Node(g, 1).node, r);
    ASSERT_TRUE(e.ok());
    ASSERT_FALSE(e->curve.empty());
    double tpot = e->curve.front().tpot_s;
    EXPECT_LT(tpot, previous) << "bandwidth x" << f;
    previous = tpot;
  }
}

// A published streaming-benchmark bandwidth replaces eta_bw x peak, in training and in
// serving, and the answer says which one it used.
TEST(ModelPropertiesTest, PublishedAchievableBandwidthIsWhatTheModelUses) {
  Workload w = *FindPreset("llama-3-8b");
  ServingRequest r = ShortChat();
  auto tpot = [&](const GpuSpec& g) {
    auto e = EstimateServing(w, Node(g, 1).node, r);
    EXPECT_TRUE(e.ok() && !e->curve.empty());  // an empty curve would make 0 compare as fast
    return e.ok() && !e->curve.empty() ? e->curve.front().tpot_s : 0.0;
  };
  GpuSpec fast = A100_80();
  fast.achievable_bw_gbps = fast.memory_bw_gbps;  // better than eta_bw of the peak
  GpuSpec slow = A100_80();
  slow.achievable_bw_gbps = 0.5 * slow.memory_bw_gbps;
  double unknown = tpot(A100_80());
  EXPECT_LT(tpot(fast), unknown);
  EXPECT_GT(tpot(slow), unknown);
  auto served = EstimateServing(w, Node(slow, 1).node, r);
  ASSERT_TRUE(served.ok());
  bool named = false;
  for (const auto& a : served->assumptions) {
    named = named || a.find("published achievable 1020 GB/s") != std::string::npos;
  }
  EXPECT_TRUE(named);

  Workload bert = *FindPreset("bert-large");
  auto samples_per_s = [&](const GpuSpec& g) {
    TrainingEstimate e = Estimate(bert, Job(Precision::kBf16, 32), Node(g, 1));
    return e.samples_per_s;
  };
  EXPECT_GT(samples_per_s(fast), samples_per_s(A100_80()));
  EXPECT_LT(samples_per_s(slow), samples_per_s(A100_80()));
}

TEST(ModelPropertiesTest, SmallModelsDecodeAtTheirFloors) {
  // GPT-2 (124 M) reads 0.25 GB per token: 0.1 ms at A100 bandwidth, far less than the
  // engine's host time per iteration and its 12 layers' kernel floors. More bandwidth then
  // barely helps it; Llama-3-8B it does.
  ServingRequest r;
  r.precision = Precision::kBf16;
  r.input_tokens = 128;
  r.output_tokens = 128;
  r.tensor_parallel = 1;
  auto tpot = [&](const char* id, double bandwidth_factor) {
    GpuSpec g = A100_80();
    g.memory_bw_gbps *= bandwidth_factor;
    g.achievable_bw_gbps *= bandwidth_factor;
    auto e = EstimateServing(*FindPreset(id), Node(g, 1).node, r);
    EXPECT_TRUE(e.ok() && !e->curve.empty());  // an empty curve would make 0 compare as fast
    return e.ok() && !e->curve.empty() ? e->curve.front().tpot_s : 0.0;
  };
  const EngineConstants& k = FindEngineProfile("vllm", "v1")->shipped;
  EXPECT_GE(tpot("gpt2", 1), 12 * k.layer_floor_graph_s + k.cpu_iteration_s);
  EXPECT_GT(tpot("gpt2", 2), 0.9 * tpot("gpt2", 1));
  EXPECT_LT(tpot("llama-3-8b", 2), 0.8 * tpot("llama-3-8b", 1));
}

TEST(ModelPropertiesTest, RangeWidensOutsideTheCalibratedRegion) {
  Workload w = *FindPreset("bert-large");
  auto spread = [](const TrainingEstimate& e) { return e.p90_hours / e.p10_hours; };
  auto mentions = [](const TrainingEstimate& e, const std::string& word) {
    for (const auto& line : e.warnings) {
      if (line.find(word) != std::string::npos) return true;
    }
    return false;
  };
  TrainingEstimate calibrated = Estimate(w, Job(Precision::kBf16, 256), Node(A100_80(), 8));
  EXPECT_FALSE(mentions(calibrated, "wider P10-P90"));
  // A generation without calibration rows.
  GpuSpec next = A100_80();
  next.id = "next-gen";
  next.architecture = "Blackwell (GB100)";
  TrainingEstimate unseen = Estimate(w, Job(Precision::kBf16, 256), Node(next, 8));
  EXPECT_GT(spread(unseen), spread(calibrated) * 1.05);
  EXPECT_TRUE(mentions(unseen, "Blackwell"));
  // Far more GPUs than any calibration row (512).
  Cluster big = Node(A100_80(), 8);
  big.nodes = 256;
  TrainingEstimate scaled = Estimate(w, Job(Precision::kBf16, 32768), big);
  EXPECT_GT(spread(scaled), spread(calibrated) * 1.02);
  EXPECT_TRUE(mentions(scaled, "beyond the calibration data"));
  // A volumetric CNN: the measured 3D U-Net runs slower than its counts predict.
  Workload unet = *FindPreset("nnunet-3d");
  Workload flat = unet;
  flat.spatial_dims = 2;
  TrainingEstimate volume = Estimate(unet, Job(Precision::kBf16, 16), Node(A100_80(), 8));
  TrainingEstimate image = Estimate(flat, Job(Precision::kBf16, 16), Node(A100_80(), 8));
  EXPECT_GT(spread(volume), spread(image) * 1.5);
  EXPECT_TRUE(mentions(volume, "volumetric"));
  EXPECT_FALSE(mentions(image, "volumetric"));
}

}  // namespace
}  // namespace gpuplan::model
