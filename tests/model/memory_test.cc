#include "model/memory.h"

#include <gtest/gtest.h>

#include "model/training.h"
#include "model/workload_presets.h"
#include "tests/model/model_fixtures.h"

namespace gpuplan::model {
namespace {

using testing::A100_80;

TEST(MemoryTest, ZeroPaperExample7_5BOn64Gpus) {
  // Rajbhandari et al. 2020, Figure 1: 120 GB of model states -> 31.4 / 16.6 / 1.9 GB.
  const double expected[] = {120.0, 31.4, 16.6, 1.9};
  for (int stage = 0; stage <= 3; ++stage) {
    StateBytes b = ShardedStateBytes(7.5e9, ParallelLayout{1, 1, 64, stage}, Precision::kFp16,
                                     Optimizer::kAdam);
    double total_gb = (b.weights + b.gradients + b.optimizer) / 1e9;
    EXPECT_NEAR(total_gb, expected[stage], 0.05) << "stage " << stage;
  }
}

TEST(MemoryTest, MixedPrecisionAdamIsSixteenBytesPerParameter) {
  StateBytes b = ModelStateBytesPerParam(Precision::kBf16, Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(b.weights + b.gradients + b.optimizer, 16);
  StateBytes fp32 = ModelStateBytesPerParam(Precision::kFp32, Optimizer::kAdam);
  EXPECT_DOUBLE_EQ(fp32.weights + fp32.gradients + fp32.optimizer, 16);
  StateBytes sgd = ModelStateBytesPerParam(Precision::kFp32, Optimizer::kSgd);
  EXPECT_DOUBLE_EQ(sgd.weights + sgd.gradients + sgd.optimizer, 12);
}

TEST(MemoryTest, GrowsWithBatch) {
  for (const char* id : {"resnet-50", "bert-large", "llama-2-7b", "vit-l-16"}) {
    Workload w = *FindPreset(id);
    TrainingJob job;
    double previous = 0;
    for (int b : {1, 2, 4, 8, 16}) {
      double gb = TrainingMemory(w, job, ParallelLayout{}, b, 1, A100_80(), DefaultConstants())
                      .activations_gb;
      EXPECT_GT(gb, previous) << id << " batch " << b;
      previous = gb;
    }
  }
}

TEST(MemoryTest, CheckpointingSavesActivations) {
  Workload w = *FindPreset("llama-2-7b");
  TrainingJob job;
  double none = ActivationBytesPerGpu(w, job, ParallelLayout{}, 4, 1, DefaultConstants());
  job.checkpointing = Checkpointing::kSelective;
  double selective = ActivationBytesPerGpu(w, job, ParallelLayout{}, 4, 1, DefaultConstants());
  job.checkpointing = Checkpointing::kFull;
  double full = ActivationBytesPerGpu(w, job, ParallelLayout{}, 4, 1, DefaultConstants());
  // Memory-efficient attention keeps no attention probabilities, so selective recompute
  // (which recomputes exactly those) saves nothing; full checkpointing keeps layer inputs only.
  EXPECT_DOUBLE_EQ(selective, none);
  EXPECT_LT(full, none / 4);
}

// Issue 23: what fits does not depend on the speed profile (eager or optimized).
TEST(MemoryTest, FitDoesNotDependOnTheFramework) {
  for (const char* id : {"llama-2-7b", "bert-large", "vit-l-16"}) {
    Workload w = *FindPreset(id);
    TrainingJob eager, optimized;
    eager.framework = Framework::kEager;
    optimized.framework = Framework::kOptimized;
    for (int b : {1, 8, 64}) {
      MemoryBreakdown e = TrainingMemory(w, eager, ParallelLayout{}, b, 1, A100_80(), DefaultConstants());
      MemoryBreakdown o =
          TrainingMemory(w, optimized, ParallelLayout{}, b, 1, A100_80(), DefaultConstants());
      EXPECT_DOUBLE_EQ(e.total_gb, o.total_gb) << id << " at " << b;
      EXPECT_EQ(e.verdict, o.verdict) << id << " at " << b;
    }
  }
}

TEST(MemoryTest, SeventyBillionWithAdamDoesNotFitOne80GbGpu) {
  Workload w = *FindPreset("llama-2-70b");
  TrainingJob job;
  job.precision = Precision::kBf16;
  MemoryBreakdown m = TrainingMemory(w, job, ParallelLayout{}, 1, 1, A100_80(), DefaultConstants());
  EXPECT_EQ(m.verdict, FitVerdict::kDoesNotFit);
  EXPECT_GT(m.weights_gb + m.gradients_gb + m.optimizer_gb, 1000);
  EXPECT_EQ(MaxMicroBatch(w, job, ParallelLayout{}, 1, A100_80(), DefaultConstants(), 64), 0);
}

TEST(MemoryTest, SmallestLayoutFor70BShardsAcrossGpus) {
  Workload w = *FindPreset("llama-2-70b");
  TrainingJob job;
  job.framework = Framework::kOptimized;
  NodeSpec node;
  node.gpu = A100_80();
  node.gpus_per_node = 8;
  node.interconnect = Interconnect::kNvswitch;
  auto layout = SmallestFittingLayout(w, job, node, 256);
  ASSERT_TRUE(layout.has_value());
  // 70 B x 16 bytes = 1.1 TB of model states needs at least 16 GPUs of 80 GB.
  EXPECT_GE(layout->gpus, 16);
  EXPECT_NE(layout->memory.verdict, FitVerdict::kDoesNotFit);
  EXPECT_TRUE(layout->layout.zero_stage == 3 || layout->layout.tensor * layout->layout.pipeline > 1);
}

// MaxMicroBatch predicts from the line through micro-batches 1 and 2: it must give what a
// search over every micro-batch gives, for every family, layout, GPU and limit.
TEST(MemoryTest, MaxMicroBatchEqualsABruteForceSearch) {
  GpuSpec small = A100_80();
  small.memory_gb = 16;
  for (const char* id : {"resnet-50", "bert-large", "vit-l-16", "llama-2-7b", "gpt2-xl"}) {
    Workload w = *FindPreset(id);
    for (Checkpointing ck : {Checkpointing::kNone, Checkpointing::kFull}) {
      TrainingJob job;
      job.checkpointing = ck;
      for (const GpuSpec& gpu : {A100_80(), small}) {
        for (ParallelLayout layout : {ParallelLayout{}, ParallelLayout{2, 2, 2, 1},
                                      ParallelLayout{1, 4, 2, 3}}) {
          if (w.family == Family::kCnn && (layout.tensor > 1 || layout.pipeline > 1)) continue;
          for (int limit : {1, 2, 7, 64, 1000}) {
            int brute = 0;
            for (int b = 1; b <= limit; ++b) {
              if (TrainingMemory(w, job, layout, b, layout.pipeline, gpu, DefaultConstants())
                      .verdict != FitVerdict::kDoesNotFit) {
                brute = b;
              }
            }
            EXPECT_EQ(MaxMicroBatch(w, job, layout, layout.pipeline, gpu, DefaultConstants(), limit),
                      brute)
                << id << " limit " << limit << " tp " << layout.tensor << " pp " << layout.pipeline
                << " gpu " << gpu.memory_gb;
          }
        }
      }
    }
  }
}

TEST(MemoryTest, MaxMicroBatchIsTheLargestThatFits) {
  Workload w = *FindPreset("bert-large");
  TrainingJob job;
  int b = MaxMicroBatch(w, job, ParallelLayout{}, 1, A100_80(), DefaultConstants(), 4096);
  ASSERT_GT(b, 1);
  EXPECT_NE(TrainingMemory(w, job, ParallelLayout{}, b, 1, A100_80(), DefaultConstants()).verdict,
            FitVerdict::kDoesNotFit);
  EXPECT_EQ(TrainingMemory(w, job, ParallelLayout{}, b + 1, 1, A100_80(), DefaultConstants()).verdict,
            FitVerdict::kDoesNotFit);
}

}  // namespace
}  // namespace gpuplan::model
