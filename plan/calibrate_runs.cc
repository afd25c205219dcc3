// Planner::Predict and Planner::Calibrate: measured runs against the model, and the
// correction they give later estimates of the same GPU and workload family. Calibrate reads
// predictions made once per catalog generation (plan/measured_runs.h), never re-predicts.
#include <algorithm>
#include <cmath>

#include "plan/planner.h"

namespace gpuplan::plan {

Result<RunPrediction> Planner::Predict(const MeasuredRun& run) {
  auto hw = Resolve(run.hardware, PricingRequest{});
  if (!hw.ok()) return hw.error();
  model::TrainingJob job = run.job;
  job.samples = std::max(1.0, static_cast<double>(job.global_batch)) * 1000;  // any work
  job.epochs = 1;
  job.tokens = job.hours = 0;
  auto e = model::EstimateTraining(run.workload, job, hw->cluster, model::DefaultConstants(),
                                   false);
  if (!e.ok()) return e.error();
  if (e->memory.verdict == model::FitVerdict::kDoesNotFit) {
    return Error::Invalid("hardware", "the model says this run does not fit the GPUs' memory, "
                                      "so it cannot compare it with a prediction");
  }
  RunPrediction p;
  p.gpu_id = hw->cluster.node.gpu.id;
  p.gpus_per_node = hw->cluster.node.gpus_per_node;
  p.nodes = hw->cluster.nodes;
  p.predicted_samples_per_s = e->samples_per_s;
  p.precision = e->precision;
  return p;
}

namespace {

// exp of the mean log ratio over n runs, moved n / (n + prior) of the way from 1, bounded.
double Correction(double sum_log, int n) {
  if (n <= 0) return 1;
  double f = std::exp(sum_log / (n + kMeasurementPriorRuns));
  return std::clamp(f, 1 / kMaxMeasurementCorrection, kMaxMeasurementCorrection);
}

}  // namespace

std::optional<RunCalibration> Planner::Calibrate(const MeasuredRuns& runs,
                                                const std::string& gpu_id,
                                                model::Family family) {
  if (!runs.index) return std::nullopt;
  RunSelection chosen = runs.index->Select(runs.owner, family, gpu_id, kMaxRunsPerEstimate);
  if (chosen.runs.empty()) return std::nullopt;
  RunCalibration c;
  c.runs = static_cast<int>(chosen.runs.size());
  c.runs_available = static_cast<int>(chosen.available);
  double sum_log = 0;
  for (const PredictedRun& run : chosen.runs) {
    c.ids.push_back(run.id);
    sum_log += std::log(run.measured_over_predicted);
  }
  c.factor = Correction(sum_log, c.runs);
  for (const PredictedRun& run : chosen.runs) {
    double r = run.measured_over_predicted;
    c.error_before += std::abs(1 / r - 1);
    double others = Correction(sum_log - std::log(r), c.runs - 1);
    c.error_after += std::abs(others / r - 1);
  }
  c.error_before /= c.runs;
  c.error_after /= c.runs;
  return c;
}

}  // namespace gpuplan::plan
