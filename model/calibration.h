// Fitting the model's named constants to measured training throughputs, and the error
// report. Deterministic: the same points and start give the same fit.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/constants.h"
#include "model/hardware.h"
#include "model/training_job.h"
#include "model/workload.h"

namespace gpuplan::model {

// One published measurement: a workload trained data-parallel on `cluster` with
// micro-batch `job.micro_batch` per GPU, measured at `measured` units per second in total.
struct CalibrationPoint {
  std::string label;  // e.g. "ResNet-50 v1.5 / A100-80GB-SXM4 x8 / fp16"
  std::string model_group;  // what the error table groups by, e.g. "ResNet-50 v1.5"
  Workload workload;
  Cluster cluster;
  TrainingJob job;
  double measured = 0;          // units per second, all GPUs together
  double units_per_sample = 1;  // tokens per sample when `measured` counts tokens
  // False for rows reported but kept out of the fit and its cross-validation, with the
  // reason (docs/model.md: implementation overheads the spec-based model cannot see).
  bool fitted = true;
  std::string not_fitted_reason;
  // Rows whose absolute level the source says is not the GPU's (Lambda's ResNet-50 runs
  // use their own data loader): only ratios between the rows of this group count. Each
  // group's level is the median log residual of its rows in the fit (a nuisance scale,
  // not a model constant); held out, it comes from the group's training rows.
  std::string ratio_group;
};

// Median of log(predicted / measured) per ratio group over `points` (rows without a group
// are not included).
std::map<std::string, double> RatioGroupLevels(const std::vector<const CalibrationPoint*>& points,
                                               const ModelConstants& c);

// Predicted units per second of `point` with constants `c` (no memory check).
double PredictThroughput(const CalibrationPoint& point, const ModelConstants& c);

struct ErrorGroup {
  std::string name;
  int rows = 0;
  double mape = 0;  // mean absolute percentage error, %
};

struct PointResult {
  const CalibrationPoint* point = nullptr;
  double predicted = 0;
  double error_pct = 0;  // (predicted - measured) / measured, %
};

struct CalibrationReport {
  ModelConstants constants;
  double mape = 0;  // over the fitted points, %
  std::vector<ErrorGroup> by_family, by_gpu, by_model, by_precision;
  std::vector<PointResult> points;
};

// Scores `c` on `points`, and fills sigma_by_family from the log residuals.
CalibrationReport Evaluate(const std::vector<CalibrationPoint>& points, const ModelConstants& c);

// Fits the ten constants marked "fitted" in constants.h by coordinate descent on the mean
// absolute log error plus a log-space prior penalty (within physical bounds), starting
// from `start`, then evaluates.
CalibrationReport Fit(const std::vector<CalibrationPoint>& points, const ModelConstants& start);

// What a cross-validation fold holds out: every row of one model group, or of one GPU.
enum class HoldOut { kModel, kGpu };

// For each model group (or GPU), fits on the other rows and predicts the held-out ones.
// Returns the report of those held-out predictions.
CalibrationReport CrossValidate(const std::vector<CalibrationPoint>& points,
                                const ModelConstants& start, HoldOut hold_out);

// A fitted constant's value in `c`, its prior, its physical bounds, and whether the value
// sits at a bound (a defect the docs must explain).
struct FittedConstant {
  std::string name;
  double value = 0, prior = 0, lo = 0, hi = 0;
  bool at_bound = false;
};
// The ten fitted constants of `c`, in a stable order.
std::vector<FittedConstant> FittedConstants(const ModelConstants& c);

}  // namespace gpuplan::model
