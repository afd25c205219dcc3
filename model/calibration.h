// Fitting the model's named constants to measured training throughputs, and the error
// report. Deterministic: the same points and start give the same fit.
#pragma once

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
};

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
  double mape = 0;  // over every point, %
  std::vector<ErrorGroup> by_family, by_gpu, by_model;
  std::vector<PointResult> points;
};

// Scores `c` on `points`, and fills sigma_by_family from the log residuals.
CalibrationReport Evaluate(const std::vector<CalibrationPoint>& points, const ModelConstants& c);

// Fits the constants marked "fitted" in constants.h by coordinate descent on the mean
// absolute log error, starting from `start`, then evaluates.
CalibrationReport Fit(const std::vector<CalibrationPoint>& points, const ModelConstants& start);

// Leave-one-model-out: for each model group, fits on the others and predicts it.
// Returns the report of those held-out predictions.
CalibrationReport CrossValidate(const std::vector<CalibrationPoint>& points,
                                const ModelConstants& start);

// The names and values of the fitted constants, in a stable order.
std::vector<std::pair<std::string, double>> FittedConstants(const ModelConstants& c);

}  // namespace gpuplan::model
