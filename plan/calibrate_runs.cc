// Planner::Predict and Planner::Calibrate: measured runs against the model, and the
// correction they give later estimates of the same GPU and workload family.
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

Result<std::optional<RunCalibration>> Planner::Calibrate(const std::vector<MeasuredRun>& runs,
                                                         const std::string& gpu_id,
                                                         model::Family family) {
  std::vector<double> ratios;  // measured / predicted
  RunCalibration c;
  for (const MeasuredRun& run : runs) {
    if (run.workload.family != family) continue;
    auto p = Predict(run);
    // A run the catalog or model no longer takes (its GPU deleted, say) does not count.
    if (!p.ok()) {
      if (p.error().code == ErrorCode::kUnavailable) return p.error();
      continue;
    }
    if (p->gpu_id != gpu_id || !(p->predicted_samples_per_s > 0)) continue;
    ratios.push_back(run.samples_per_s / p->predicted_samples_per_s);
    c.ids.push_back(run.id);
  }
  if (ratios.empty()) return std::optional<RunCalibration>();
  c.runs = static_cast<int>(ratios.size());
  double sum_log = 0;
  for (double r : ratios) sum_log += std::log(r);
  c.factor = Correction(sum_log, c.runs);
  for (double r : ratios) {
    c.error_before += std::abs(1 / r - 1);
    double others = Correction(sum_log - std::log(r), c.runs - 1);
    c.error_after += std::abs(others / r - 1);
  }
  c.error_before /= c.runs;
  c.error_after /= c.runs;
  return std::optional<RunCalibration>(c);
}

}  // namespace gpuplan::plan
