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
  double lo, hi;
};

const std::vector<Knob>& Knobs() {
  static const std::vector<Knob> knobs = {
      {"eta_fp32", &ModelConstants::eta_fp32, 0.05, 0.95},
      {"eta_tf32", &ModelConstants::eta_tf32, 0.05, 0.95},
      {"eta_16bit", &ModelConstants::eta_16bit, 0.05, 0.95},
      {"eta_bw", &ModelConstants::eta_bw, 0.3, 0.95},
      {"transformer_traffic_passes", &ModelConstants::transformer_traffic_passes, 0.5, 40},
      {"cnn_traffic_passes", &ModelConstants::cnn_traffic_passes, 0.5, 40},
      {"cpu_step_overhead_s", &ModelConstants::cpu_step_overhead_s, 1e-4, 0.2},
      {"cpu_layer_overhead_s", &ModelConstants::cpu_layer_overhead_s, 1e-5, 0.02},
      {"link_efficiency", &ModelConstants::link_efficiency, 0.4, 0.9},
      {"dp_overlap", &ModelConstants::dp_overlap, 0.0, 1.0},
      {"rnn_efficiency", &ModelConstants::rnn_efficiency, 0.05, 1.0},
      {"fp32_traffic_factor", &ModelConstants::fp32_traffic_factor, 1.0, 4.0},
      {"dp_sync_fraction", &ModelConstants::dp_sync_fraction, 0.0, 0.3},
      {"optimizer_bytes_per_param", &ModelConstants::optimizer_bytes_per_param, 16, 200},
  };
  return knobs;
}

double MeanAbsLogError(const std::vector<CalibrationPoint>& points, const ModelConstants& c) {
  double sum = 0;
  for (const auto& p : points) sum += std::fabs(std::log(PredictThroughput(p, c) / p.measured));
  return points.empty() ? 0 : sum / points.size();
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

}  // namespace

double PredictThroughput(const CalibrationPoint& p, const ModelConstants& c) {
  ParallelLayout layout{1, 1, p.cluster.TotalGpus(), 0};
  int m = p.job.global_batch / (p.job.micro_batch * p.cluster.TotalGpus());
  StepResult step = StepTime(p.workload, p.job, p.cluster, layout, p.job.micro_batch,
                             std::max(1, m), c);
  return p.job.global_batch / step.step_time_s * p.units_per_sample;
}

std::vector<std::pair<std::string, double>> FittedConstants(const ModelConstants& c) {
  std::vector<std::pair<std::string, double>> out;
  for (const Knob& k : Knobs()) out.push_back({k.name, c.*(k.field)});
  return out;
}

CalibrationReport Evaluate(const std::vector<CalibrationPoint>& points, const ModelConstants& c) {
  CalibrationReport report;
  report.constants = c;
  std::map<Family, std::vector<double>> logs;
  double sum = 0;
  for (const auto& p : points) {
    double predicted = PredictThroughput(p, c);
    double err = (predicted - p.measured) / p.measured * 100;
    report.points.push_back({&p, predicted, err});
    sum += std::fabs(err);
    logs[p.workload.family].push_back(std::log(predicted / p.measured));
  }
  report.mape = points.empty() ? 0 : sum / points.size();
  report.constants.sigma_by_family.clear();
  for (const auto& [family, values] : logs) {
    double mean = 0, var = 0;
    for (double v : values) mean += v;
    mean /= values.size();
    for (double v : values) var += (v - mean) * (v - mean);
    // Residual spread around zero (bias included), at least 0.05.
    report.constants.sigma_by_family[family] =
        std::max(0.05, std::sqrt(var / values.size() + mean * mean));
  }
  report.by_family = Group(report.points, [](const CalibrationPoint& p) {
    return std::string(FamilyName(p.workload.family));
  });
  report.by_gpu = Group(report.points,
                        [](const CalibrationPoint& p) { return p.cluster.node.gpu.id; });
  report.by_model = Group(report.points, [](const CalibrationPoint& p) { return p.model_group; });
  return report;
}

CalibrationReport Fit(const std::vector<CalibrationPoint>& points, const ModelConstants& start) {
  ModelConstants c = start;
  double best = MeanAbsLogError(points, c);
  const double factors[] = {0.5, 0.7, 0.85, 0.93, 0.97, 0.99, 1.01, 1.03, 1.07, 1.15, 1.4, 2.0};
  for (int round = 0; round < 60; ++round) {
    bool improved = false;
    for (const Knob& k : Knobs()) {
      double original = c.*(k.field);
      double chosen = original;
      for (double f : factors) {
        double candidate = std::clamp(original * f, k.lo, k.hi);
        if (original == 0) candidate = std::clamp(0.01 * f, k.lo, k.hi);
        c.*(k.field) = candidate;
        double err = MeanAbsLogError(points, c);
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
  return Evaluate(points, c);
}

CalibrationReport CrossValidate(const std::vector<CalibrationPoint>& points,
                                const ModelConstants& start) {
  std::set<std::string> groups;
  for (const auto& p : points) groups.insert(p.model_group);
  CalibrationReport held_out;
  held_out.constants = start;
  std::vector<PointResult> results;
  for (const std::string& group : groups) {
    std::vector<CalibrationPoint> train;
    for (const auto& p : points) {
      if (p.model_group != group) train.push_back(p);
    }
    ModelConstants fitted = Fit(train, start).constants;
    for (const auto& p : points) {
      if (p.model_group != group) continue;
      double predicted = PredictThroughput(p, fitted);
      results.push_back({&p, predicted, (predicted - p.measured) / p.measured * 100});
    }
  }
  double sum = 0;
  for (const auto& r : results) sum += std::fabs(r.error_pct);
  held_out.mape = results.empty() ? 0 : sum / results.size();
  held_out.points = results;
  held_out.by_family = Group(results, [](const CalibrationPoint& p) {
    return std::string(FamilyName(p.workload.family));
  });
  held_out.by_gpu = Group(results, [](const CalibrationPoint& p) { return p.cluster.node.gpu.id; });
  held_out.by_model = Group(results, [](const CalibrationPoint& p) { return p.model_group; });
  return held_out;
}

}  // namespace gpuplan::model
