#include "model/serving_calibration.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <thread>
#include <map>
#include <set>

#include "model/serving_load.h"

namespace gpuplan::model {

namespace {

// The published runs are benchmark streams of up to 12 000 requests; their rates and
// latencies settle within the first hundred or two, so at most this many are simulated.
constexpr int kCalibrationRequests = 400;

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

// The runs with a fitted figure, of `version` ("" = every version).
std::vector<const ServingRun*> RunsOf(const std::vector<ServingRun>& runs, const std::string& version) {
  std::vector<const ServingRun*> out;
  for (const ServingRun& r : runs) {
    if (!version.empty() && r.engine.version != version) continue;
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

// One fitted parameter: a constant of one family, or a shared one written to every family.
struct Parameter {
  const EngineConstantSpec* spec;
  std::vector<std::string> versions;  // the families it is written to
};

using Constants = std::map<std::string, EngineConstants>;

std::vector<Parameter> Parameters() {
  std::vector<Parameter> out;
  std::vector<std::string> all;
  for (const EngineProfile& p : EngineProfiles()) all.push_back(std::string(p.version));
  bool first = true;
  for (const EngineProfile& p : EngineProfiles()) {
    for (int i = 0; i < kFittedEngineConstants; ++i) {
      const EngineConstantSpec& s = p.constants[i];
      if (s.shared && !first) continue;  // one parameter for every family
      out.push_back({&s, s.shared ? all : std::vector<std::string>{std::string(p.version)}});
    }
    first = false;
  }
  return out;
}

double Get(const Constants& k, const Parameter& p) { return k.at(p.versions[0]).*(p.spec->field); }
void Set(Constants& k, const Parameter& p, double v) {
  for (const std::string& version : p.versions) k[version].*(p.spec->field) = v;
}

// The families' losses averaged, plus a weak log-space prior on every parameter.
double Objective(const std::map<std::string, std::vector<const ServingRun*>>& runs,
                 const Constants& k, const std::vector<Parameter>& params) {
  double loss = 0;
  int families = 0;
  for (const auto& [version, list] : runs) {
    if (list.empty()) continue;
    loss += Loss(list, k.at(version));
    ++families;
  }
  loss /= std::max(1, families);
  for (const Parameter& p : params) {
    double d = std::log(Get(k, p) / p.spec->prior);
    loss += 0.005 * d * d;  // a factor e from the prior costs 0.5 % of mean log error
  }
  return loss;
}

// Coordinate descent in log space from the priors, within the bounds.
Constants Fit(const std::map<std::string, std::vector<const ServingRun*>>& runs) {
  const std::vector<Parameter> params = Parameters();
  Constants k;
  for (const EngineProfile& p : EngineProfiles()) k[std::string(p.version)] = p.shipped;
  for (const Parameter& p : params) Set(k, p, p.spec->prior);
  double best = Objective(runs, k, params);
  for (double step : {2.0, 1.4, 1.15, 1.05}) {
    for (int round = 0; round < 3; ++round) {
      bool improved = false;
      for (const Parameter& p : params) {
        for (double f : {step, 1 / step}) {
          Constants t = k;
          double v = std::clamp(Get(k, p) * f, p.spec->lo, p.spec->hi);
          if (v == Get(k, p)) continue;
          Set(t, p, v);
          double loss = Objective(runs, t, params);
          if (loss < best - 1e-9) {
            best = loss;
            k = std::move(t);
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

std::map<std::string, std::vector<const ServingRun*>> ByVersion(const std::vector<const ServingRun*>& runs) {
  std::map<std::string, std::vector<const ServingRun*>> out;
  for (const EngineProfile& p : EngineProfiles()) out[std::string(p.version)];
  for (const ServingRun* r : runs) {
    if (out.count(r->engine.version)) out[r->engine.version].push_back(r);
  }
  return out;
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

std::vector<ServingCalibrationReport> FitServing(const std::vector<ServingRun>& runs) {
  Constants k = Fit(ByVersion(RunsOf(runs, "")));
  std::vector<ServingCalibrationReport> out;
  for (const EngineProfile& p : EngineProfiles()) {
    const std::string version(p.version);
    out.push_back(EvaluateServing(runs, version, k.at(version)));
  }
  return out;
}

std::vector<ServingCalibrationReport> CrossValidateServing(const std::vector<ServingRun>& runs) {
  const std::vector<const ServingRun*> all = RunsOf(runs, "");
  // Held-out predictions of every group by `key`, per family.
  auto held_out = [&](auto key) {
    std::map<std::string, ServingCalibrationReport> parts;
    std::set<std::string> group_set;
    for (const ServingRun* r : all) group_set.insert(key(*r));
    const std::vector<std::string> groups(group_set.begin(), group_set.end());
    // The folds' fits are independent: run them on every core, then collect in order.
    std::vector<std::optional<Constants>> fits(groups.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < groups.size(); i = next++) {
        std::vector<const ServingRun*> train;
        for (const ServingRun* r : all) {
          if (key(*r) != groups[i]) train.push_back(r);
        }
        if (!train.empty()) fits[i] = Fit(ByVersion(train));  // else not predicted
      }
    };
    std::vector<std::thread> threads;
    const unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 8));
    for (unsigned t = 0; t < n; ++t) threads.emplace_back(work);
    for (std::thread& t : threads) t.join();
    for (size_t i = 0; i < groups.size(); ++i) {
      if (!fits[i]) continue;
      for (const ServingRun* r : all) {
        if (key(*r) == groups[i]) AddRows(parts[r->engine.version], *r, fits[i]->at(r->engine.version));
      }
    }
    for (auto& [version, part] : parts) Summarize(part);
    return parts;
  };
  auto by_model = held_out([](const ServingRun& r) { return r.model_group; });
  auto by_gpu = held_out([](const ServingRun& r) { return r.gpu_group; });
  std::vector<ServingCalibrationReport> out;
  for (const EngineProfile& p : EngineProfiles()) {
    const std::string version(p.version);
    ServingCalibrationReport report;
    report.version = version;
    report.rows = by_model[version].rows;
    report.by_model = by_model[version].by_model;
    report.by_gpu = by_gpu[version].by_gpu;
    report.overall = by_model[version].overall;
    report.overall_gpu_out = by_gpu[version].overall;
    out.push_back(std::move(report));
  }
  return out;
}

}  // namespace gpuplan::model
