#include "model/serving_calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/serving_load.h"

namespace gpuplan::model {

namespace {

// The published runs are benchmark streams of up to 12 000 requests; their rates and
// latencies settle within the first few hundred, so at most this many are simulated.
constexpr int kCalibrationRequests = 1200;

double Median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ServingErrorGroup Group(const std::string& name, const std::vector<const ServingCalibrationReport::Row*>& rows) {
  ServingErrorGroup g;
  g.name = name;
  g.rows = static_cast<int>(rows.size());
  std::map<std::string_view, std::vector<double>> by_class;
  for (const auto* r : rows) by_class[ServingMetricClass(r->measured.metric)].push_back(std::abs(r->error_pct));
  g.median_ttft = Median(by_class["ttft"]);
  g.median_tpot = Median(by_class["tpot"]);
  g.median_throughput = Median(by_class["throughput"]);
  return g;
}

void Summarize(ServingCalibrationReport& report) {
  std::map<std::string, std::vector<const ServingCalibrationReport::Row*>> models, gpus;
  std::vector<const ServingCalibrationReport::Row*> all;
  for (const auto& r : report.rows) {
    models[r.run->model_group].push_back(&r);
    gpus[r.run->gpu_group].push_back(&r);
    all.push_back(&r);
  }
  report.by_model.clear();
  report.by_gpu.clear();
  for (const auto& [name, rows] : models) report.by_model.push_back(Group(name, rows));
  for (const auto& [name, rows] : gpus) report.by_gpu.push_back(Group(name, rows));
  report.overall = Group("overall", all);
}

std::vector<const ServingRun*> RunsOf(const std::vector<ServingRun>& runs, const std::string& version) {
  std::vector<const ServingRun*> out;
  for (const ServingRun& r : runs) {
    if (r.engine.version != version) continue;
    bool any = false;
    for (const auto& m : r.measurements) any = any || m.fitted;
    if (any) out.push_back(&r);
  }
  return out;
}

// Mean absolute log error of the fitted measurements, each metric class weighted equally.
double Loss(const std::vector<const ServingRun*>& runs, const EngineConstants& k) {
  std::map<std::string_view, std::pair<double, int>> by_class;
  for (const ServingRun* run : runs) {
    ServingPrediction p = PredictServingRun(*run, k);
    for (const auto& m : run->measurements) {
      if (!m.fitted) continue;
      double pred = p.ok ? PredictedValue(p, m.metric) : 0;
      double err = pred > 0 && m.value > 0 ? std::abs(std::log(pred / m.value)) : 3.0;
      auto& [sum, n] = by_class[ServingMetricClass(m.metric)];
      sum += std::min(err, 3.0);
      ++n;
    }
  }
  double loss = 0;
  for (const auto& [cls, v] : by_class) loss += v.first / std::max(1, v.second);
  return loss / std::max<size_t>(1, by_class.size());
}

double Penalty(const EngineConstants& k, const EngineConstantSpec* specs) {
  double p = 0;
  for (int i = 0; i < kFittedEngineConstants; ++i) {
    double d = std::log(k.*(specs[i].field) / specs[i].prior);
    p += 0.005 * d * d;  // a weak prior: a factor e costs 0.5 % of mean log error
  }
  return p;
}

EngineConstants Fit(const std::vector<const ServingRun*>& runs, const EngineProfile& profile) {
  EngineConstants k = profile.shipped;
  for (int i = 0; i < kFittedEngineConstants; ++i) {
    k.*(profile.constants[i].field) = profile.constants[i].prior;
  }
  double best = Loss(runs, k) + Penalty(k, profile.constants);
  for (double step : {2.0, 1.4, 1.15, 1.05}) {
    for (int round = 0; round < 3; ++round) {
      bool improved = false;
      for (int i = 0; i < kFittedEngineConstants; ++i) {
        const EngineConstantSpec& s = profile.constants[i];
        for (double f : {step, 1 / step}) {
          EngineConstants t = k;
          t.*(s.field) = std::clamp(k.*(s.field) * f, s.lo, s.hi);
          if (t.*(s.field) == k.*(s.field)) continue;
          double loss = Loss(runs, t) + Penalty(t, profile.constants);
          if (loss < best - 1e-9) {
            best = loss;
            k = t;
            improved = true;
            break;
          }
        }
      }
      if (!improved) break;
    }
  }
  return k;
}

void AddRows(ServingCalibrationReport& report, const ServingRun& run, const EngineConstants& k) {
  ServingPrediction p = PredictServingRun(run, k);
  for (const auto& m : run.measurements) {
    if (!m.fitted) continue;
    double pred = p.ok ? PredictedValue(p, m.metric) : 0;
    report.rows.push_back({&run, m, pred, m.value > 0 ? (pred - m.value) / m.value * 100 : 0});
  }
}

}  // namespace

std::optional<ServingMetric> ParseServingMetric(std::string_view name) {
  static const std::pair<std::string_view, ServingMetric> kNames[] = {
      {"ttft_ms_mean", ServingMetric::kTtftMean}, {"ttft_ms_median", ServingMetric::kTtftMedian},
      {"tpot_ms_mean", ServingMetric::kTpotMean}, {"tpot_ms_median", ServingMetric::kTpotMedian},
      {"itl_ms_median", ServingMetric::kItlMedian},
      {"output_tok_per_s", ServingMetric::kOutputTokensPerS},
      {"request_per_s", ServingMetric::kRequestsPerS}, {"latency_s_batch", ServingMetric::kDuration},
  };
  for (const auto& [n, m] : kNames) {
    if (n == name) return m;
  }
  return std::nullopt;
}

std::string_view ServingMetricClass(ServingMetric m) {
  switch (m) {
    case ServingMetric::kTtftMean:
    case ServingMetric::kTtftMedian: return "ttft";
    case ServingMetric::kTpotMean:
    case ServingMetric::kTpotMedian:
    case ServingMetric::kItlMedian: return "tpot";
    default: return "throughput";
  }
}

ServingPrediction PredictServingRun(const ServingRun& run, const EngineConstants& k,
                                    const ModelConstants& c) {
  ServingPrediction p;
  p.run = &run;
  int request_tokens = static_cast<int>(run.load.mean_input + run.load.mean_output);
  auto engine = ResolveEngine(run.engine, run.node.gpu, run.workload.max_context,
                              std::min(request_tokens, run.engine.max_model_len.value_or(1 << 30)),
                              nullptr);
  if (!engine.ok()) return p;
  ReplicaShape shape = MakeReplicaShape(run.workload, run.node, run.tensor_parallel, run.precision,
                                        run.quantization, run.kv_cache, c);
  double kv = KvCapacityTokens(shape, run.node.gpu, *engine, k);
  if (kv < 1) return p;
  SimulatedLoad load = run.load;
  load.requests = std::min(load.requests, kCalibrationRequests);
  if (load.rate > 0) load.warmup_share = 0.1;
  p.simulated = SimulateServing(shape, *engine, k, kv, load);
  p.ok = p.simulated.duration_s > 0;
  return p;
}

double PredictedValue(const ServingPrediction& p, ServingMetric m) {
  const SimulationResult& s = p.simulated;
  switch (m) {
    case ServingMetric::kTtftMean: return s.ttft_s.mean * 1e3;
    case ServingMetric::kTtftMedian: return s.ttft_s.p50 * 1e3;
    case ServingMetric::kTpotMean: return s.tpot_s.mean * 1e3;
    case ServingMetric::kTpotMedian: return s.tpot_s.p50 * 1e3;
    case ServingMetric::kItlMedian: return s.itl_median_s * 1e3;
    case ServingMetric::kOutputTokensPerS: return s.output_tokens_per_s;
    case ServingMetric::kRequestsPerS: return s.requests_per_s;
    case ServingMetric::kDuration: return s.duration_s;
  }
  return 0;
}

ServingCalibrationReport EvaluateServing(const std::vector<ServingRun>& runs,
                                         const std::string& version, const EngineConstants& k) {
  ServingCalibrationReport report;
  report.version = version;
  report.constants = k;
  for (const ServingRun* run : RunsOf(runs, version)) AddRows(report, *run, k);
  Summarize(report);
  return report;
}

ServingCalibrationReport FitServing(const std::vector<ServingRun>& runs, const std::string& version) {
  const EngineProfile* profile = FindEngineProfile("vllm", version);
  if (!profile) return {};
  return EvaluateServing(runs, version, Fit(RunsOf(runs, version), *profile));
}

ServingCalibrationReport CrossValidateServing(const std::vector<ServingRun>& runs,
                                              const std::string& version) {
  ServingCalibrationReport report;
  report.version = version;
  const EngineProfile* profile = FindEngineProfile("vllm", version);
  if (!profile) return report;
  std::vector<const ServingRun*> mine = RunsOf(runs, version);
  auto held_out = [&](auto key) {
    std::set<std::string> groups;
    for (const ServingRun* r : mine) groups.insert(key(*r));
    ServingCalibrationReport part;
    for (const std::string& g : groups) {
      std::vector<const ServingRun*> train;
      for (const ServingRun* r : mine) {
        if (key(*r) != g) train.push_back(r);
      }
      if (train.empty()) continue;  // nothing to fit on: not predicted
      EngineConstants k = Fit(train, *profile);
      for (const ServingRun* r : mine) {
        if (key(*r) == g) AddRows(part, *r, k);
      }
    }
    Summarize(part);
    return part;
  };
  ServingCalibrationReport by_model = held_out([](const ServingRun& r) { return r.model_group; });
  ServingCalibrationReport by_gpu = held_out([](const ServingRun& r) { return r.gpu_group; });
  report.rows = by_model.rows;
  report.by_model = by_model.by_model;
  report.by_gpu = by_gpu.by_gpu;
  report.overall = by_model.overall;
  return report;
}

}  // namespace gpuplan::model
