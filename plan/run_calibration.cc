#include "plan/run_calibration.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuplan::plan {

Result<double> SamplesPerSecond(MeasuredUnit unit, double value, const model::Workload& w,
                                int global_batch) {
  switch (unit) {
    case MeasuredUnit::kSamplesPerS: return value;
    case MeasuredUnit::kTokensPerS:
      if (model::IsImage(w.family) || w.seq_len < 1) {
        return Error::Invalid({Part::kInput, "tokens_per_s"},
                              "tokens_per_s applies to workloads with a sequence length; give "
                              "samples_per_s or step_time_s");
      }
      return value / w.seq_len;
    case MeasuredUnit::kStepTimeS: return global_batch / value;
  }
  return value;
}

Result<RunPrediction> PredictRun(const HardwareResolver& hardware, const MeasuredRun& run) {
  auto hw = hardware.Resolve(run.hardware, PricingRequest{});
  if (!hw.ok()) return hw.error();
  model::TrainingJob job = run.job;
  job.samples = std::max(1.0, static_cast<double>(job.global_batch)) * 1000;  // any work
  job.epochs = 1;
  job.tokens = job.hours = 0;
  auto e = model::EstimateTraining(run.workload, job, hw->cluster, model::DefaultConstants(),
                                   false);
  if (!e.ok()) return e.error();
  if (e->memory.verdict == model::FitVerdict::kDoesNotFit) {
    return Error::Invalid({Part::kHardware, ""},
                          "the model says this run does not fit the GPUs' memory, "
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

std::optional<RunCalibration> Calibrate(const MeasuredRuns& runs, const std::string& gpu_id,
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

std::string CalibrationAssumption(const RunCalibration& c, const std::string& gpu_id,
                                  model::Family family) {
  return fmt::format(
      "calibrated by {} measured run(s) of {} ({} workloads): throughput x {:.4g}, the runs' "
      "mean ratio to the model moved {}/({}+{:g}) of the way from 1; error_after is "
      "leave-one-out; the step breakdown is the model's, before the correction",
      c.runs, gpu_id, model::FamilyName(family), c.factor, c.runs, c.runs,
      kMeasurementPriorRuns);
}

std::string CalibrationCapWarning(const RunCalibration& c) {
  if (c.runs_available <= c.runs) return "";
  return "calibrated by " + std::to_string(c.runs) + " of " + std::to_string(c.runs_available) +
         " measured runs that apply (at most " + std::to_string(kMaxRunsPerEstimate) +
         " per estimate): the caller's own runs first, then shared ones, each the most "
         "recently recorded first";
}


void ApplyCalibration(model::TrainingEstimate& e, const RunCalibration& c, bool fixed_duration) {
  const double f = c.factor;
  e.samples_per_s *= f;
  e.tokens_per_s *= f;
  e.mfu *= f;
  e.step.step_time_s /= f;
  if (fixed_duration) {
    for (double* v : {&e.steps, &e.total_samples, &e.total_tokens, &e.epochs,
                      &e.work_p10_samples, &e.work_p90_samples, &e.train_flops}) {
      *v *= f;
    }
  } else {
    e.total_hours /= f;
    e.p10_hours /= f;
    e.p90_hours /= f;
  }
}

}  // namespace gpuplan::plan
