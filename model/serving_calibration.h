// Calibrating an engine's iteration constants on published serving benchmark runs: each run
// (model, GPU, tensor parallel, engine settings, request stream) is simulated
// (serving_simulation.h) and its published figures (TTFT, TPOT, throughput) compared.
// Fit: coordinate descent on the mean absolute log error (each metric class weighted equally)
// plus a weak log-space prior penalty, within each constant's bounds. Deterministic; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "model/hardware.h"
#include "model/serving_engine.h"
#include "model/serving_iteration.h"
#include "model/serving_simulation.h"
#include "model/workload.h"

namespace gpuplan::model {

enum class ServingMetric {
  kTtftMean, kTtftMedian, kTpotMean, kTpotMedian, kItlMedian, kOutputTokensPerS,
  kRequestsPerS, kDuration,
};
// "ttft_ms_mean", ..., as the calibration file names them; nullopt for others.
std::optional<ServingMetric> ParseServingMetric(std::string_view name);
// What the error report groups metrics into: "ttft", "tpot", "throughput".
std::string_view ServingMetricClass(ServingMetric m);

struct ServingMeasurement {
  ServingMetric metric;
  double value = 0;  // ms for TTFT/TPOT/ITL, per second for rates, s for durations
  bool fitted = true;
  std::string not_fitted_reason;
};

// One published benchmark run.
struct ServingRun {
  std::string id, label, model_group, gpu_group;
  Workload workload;
  NodeSpec node;
  int tensor_parallel = 1;
  Precision precision = Precision::kBf16;
  WeightQuantization quantization = WeightQuantization::kNone;
  KvCacheDtype kv_cache = KvCacheDtype::kAuto;
  EngineConfig engine;
  SimulatedLoad load;
  std::vector<ServingMeasurement> measurements;
};

struct ServingPrediction {
  const ServingRun* run = nullptr;
  SimulationResult simulated;
  bool ok = false;  // false when the model does not fit or the engine refuses the setting
};

// Simulates `run` with constants `k` of its engine.
ServingPrediction PredictServingRun(const ServingRun& run, const EngineConstants& k,
                                    const ModelConstants& c = DefaultConstants());
// The predicted value of `m` in the units ServingMeasurement uses; 0 when not predicted.
double PredictedValue(const ServingPrediction& p, ServingMetric m);

struct ServingErrorGroup {
  std::string name;
  int rows = 0;
  double median_ttft = -1, median_tpot = -1, median_throughput = -1;  // |%|; -1 = no rows
};

struct ServingCalibrationReport {
  std::string version;  // engine version family ("v0", "v1")
  EngineConstants constants;
  std::vector<ServingErrorGroup> by_model, by_gpu;
  ServingErrorGroup overall;          // every row (cross-validation: held out by model)
  ServingErrorGroup overall_gpu_out;  // cross-validation: every row held out by GPU
  struct Row {
    const ServingRun* run;
    ServingMeasurement measured;
    double predicted;
    double error_pct;
  };
  std::vector<Row> rows;
};

// Scores `k` on the fitted measurements of `runs` whose engine version is `version`.
ServingCalibrationReport EvaluateServing(const std::vector<ServingRun>& runs,
                                         const std::string& version, const EngineConstants& k);

// Fits every family's eight constants from their priors, together: the GPU-side constants
// marked shared on every run, each family's host and API constants on its own runs. One
// report per engine profile, in EngineProfiles() order.
std::vector<ServingCalibrationReport> FitServing(const std::vector<ServingRun>& runs);

// Leave-one-model-out (by_model, overall) and leave-one-GPU-out (by_gpu, overall_gpu_out)
// errors: each group predicted by a joint fit without it. One report per engine profile.
std::vector<ServingCalibrationReport> CrossValidateServing(const std::vector<ServingRun>& runs);

}  // namespace gpuplan::model
