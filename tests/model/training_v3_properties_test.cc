// Issue 25's properties of the training model, for any transformer and layout, not only
// calibrated ones: FP8 against BF16, interleaving against the bubble, context parallelism
// against activation memory, and an NVL72 rack as one NVLink domain.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <string>

#include "model/collectives.h"
#include "model/inference.h"
#include "model/memory.h"
#include "model/training.h"
#include "model/workload_presets.h"
#include "tests/model/model_fixtures.h"

namespace gpuplan::model {
namespace {

using testing::B200;
using testing::H100;
using testing::Node;

TrainingJob OptimizedJob(Precision p, int global_batch) {
  TrainingJob job;
  job.precision = p;
  job.global_batch = global_batch;
  job.tokens = 1e9;
  job.framework = Framework::kOptimized;
  return job;
}

// A step of 8 micro-batches of `job` (global batch 64 x b) for `layout` on 8 GPUs of `gpu`.
double StepOf(const Workload& w, TrainingJob job, const GpuSpec& gpu, const ParallelLayout& layout,
              int b) {
  job.global_batch = 64 * b;
  return StepTime(w, job, Node(gpu, 8), layout, b, 8, DefaultConstants()).step_time_s;
}

// Calls check(w, layout, b, where) for each preset of `ids` at 1 K, 4 K and 16 K tokens, on
// four layouts of 8 GPUs (ZeRO-3 data parallel, TP 8, TP 2 x PP 4, TP 4 x PP 2; sequence
// parallel where tensor parallel) and micro-batches of 1 and 4; `where` names the case.
template <typename Check>
void ForEachShapeAndLayout(std::initializer_list<const char*> ids, Check check) {
  for (const char* id : ids) {
    Workload w = *FindPreset(id);
    for (int seq : {1024, 4096, 16384}) {
      w.seq_len = seq;
      w.max_context = 0;
      for (ParallelLayout layout : {ParallelLayout{1, 1, 8, 3}, ParallelLayout{8, 1, 1, 1},
                                    ParallelLayout{2, 4, 1, 1}, ParallelLayout{4, 2, 1, 0}}) {
        layout.sequence_parallel = layout.tensor > 1;
        for (int b : {1, 4}) {
          check(w, layout, b,
                std::string(id) + " seq " + std::to_string(seq) + " tp " +
                    std::to_string(layout.tensor) + " b " + std::to_string(b));
        }
      }
    }
  }
}

// An FP8 step is never slower than the BF16 step of the same layout and micro-batch on a GPU
// with FP8, and never gains the whole peak ratio: attention, the head, norms and the
// optimizer stay 16-bit, and the casts add traffic. Steps of 8 micro-batches: the weights'
// cast is once per step, and a one-micro-batch step of an MoE (every expert cast for 1 K
// tokens) can be slower in FP8, in the model as on the GPU.
TEST(TrainingV3PropertiesTest, Fp8IsNeverSlowerThanBf16AndGainsLessThanThePeakRatio) {
  const GpuSpec gpu = H100();
  const double peak_ratio = gpu.fp8_tflops / gpu.bf16_tflops;
  ForEachShapeAndLayout(
      {"mpt-1b", "mpt-7b", "llama-2-7b", "llama-3-8b", "llama-2-70b", "mixtral-8x7b", "qwen2.5-7b"},
      [&](const Workload& w, const ParallelLayout& layout, int b, const std::string& where) {
        const double t16 = StepOf(w, OptimizedJob(Precision::kBf16, 64), gpu, layout, b);
        for (Fp8Scaling scaling : {Fp8Scaling::kDelayed, Fp8Scaling::kCurrent}) {
          TrainingJob fp8 = OptimizedJob(Precision::kFp8, 64);
          fp8.fp8_scaling = scaling;
          const double t8 = StepOf(w, fp8, gpu, layout, b);
          EXPECT_LE(t8, t16 * (1 + 1e-12)) << where;
          EXPECT_LT(t16 / t8, peak_ratio) << where;
        }
      });
}

// MXFP8 block scaling runs only where the tensor cores take block scales (Blackwell), and its
// casts (one fused pass, two FP8 copies with a scale per 32 elements) cost at least delayed
// scaling's and at most current scaling's (which reads the tensor once more for its amax).
TEST(TrainingV3PropertiesTest, Mxfp8RunsOnBlackwellOnlyAndCostsBetweenThePerTensorRecipes) {
  const GpuSpec b200 = B200();
  GpuSpec b300 = b200;
  b300.architecture = "Blackwell Ultra (2 dies)";
  GpuSpec mi300x = H100();
  mi300x.vendor = "AMD";
  mi300x.architecture = "CDNA3";
  EXPECT_TRUE(SupportsMicroscaling(b200));
  EXPECT_TRUE(SupportsMicroscaling(b300));
  EXPECT_FALSE(SupportsMicroscaling(H100()));
  EXPECT_FALSE(SupportsMicroscaling(mi300x));

  const Workload w = *FindPreset("llama-3-8b");
  TrainingJob mx = OptimizedJob(Precision::kFp8, 64);
  mx.fp8_scaling = Fp8Scaling::kMxfp8;
  Status hopper = ValidateJob(mx, w, H100());
  ASSERT_FALSE(hopper.ok());
  EXPECT_EQ(hopper.error().fields.at(0).id, (FieldId{Part::kJob, "fp8_scaling"}));
  EXPECT_EQ(hopper.error().refusal, Refusal::kPrecisionUnsupported);
  EXPECT_TRUE(ValidateJob(mx, w, b200).ok());
  TrainingJob bf16_mx = OptimizedJob(Precision::kBf16, 64);
  bf16_mx.fp8_scaling = Fp8Scaling::kMxfp8;  // fp8 only: a 16-bit job ignores it
  EXPECT_TRUE(ValidateJob(bf16_mx, w, H100()).ok());

  int strictly_between = 0;
  for (ParallelLayout layout : {ParallelLayout{1, 1, 8, 1}, ParallelLayout{8, 1, 1, 1},
                                ParallelLayout{2, 2, 2, 1}}) {
    for (int b : {1, 4}) {
      double t[3];
      int i = 0;
      for (Fp8Scaling s : {Fp8Scaling::kDelayed, Fp8Scaling::kMxfp8, Fp8Scaling::kCurrent}) {
        TrainingJob job = OptimizedJob(Precision::kFp8, 64 * b);
        job.fp8_scaling = s;
        t[i++] = StepTime(w, job, Node(b200, 8), layout, b, 8, DefaultConstants()).step_time_s;
      }
      EXPECT_LE(t[0], t[1]) << "tp " << layout.tensor << " b " << b;
      EXPECT_LE(t[1], t[2]) << "tp " << layout.tensor << " b " << b;
      if (t[0] < t[1] && t[1] < t[2]) ++strictly_between;
    }
  }
  EXPECT_GT(strictly_between, 0);
}

// NVFP4 runs only where the GPU has an FP4 tensor rate, for transformers on the optimized
// stack. On such a GPU a step never gains the FP4/FP8 peak ratio over FP8 (attention, head,
// norms, optimizer and the casts do not speed up), and is never slower than an FP8 step with
// current scaling (its casts read the tensor twice as well, but write half-byte copies). Against
// delayed FP8 scaling (one read) it can lose where the casts outweigh the GEMMs (a 1 B model
// split 8 ways), but wins on most layouts. Serving refuses it as a request error, on any GPU.
TEST(TrainingV3PropertiesTest, Nvfp4RunsWhereTheGpuHasFp4AndGainsLessThanThePeakRatio) {
  const GpuSpec b200 = B200();
  const double peak_ratio = b200.fp4_tflops / b200.fp8_tflops;
  EXPECT_EQ(ParsePrecision("nvfp4"), Precision::kNvfp4);
  EXPECT_EQ(PrecisionName(Precision::kNvfp4), "nvfp4");
  EXPECT_DOUBLE_EQ(PeakTflops(b200, Precision::kNvfp4), 9000);

  const Workload llama = *FindPreset("llama-3-8b");
  const TrainingJob fp4 = OptimizedJob(Precision::kNvfp4, 64);
  Status hopper = ValidateJob(fp4, llama, H100());
  ASSERT_FALSE(hopper.ok());
  EXPECT_EQ(hopper.error().fields.at(0).id, (FieldId{Part::kJob, "precision"}));
  EXPECT_EQ(hopper.error().refusal, Refusal::kPrecisionUnsupported);
  EXPECT_TRUE(ValidateJob(fp4, llama, b200).ok());
  GpuSpec fp4_only = b200;  // the recipe's attention and head need a 16-bit tensor rate
  fp4_only.fp16_tflops = fp4_only.bf16_tflops = 0;
  Status no_sixteen_bit = ValidateJob(fp4, llama, fp4_only);
  ASSERT_FALSE(no_sixteen_bit.ok());
  EXPECT_EQ(no_sixteen_bit.error().fields.at(0).id, (FieldId{Part::kJob, "precision"}));
  TrainingJob eager = fp4;
  eager.framework = Framework::kEager;
  Status no_recipe = ValidateJobRequest(eager, llama);
  ASSERT_FALSE(no_recipe.ok());
  EXPECT_EQ(no_recipe.error().fields.at(0).id, (FieldId{Part::kJob, "precision"}));
  EXPECT_FALSE(ValidateJobRequest(fp4, *FindPreset("resnet-50")).ok());
  // precision auto never picks the 4-bit recipe, and says so where the GPU has one.
  EXPECT_EQ(AutoTrainingPrecision(b200, Framework::kOptimized, llama, Fp8Scaling::kDelayed),
            Precision::kFp8);
  EXPECT_NE(
      AutoTrainingPrecisionAssumption(b200, Framework::kOptimized, llama, Fp8Scaling::kDelayed)
          .find("never picks nvfp4"),
      std::string::npos);

  int checked = 0, faster_than_delayed = 0;
  ForEachShapeAndLayout(
      {"mpt-1b", "mpt-7b", "llama-2-7b", "llama-3-8b", "llama-2-70b", "mixtral-8x7b", "qwen2.5-7b"},
      [&](const Workload& w, const ParallelLayout& layout, int b, const std::string& where) {
        TrainingJob current = OptimizedJob(Precision::kFp8, 64);
        current.fp8_scaling = Fp8Scaling::kCurrent;
        const double t4 = StepOf(w, OptimizedJob(Precision::kNvfp4, 64), b200, layout, b);
        const double t8 = StepOf(w, OptimizedJob(Precision::kFp8, 64), b200, layout, b);
        EXPECT_LE(t4, StepOf(w, current, b200, layout, b) * (1 + 1e-12)) << where;
        EXPECT_LT(t8 / t4, peak_ratio) << where;
        if (t4 < t8) ++faster_than_delayed;
        ++checked;
      });
  EXPECT_EQ(checked, 7 * 3 * 4 * 2);
  EXPECT_GT(faster_than_delayed, checked * 3 / 4) << faster_than_delayed;

  ServingRequest serve;
  serve.precision = Precision::kNvfp4;
  serve.input_tokens = 1000;
  serve.output_tokens = 100;
  Status serving = ValidateServingRequest(*FindPreset("llama-3-8b"), serve);
  ASSERT_FALSE(serving.ok());
  EXPECT_EQ(serving.error().fields.at(0).id, (FieldId{Part::kServing, "precision"}));
}

// What lets `precision: auto` skip the 16-bit estimate: no 16-bit estimate, whatever layout
// and micro-batch its search picks, is faster than SixteenBitStepLowerBound; and the bound
// is not vacuous (within 3x of the step of a GEMM-heavy job).
TEST(TrainingV3PropertiesTest, NoSixteenBitStepBeatsItsLowerBound) {
  int checked = 0;
  for (const GpuSpec& gpu : {H100(), testing::A100_80(), testing::V100(), testing::T4()}) {
    const std::string gpu_id = gpu.id;
    for (const char* id : {"bert-large", "gpt2-xl", "mpt-1b", "llama-3-8b", "mixtral-8x7b"}) {
      const auto preset = FindPreset(id);
      ASSERT_TRUE(preset) << id;
      for (int gpus : {1, 8, 16}) {
        for (Framework f : {Framework::kOptimized, Framework::kEager}) {
          for (int batch : {16, 256}) {
            TrainingJob job = OptimizedJob(Precision::kBf16, batch);
            job.framework = f;
            const Cluster cluster = Node(gpu, std::min(gpus, 8), std::max(1, gpus / 8));
            auto e = EstimateTraining(*preset, job, cluster, DefaultConstants(), false);
            if (!e.ok() || e->memory.verdict == FitVerdict::kDoesNotFit) continue;
            const double bound = SixteenBitStepLowerBound(*preset, job, cluster);
            EXPECT_GT(bound, 0) << id << " on " << gpu_id;
            EXPECT_LE(bound, e->step.step_time_s * (1 + 1e-12))
                << id << " on " << gpus << "x " << gpu_id << " batch " << batch;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 80);
  // Not vacuous: a large GEMM-bound step is within 3x of it.
  TrainingJob job = OptimizedJob(Precision::kBf16, 256);
  const Cluster one = Node(H100(), 8);
  auto e = EstimateTraining(*FindPreset("llama-3-8b"), job, one);
  ASSERT_TRUE(e.ok());
  EXPECT_GT(SixteenBitStepLowerBound(*FindPreset("llama-3-8b"), job, one) * 3, e->step.step_time_s);
}

TEST(TrainingV3PropertiesTest, InterleavingNeverIncreasesTheBubble) {
  const Cluster cluster = Node(H100(), 8, 4);
  for (const char* id : {"llama-2-7b", "llama-2-70b", "mpt-30b"}) {
    const Workload w = *FindPreset(id);
    for (int pp : {2, 4, 8}) {
      for (int b : {1, 2, 8}) {
        ParallelLayout layout{4, pp, 32 / (4 * pp), 1};
        layout.sequence_parallel = true;
        const TrainingJob job = OptimizedJob(Precision::kBf16, 64);
        double previous = INFINITY;
        for (int v : {1, 2, 4, 8}) {
          if (KernelLayers(w) % (pp * v) != 0) continue;
          layout.virtual_stages = v;
          const double bubble =
              StepTime(w, job, cluster, layout, b, 8, DefaultConstants()).breakdown.bubble_s;
          EXPECT_LE(bubble, previous) << id << " pp " << pp << " v " << v;
          previous = bubble;
        }
      }
    }
  }
}

TEST(TrainingV3PropertiesTest, ContextParallelismLowersActivationMemoryPerGpu) {
  for (const char* id : {"llama-2-7b", "llama-3-8b", "mpt-13b", "mixtral-8x7b"}) {
    Workload w = *FindPreset(id);
    w.seq_len = 32768;
    for (Checkpointing ck : {Checkpointing::kNone, Checkpointing::kFull}) {
      TrainingJob job = OptimizedJob(Precision::kBf16, 8);
      job.checkpointing = ck;
      double previous = INFINITY;
      for (int cp : {1, 2, 4, 8}) {
        ParallelLayout layout{1, 1, 8 / cp, 1};
        layout.context = cp;
        const double bytes = ActivationBytesPerGpu(w, job, layout, 1, 1, DefaultConstants());
        EXPECT_LT(bytes, previous) << id << " cp " << cp;
        previous = bytes;
      }
    }
  }
}

// A GB200 NVL72 rack: trays of 4 GPUs, 72 in one NVLink domain. 64 GPUs of it all-reduce over
// NVLink: as fast as one 64-GPU NVLink node, whatever the network between the trays.
TEST(TrainingV3PropertiesTest, AnNvl72JobOf64GpusCommunicatesWithinOneNvlinkDomain) {
  NodeSpec tray;
  tray.gpu = H100();
  tray.gpu.nvlink_bw_gbps = 1800;
  tray.gpus_per_node = 4;
  tray.interconnect = Interconnect::kNvlink;
  tray.nvlink_domain_gpus = 72;
  NodeSpec one_node = tray;
  one_node.gpus_per_node = 64;
  one_node.nvlink_domain_gpus = 0;
  const double bytes = 2 * 7e9;
  const ModelConstants& c = DefaultConstants();
  for (double network : {100.0, 400.0, 3200.0}) {
    tray.network_gbps = network;
    EXPECT_DOUBLE_EQ(AllReduceSeconds(bytes, 4, 16, tray, c), AllReduceSeconds(bytes, 64, 1, one_node, c));
  }
  // Without the domain the trays talk over the network, and it is slower.
  NodeSpec separate = tray;
  separate.nvlink_domain_gpus = 0;
  separate.network_gbps = 400;
  EXPECT_GT(AllReduceSeconds(bytes, 4, 16, separate, c), 2 * AllReduceSeconds(bytes, 4, 16, tray, c));
  // The training step of a 64-GPU data-parallel job does not depend on the network either.
  Cluster rack{tray, 16};
  const Workload w = *FindPreset("llama-2-7b");
  TrainingJob job = OptimizedJob(Precision::kBf16, 256);
  job.tensor_parallel = 1;
  job.pipeline_parallel = 1;
  job.context_parallel = 1;
  job.zero_stage = 3;
  rack.node.network_gbps = 100;
  auto slow = EstimateTraining(w, job, rack, c, false);
  rack.node.network_gbps = 3200;
  auto fast = EstimateTraining(w, job, rack, c, false);
  ASSERT_TRUE(slow.ok() && fast.ok());
  EXPECT_DOUBLE_EQ(slow->step.step_time_s, fast->step.step_time_s);
  // Two racks: the second domain is across the network.
  Cluster two_racks{tray, 36};
  two_racks.node.network_gbps = 100;
  job.global_batch = 288;
  auto across = EstimateTraining(w, job, two_racks, c, false);
  two_racks.node.network_gbps = 3200;
  auto across_fast = EstimateTraining(w, job, two_racks, c, false);
  ASSERT_TRUE(across.ok() && across_fast.ok());
  EXPECT_GT(across->step.step_time_s, across_fast->step.step_time_s);
}

}  // namespace
}  // namespace gpuplan::model
