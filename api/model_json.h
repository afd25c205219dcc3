// JSON renderings of model results (workloads, training estimates, memory, layouts),
// shared by the HTTP API and the CLI's --json output. Written through a JsonWriter, in the
// order the functions list them.
#pragma once

#include <string>

#include "api/json_writer.h"
#include "model/hardware.h"
#include "model/memory.h"
#include "model/training.h"
#include "model/workload.h"

namespace gpuplan::api {

// A workload as an object: its shape and the FLOPs it implies.
void WriteWorkload(JsonWriter& out, const model::Workload& w);
std::string WorkloadJson(const model::Workload& w);
void WriteLayout(JsonWriter& out, const model::ParallelLayout& layout);
// The model's part of a training estimate (no prices), as members of an object the caller
// has begun: hardware, precision, batch and layout, throughput, step time and its
// breakdown, bottleneck, MFU, scaling, memory, smallest fitting layout, time with P10-P90.
// The estimate's assumptions and warnings are left to the caller, which merges its own.
// Not `runnable` (the job does not fit): throughput, step time, MFU and time are null.
void WriteTrainingEstimateMembers(JsonWriter& out, const model::TrainingEstimate& e,
                                  const model::Cluster& cluster, const model::TrainingJob& job,
                                  bool runnable = true);

inline constexpr const char* kModelVersion = "gpuplan-model 1 (calibrated 2026-11-22)";

}  // namespace gpuplan::api
