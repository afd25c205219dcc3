// JSON renderings of model results (training estimates, memory, layouts), shared by the
// HTTP API and the CLI's --json output.
#pragma once

#include <nlohmann/json.hpp>

#include "model/hardware.h"
#include "model/memory.h"
#include "model/training.h"
#include "model/workload.h"

namespace gpuplan::api {

nlohmann::json WorkloadJson(const model::Workload& w);
nlohmann::json MemoryJson(const model::MemoryBreakdown& m, int max_micro_batch);
nlohmann::json LayoutJson(const model::ParallelLayout& layout);
// The model's part of a training estimate (no prices): throughput, step time and its
// breakdown, bottleneck, MFU, scaling, memory, time with P10-P90, assumptions, warnings.
nlohmann::json TrainingEstimateJson(const model::TrainingEstimate& e, const model::Workload& w,
                                    const model::Cluster& cluster,
                                    const model::TrainingJob& job);

inline constexpr const char* kModelVersion = "gpuplan-model 1 (calibrated 2026-11-22)";

}  // namespace gpuplan::api
