#include "model/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/training.h"

namespace gpuplan::model {

namespace {

struct Knob {
  const char* name;
  double ModelConstants::*field;
  double lo, hi;       // physical bounds
  double prior_sigma;  // log-space width of the prior around PriorConstants()
};

// The twelve fitted constants (constants.h), their physical bounds and prior widths.
const std::vector<Knob>& Knobs() {
  static const std::vector<Knob> knobs = {
      {"eta_16bit", &ModelConstants::eta_16bit, 0.2, 0.95, 0.3},
      {"eta_tf32", &ModelConstants::eta_tf32, 0.2, 0.95, 0.3},
      {"eta_fp32", &ModelConstants::eta_fp32, 0.3, 0.95, 0.3},
      {"eta_bw", &ModelConstants::eta_bw, 0.5, 0.95, 0.2},
      {"transformer_traffic_passes", &ModelConstants::transformer_traffic_passes, 2, 40, 0.7},
      {"cnn_traffic_passes", &ModelConstants::cnn_traffic_passes, 4, 60, 0.7},
      {"step_time_cv", &ModelConstants::step_time_cv, 0.002, 0.2, 1.0},
      {"sm_bytes_per_clock", &ModelConstants::sm_bytes_per_clock, 8, 128, 0.7},
      {"variable_length_cv", &ModelConstants::variable_length_cv, 0.005, 0.4, 1.0},
      {"eta_depthwise", &ModelConstants::eta_depthwise, 0.01, 0.8, 1.0},
      {"eta_attention", &ModelConstants::eta_attention, 0.1, 0.9, 0.5},
      {"eta_fp8_vs_16bit", &ModelConstants::eta_fp8_vs_16bit, 0.4, 1.0, 0.3},
  };
  return knobs;
}

// The fit's objective: mean absolute log error over the points, plus the log-space prior
// penalty sum(((ln c - ln prior) / sigma)^2) / 2, divided by the number of points so that
// data outweighs priors as rows accumulate.
double LogResidual(const CalibrationPoint& p, const ModelConstants& c,
                   const std::map<std::string, double>& levels) {
  double r = std::log(PredictThroughput(p, c) / p.measured);
  if (!p.ratio_group.empty()) {
    auto it = levels.find(p.ratio_group);
    if (it != levels.end()) r -= it->second;
  }
  return r;
}

std::vector<const CalibrationPoint*> Pointers(const std::vector<CalibrationPoint>& points) {
  std::vector<const CalibrationPoint*> out;
  for (const auto& p : points) out.push_back(&p);
  return out;
}

double Objective(const std::vector<CalibrationPoint>& points, const ModelConstants& c) {
  if (points.empty()) return 0;
  const auto levels = RatioGroupLevels(Pointers(points), c);
  double sum = 0;
  for (const auto& p : points) sum += std::fabs(LogResidual(p, c, levels));
  const ModelConstants prior = PriorConstants();
  double penalty = 0;
  for (const Knob& k : Knobs()) {
    double z = std::log(c.*(k.field) / prior.*(k.field)) / k.prior_sigma;
    penalty += 0.5 * z * z;
  }
  return (sum + penalty) / points.size();
}

std::vector<ErrorGroup> Group(const std::vector<PointResult>& results,
                              std::string (*key)(const CalibrationPoint&)) {
  std::map<std::string, std::pair<int, double>> acc;
  for (const auto& r : results) {
    auto& [n, sum] = acc[key(*r.point)];
    ++n;
    sum += std::fabs(r.error_pct);
  }
  std::vector<ErrorGroup> out;
  for (const auto& [name, v] : acc) out.push_back({name, v.first, v.second / v.first});
  return out;
}

// The report's error tables by family, GPU, model group and precision, from its points.
void GroupErrors(CalibrationReport& r) {
  r.by_family = Group(r.points, [](const CalibrationPoint& p) {
    return std::string(FamilyName(p.workload.family));
  });
  r.by_gpu = Group(r.points, [](const CalibrationPoint& p) { return p.cluster.node.gpu.id; });
  r.by_model = Group(r.points, [](const CalibrationPoint& p) { return p.model_group; });
  r.by_precision = Group(r.points, [](const CalibrationPoint& p) {
    return std::string(PrecisionName(p.job.precision));
  });
}

// Log-residual spread per family of the fitted rows in `results`, around zero (bias
// included), at least 0.05.
std::map<Family, double> SigmaByFamily(const std::vector<PointResult>& results) {
  std::map<Family, std::vector<double>> logs;
  for (const auto& r : results) {
    if (r.point->fitted) logs[r.point->workload.family].push_back(std::log(r.predicted / r.point->measured));
  }
  std::map<Family, double> out;
  for (const auto& [family, values] : logs) {
    double mean = 0, var = 0;
    for (double v : values) mean += v;
    mean /= values.size();
    for (double v : values) var += (v - mean) * (v - mean);
    out[family] = std::max(0.05, std::sqrt(var / values.size() + mean * mean));
  }
  return out;
}

}  // namespace

std::map<std::string, double> RatioGroupLevels(const std::vector<const CalibrationPoint*>& points,
                                               const ModelConstants& c) {
  std::map<std::string, std::vector<double>> logs;
  for (const CalibrationPoint* p : points) {
    if (!p->ratio_group.empty() && p->fitted) {
      logs[p->ratio_group].push_back(std::log(PredictThroughput(*p, c) / p->measured));
    }
  }
  std::map<std::string, double> levels;
  for (auto& [group, values] : logs) {
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    levels[group] = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }
  return levels;
}

double PredictThroughput(const CalibrationPoint& p, const ModelConstants& c) {
  // The row's own layout: data parallel over every GPU unless it states more (the MPT rows'
  // FSDP FULL_SHARD is ZeRO stage 3).
  const int tensor = std::max(1, p.job.tensor_parallel), pipeline = std::max(1, p.job.pipeline_parallel);
  const int context = std::max(1, p.job.context_parallel);
  ParallelLayout layout{tensor, pipeline, p.cluster.TotalGpus() / (tensor * pipeline * context),
                        std::max(0, p.job.zero_stage)};
  layout.context = context;
  int m = p.job.global_batch / (p.job.micro_batch * std::max(1, layout.data));
  StepResult step = StepTime(p.workload, p.job, p.cluster, layout, p.job.micro_batch,
                             std::max(1, m), c);
  return p.job.global_batch / step.step_time_s * p.units_per_sample;
}

CalibrationReport Evaluate(const std::vector<CalibrationPoint>& points, const ModelConstants& c) {
  CalibrationReport report;
  report.constants = c;
  double sum = 0;
  int fitted = 0;
  const auto levels = RatioGroupLevels(Pointers(points), c);
  for (const auto& p : points) {
    // Ratio-group rows are scored after their group's level (only ratios count).
    double predicted = p.measured * std::exp(LogResidual(p, c, levels));
    double err = (predicted - p.measured) / p.measured * 100;
    report.points.push_back({&p, predicted, err});
    if (!p.fitted) continue;  // listed in the groups, kept out of the overall and sigma
    sum += std::fabs(err);
    ++fitted;
  }
  report.mape = fitted == 0 ? 0 : sum / fitted;
  report.constants.sigma_by_family = SigmaByFamily(report.points);
  GroupErrors(report);
  return report;
}

std::vector<FittedConstant> FittedConstants(const ModelConstants& c) {
  std::vector<FittedConstant> out;
  const ModelConstants prior = PriorConstants();
  for (const Knob& k : Knobs()) {
    double v = c.*(k.field);
    out.push_back({k.name, v, prior.*(k.field), k.lo, k.hi,
                   v <= k.lo * 1.001 || v >= k.hi * 0.999});
  }
  return out;
}

CalibrationReport Fit(const std::vector<CalibrationPoint>& all, const ModelConstants& start) {
  std::vector<CalibrationPoint> points;
  for (const auto& p : all) {
    if (p.fitted) points.push_back(p);
  }
  ModelConstants c = start;
  double best = Objective(points, c);
  const double factors[] = {0.5, 0.7, 0.85, 0.93, 0.97, 0.99, 1.01, 1.03, 1.07, 1.15, 1.4, 2.0};
  for (int round = 0; round < 80; ++round) {
    bool improved = false;
    for (const Knob& k : Knobs()) {
      double original = c.*(k.field);
      double chosen = original;
      for (double f : factors) {
        double candidate = std::clamp(original * f, k.lo, k.hi);
        c.*(k.field) = candidate;
        double err = Objective(points, c);
        if (err < best - 1e-12) {
          best = err;
          chosen = candidate;
          improved = true;
        }
      }
      c.*(k.field) = chosen;
    }
    if (!improved) break;
  }
  return Evaluate(all, c);
}

CalibrationReport CrossValidate(const std::vector<CalibrationPoint>& points,
                                const ModelConstants& start, HoldOut hold_out) {
  auto key = [&](const CalibrationPoint& p) {
    return hold_out == HoldOut::kModel ? p.model_group : p.cluster.node.gpu.id;
  };
  std::set<std::string> groups;
  for (const auto& p : points) {
    if (p.fitted) groups.insert(key(p));
  }
  CalibrationReport held_out;
  held_out.constants = start;
  std::vector<PointResult> results;
  for (const std::string& group : groups) {
    std::vector<CalibrationPoint> train;
    for (const auto& p : points) {
      if (key(p) != group && p.fitted) train.push_back(p);
    }
    ModelConstants fitted = Fit(train, start).constants;
    // Ratio groups take their level from the training rows; a group held out whole is
    // scored on its ratios alone (its own level).
    auto levels = RatioGroupLevels(Pointers(train), fitted);
    std::vector<const CalibrationPoint*> held;
    for (const auto& p : points) {
      if (key(p) == group && p.fitted) held.push_back(&p);
    }
    for (const auto& [g, level] : RatioGroupLevels(held, fitted)) levels.emplace(g, level);
    for (const auto& p : points) {
      if (key(p) != group || !p.fitted) continue;
      double predicted = p.measured * std::exp(LogResidual(p, fitted, levels));
      results.push_back({&p, predicted, (predicted - p.measured) / p.measured * 100});
    }
  }
  double sum = 0;
  for (const auto& r : results) sum += std::fabs(r.error_pct);
  held_out.mape = results.empty() ? 0 : sum / results.size();
  held_out.points = results;
  held_out.constants.sigma_by_family = SigmaByFamily(results);
  GroupErrors(held_out);
  return held_out;
}

}  // namespace gpuplan::model
