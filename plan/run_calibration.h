// Measured runs against the model: what it predicts for a run someone timed, and the
// correction the runs of one GPU and workload family give later estimates of them
// (shrunk toward 1 by kMeasurementPriorRuns, bounded by kMaxMeasurementCorrection).
// Calibrate reads predictions made once per catalog generation (plan/measured_runs.h) and
// never re-predicts. Pure functions but PredictRun (which reads the resolver's catalog).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/enum_names.h"
#include "model/training.h"
#include "model/workload.h"
#include "plan/hardware.h"
#include "plan/measured_runs.h"
#include "plan/requests.h"

namespace gpuplan::plan {

// The correction measured runs of the same GPU and workload family apply to an estimate.
struct RunCalibration {
  int runs = 0;            // the runs used (at most kMaxRunsPerEstimate)
  int runs_available = 0;  // the runs that apply, before that cap
  std::vector<long long> ids;
  double factor = 1;        // measured / predicted throughput, shrunk toward 1
  double error_before = 0;  // mean |predicted / measured - 1| over the runs
  double error_after = 0;   // the same with the correction fitted on the other runs
};

// A measured run re-predicted with the current model.
struct RunPrediction {
  std::string gpu_id;
  int gpus_per_node = 1, nodes = 1;
  double predicted_samples_per_s = 0;
  model::Precision precision = model::Precision::kBf16;
};

// How a run's speed was measured: samples per second, tokens per second (workloads with a
// sequence length) or seconds per step of global_batch_size samples.
enum class MeasuredUnit { kSamplesPerS, kTokensPerS, kStepTimeS };
// Their names in requests and stored rows.
inline constexpr model::EnumNames<MeasuredUnit, 3> kMeasuredUnitNames = {
    {{"samples_per_s", MeasuredUnit::kSamplesPerS},
     {"tokens_per_s", MeasuredUnit::kTokensPerS},
     {"step_time_s", MeasuredUnit::kStepTimeS}}};
// The measured values a run may state are in [kMinMeasuredValue, MaxMeasuredValue(unit)]:
// 1e12 samples/s, 1e15 tokens/s, 1e7 s per step.
inline constexpr double kMinMeasuredValue = 1e-9;
constexpr double MaxMeasuredValue(MeasuredUnit unit) {
  switch (unit) {
    case MeasuredUnit::kSamplesPerS: return 1e12;
    case MeasuredUnit::kTokensPerS: return 1e15;
    case MeasuredUnit::kStepTimeS: return 1e7;
  }
  return 0;
}

// A measured speed `value` in `unit` as samples per second, for workload `w` trained at
// `global_batch` samples per step. kInvalidArgument (naming the unit) for tokens per second
// of a workload without a sequence length; `value` must be > 0.
Result<double> SamplesPerSecond(MeasuredUnit unit, double value, const model::Workload& w,
                                int global_batch);

// What the model predicts for a measured run (its hardware resolved: errors name
// hardware fields, the job's "precision", "global_batch_size"...; kInvalidArgument on the
// hardware as a whole when the run does not fit the GPUs' memory).
Result<RunPrediction> PredictRun(const HardwareResolver& hardware, const MeasuredRun& run);

// The correction the runs of GPU `gpu_id` and `family` in `runs` give (nullopt: none
// applies), from at most kMaxRunsPerEstimate of them (MeasuredRunIndex::Select).
std::optional<RunCalibration> Calibrate(const MeasuredRuns& runs, const std::string& gpu_id,
                                        model::Family family);

// Scales `e` by the correction: the rate by its factor, and so the time (or, for a fixed
// duration, the work) by it.
void ApplyCalibration(model::TrainingEstimate& e, const RunCalibration& c, bool fixed_duration);

// What the correction is, in words, for assumptions; and the warning when the cap of
// kMaxRunsPerEstimate left runs out (empty when none were).
std::string CalibrationAssumption(const RunCalibration& c, const std::string& gpu_id,
                                  model::Family family);
std::string CalibrationCapWarning(const RunCalibration& c);

}  // namespace gpuplan::plan
