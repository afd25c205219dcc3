#include <algorithm>
#include <map>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "db/serving_calibration_data.h"
#include "model/serving_calibration.h"
#include "server/calibrate_command.h"

namespace gpuplan::server {

namespace {

std::string Pct(double v) {
  if (v < 0) return "-";
  std::string b = fmt::format("{:.1f}", v);
  return b;
}

void PrintGroups(const char* heading, const std::vector<model::ServingErrorGroup>& groups,
                 const model::ServingErrorGroup& overall, std::ostream& out) {
  std::string line = fmt::format("{:<24} {:>5} {:>10} {:>10} {:>12}\n", heading, "rows", "TTFT %",
                                 "TPOT %", "throughput %");
  out << line;
  for (const auto& g : groups) {
    line = fmt::format("{:<24} {:5} {:>10} {:>10} {:>12}\n", g.name.c_str(), g.rows,
                       Pct(g.median_ttft).c_str(), Pct(g.median_tpot).c_str(),
                       Pct(g.median_throughput).c_str());
    out << line;
  }
  line = fmt::format("{:<24} {:5} {:>10} {:>10} {:>12}\n", "ALL (median |error|)", overall.rows,
                     Pct(overall.median_ttft).c_str(), Pct(overall.median_tpot).c_str(),
                     Pct(overall.median_throughput).c_str());
  out << line;
}

// The median over groups of each group's median error: what "per held-out group" means.
void PrintMedianOfGroups(const char* what, const std::vector<model::ServingErrorGroup>& groups,
                         std::ostream& out) {
  auto median = [&](double model::ServingErrorGroup::*field) {
    std::vector<double> v;
    for (const auto& g : groups) {
      if (g.*field >= 0) v.push_back(g.*field);
    }
    if (v.empty()) return -1.0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  std::string line = fmt::format(
      "{}: median over held-out groups of the median |error|: TTFT {} %, TPOT {} %, "
      "throughput {} %\n",
      what, Pct(median(&model::ServingErrorGroup::median_ttft)).c_str(),
      Pct(median(&model::ServingErrorGroup::median_tpot)).c_str(),
      Pct(median(&model::ServingErrorGroup::median_throughput)).c_str());
  out << line;
}

void PrintRows(const model::ServingCalibrationReport& r, std::ostream& out) {
  for (const auto& row : r.rows) {
    std::string line = fmt::format(
        "  {:<64} {:<18} measured {:10.2f} predicted {:10.2f} {:+7.1f}%\n", row.run->label.c_str(),
        std::string(model::ServingMetricClass(row.measured.metric)).c_str(), row.measured.value,
        row.predicted, row.error_pct);
    out << line;
  }
}

}  // namespace

int RunServingCalibrate(const CalibrateOptions& options, std::ostream& out) {
  auto data = db::LoadEmbeddedServingCalibrationData();
  if (!data.ok()) {
    out << "cannot load serving calibration data: " << data.error().message << "\n";
    return 1;
  }
  size_t rows = 0, fitted = 0;
  std::map<std::string, int> not_fitted;
  for (const auto& run : data->runs) {
    for (const auto& m : run.measurements) {
      ++rows;
      fitted += m.fitted;
      if (!m.fitted) ++not_fitted[m.not_fitted_reason];
    }
  }
  out << "serving_calibration.csv: " << data->runs.size() << " runs, " << rows << " figures ("
      << fitted << " fitted), " << data->skipped.size() << " rows skipped\n";
  std::map<std::string, int> skipped;
  for (const auto& s : data->skipped) ++skipped[s.reason];
  for (const auto& [why, n] : skipped) out << "  skipped (" << n << " rows): " << why << "\n";
  for (const auto& [why, n] : not_fitted) out << "  reported, not fitted (" << n << "): " << why << "\n";
  const auto& profiles = model::EngineProfiles();
  std::vector<model::ServingCalibrationReport> reports;
  if (options.fit) {
    reports = model::FitServing(data->runs);
  } else {
    for (const model::EngineProfile& p : profiles) {
      reports.push_back(model::EvaluateServing(data->runs, std::string(p.version), p.shipped));
    }
  }
  std::vector<model::ServingCalibrationReport> cv;
  if (options.cross_validate) cv = model::CrossValidateServing(data->runs);
  for (size_t i = 0; i < profiles.size(); ++i) {
    const model::EngineProfile& profile = profiles[i];
    const model::ServingCalibrationReport& report = reports[i];
    out << "\n######## engine " << profile.name << " " << profile.version << " ########\n";
    out << "== " << (options.fit ? "fitted" : "shipped")
        << " constants, error on the calibration runs ==\n";
    PrintGroups("model", report.by_model, report.overall, out);
    PrintGroups("gpu", report.by_gpu, report.overall, out);
    if (options.rows) PrintRows(report, out);
    out << "constants (value; prior; bounds; * = shared by every family):\n";
    int at_bound = 0;
    for (int c = 0; c < model::kFittedEngineConstants; ++c) {
      const model::EngineConstantSpec& s = profile.constants[c];
      double v = report.constants.*(s.field);
      bool bound = v <= s.lo * 1.0001 || v >= s.hi * 0.9999;
      at_bound += bound;
      std::string line =
          fmt::format("  {:<22}{} {:<11.4g} prior {:<9.4g} [{:g}, {:g}]{}\n", s.name,
                      s.shared ? "*" : " ", v, s.prior, s.lo, s.hi, bound ? "  AT BOUND" : "");
      out << line;
    }
    out << "constants at a bound: " << at_bound << "\n";
    if (options.cross_validate) {
      const model::ServingCalibrationReport& held = cv[i];
      out << "== leave-one-model-out: each model predicted by a fit without it ==\n";
      PrintGroups("held-out model", held.by_model, held.overall, out);
      out << "== leave-one-GPU-out: each GPU predicted by a fit without it ==\n";
      PrintGroups("held-out gpu", held.by_gpu, held.overall_gpu_out, out);
      PrintMedianOfGroups("leave-one-model-out", held.by_model, out);
      PrintMedianOfGroups("leave-one-GPU-out", held.by_gpu, out);
      if (options.rows) PrintRows(held, out);
    }
  }
  return 0;
}

}  // namespace gpuplan::server
