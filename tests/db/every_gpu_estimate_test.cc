// Every GPU of the seed catalog gets a finite, positive training estimate (or a 4xx-class
// error naming the field): a GPU without some rate must never yield an infinite throughput
// or a zero step (review of issue 25: fused attention divided by a missing 16-bit rate).
#include <gtest/gtest.h>

#include <cmath>

#include "db/csv.h"
#include "db/gpu_csv.h"
#include "db/seed_files.h"
#include "model/training.h"
#include "model/workload_presets.h"

namespace gpuplan::db {
namespace {

std::vector<model::GpuSpec> SeedGpus() {
  for (const SeedFile& f : SeedFiles()) {
    if (f.name != "gpus.csv") continue;
    auto table = ParseCsv(f.content);
    EXPECT_TRUE(table.ok());
    auto gpus = ParseGpuCsv(*table);
    EXPECT_TRUE(gpus.ok());
    return *gpus;
  }
  return {};
}

TEST(EveryGpuEstimateTest, StepsAreFiniteAndPositiveOnEveryCatalogGpu) {
  const std::vector<model::GpuSpec> gpus = SeedGpus();
  ASSERT_GE(gpus.size(), 40u);
  int estimated = 0;
  for (const model::GpuSpec& gpu : gpus) {
    for (const char* id : {"gpt2", "llama-2-7b", "bert-large", "resnet-50", "mpt-1b"}) {
      for (model::Framework framework : {model::Framework::kAuto, model::Framework::kEager}) {
        model::TrainingJob job;
        job.samples = 1e6;
        job.global_batch = 64;
        job.precision_auto = true;
        job.framework = framework;
        model::Cluster cluster;
        cluster.node.gpu = gpu;
        cluster.node.gpus_per_node = 8;
        cluster.node.interconnect = model::DefaultInterconnect(gpu, 8);
        auto e = model::EstimateTraining(*model::FindPreset(id), job, cluster,
                                         model::DefaultConstants(), false);
        if (!e.ok()) {
          EXPECT_EQ(e.error().code, ErrorCode::kInvalidArgument) << gpu.id << " " << id;
          EXPECT_FALSE(e.error().fields.empty()) << gpu.id << " " << id;
          continue;
        }
        ++estimated;
        EXPECT_TRUE(std::isfinite(e->step.step_time_s) && e->step.step_time_s > 0)
            << gpu.id << " " << id << " step " << e->step.step_time_s;
        EXPECT_TRUE(std::isfinite(e->samples_per_s) && e->samples_per_s > 0) << gpu.id << " " << id;
        EXPECT_TRUE(std::isfinite(e->mfu) && e->mfu > 0 && e->mfu < 1) << gpu.id << " " << id;
      }
    }
  }
  EXPECT_GT(estimated, 300);
}

}  // namespace
}  // namespace gpuplan::db
