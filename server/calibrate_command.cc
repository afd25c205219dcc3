#include "server/calibrate_command.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <map>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "db/calibration_data.h"
#include "model/calibration.h"

namespace gpuplan::server {

namespace {

void PrintSigma(const std::map<model::Family, double>& sigma, std::ostream& out) {
  for (const auto& [family, value] : sigma) {
    std::string line =
        fmt::format("  {:<28} {:.3f}\n", std::string(model::FamilyName(family)).c_str(), value);
    out << line;
  }
}

void PrintReport(const model::CalibrationReport& r, const char* title, bool rows,
                 std::ostream& out) {
  out << "== " << title << " ==\n";
  for (const auto& [heading, groups] :
       {std::pair{"family", &r.by_family}, std::pair{"gpu", &r.by_gpu},
        std::pair{"model", &r.by_model}, std::pair{"precision", &r.by_precision}}) {
    std::string head = fmt::format("{:<22} {:>5} {:>9}\n", heading, "rows", "MAPE %");
    out << head;
    for (const auto& g : *groups)
      out << fmt::format("{:<22} {:5} {:9.1f}\n", g.name, g.rows, g.mape);
  }
  size_t fitted = 0;
  for (const auto& p : r.points) fitted += p.point->fitted;
  std::string overall =
      fmt::format("{:<22} {:5} {:9.1f}\n", "OVERALL (fitted rows)", fitted, r.mape);
  out << overall;
  if (rows) {
    for (const auto& p : r.points) {
      std::string line =
          fmt::format("  {:<70} measured {:10.1f} predicted {:10.1f}  {:+6.1f}%\n",
                      p.point->label.c_str(), p.point->measured, p.predicted, p.error_pct);
      out << line;
    }
  }
}

// The MAPE of the fitted rows of `r` whose model group starts with `prefix` (and, when
// `precision` is given, of that precision), and the largest |error| among them.
struct SubsetError {
  int rows = 0;
  double mape = 0, worst = 0;
};
SubsetError ErrorOf(const model::CalibrationReport& r, const std::string& prefix,
                    std::optional<model::Precision> precision = std::nullopt) {
  SubsetError e;
  for (const auto& p : r.points) {
    if (!p.point->fitted || p.point->model_group.rfind(prefix, 0) != 0) continue;
    if (precision && p.point->job.precision != *precision) continue;
    ++e.rows;
    e.mape += std::fabs(p.error_pct);
    e.worst = std::max(e.worst, std::fabs(p.error_pct));
  }
  if (e.rows > 0) e.mape /= e.rows;
  return e;
}

}  // namespace

int RunCalibrate(const CalibrateOptions& options, std::ostream& out) {
  auto data = db::LoadEmbeddedCalibrationData();
  if (!data.ok()) {
    out << "cannot load calibration data: " << data.error().message << "\n";
    return 1;
  }
  out << "calibration.csv + calibration_more.csv + llm_training_mpt.csv: " << data->points.size() << " rows used, "
      << data->skipped.size() << " skipped\n";
  for (const auto& s : data->skipped) out << "  skipped line " << s.line << ": " << s.reason << "\n";
  std::map<std::string, int> not_fitted;
  for (const auto& p : data->points) {
    if (!p.fitted) ++not_fitted[p.model_group + ": " + p.not_fitted_reason];
  }
  for (const auto& [why, rows] : not_fitted) {
    out << "  reported, not fitted (" << rows << " rows) " << why << "\n";
  }
  const model::ModelConstants& shipped = model::DefaultConstants();
  model::CalibrationReport report =
      options.fit ? model::Fit(data->points, model::PriorConstants())
                  : model::Evaluate(data->points, shipped);
  PrintReport(report, options.fit ? "fitted constants, error on the calibration rows"
                                  : "shipped constants, error on the calibration rows",
              options.rows, out);
  out << "constants (fitted; prior; bounds):\n";
  int at_bound = 0;
  for (const auto& k : model::FittedConstants(report.constants)) {
    std::string line =
        fmt::format("  {:<28} {:<11.5g} prior {:<9.4g} [{:g}, {:g}]{}\n", k.name.c_str(), k.value,
                    k.prior, k.lo, k.hi, k.at_bound ? "  AT BOUND" : "");
    out << line;
    at_bound += k.at_bound;
  }
  out << "constants at a bound: " << at_bound << "\n";
  out << "sigma (log residual) by family:\n";
  PrintSigma(report.constants.sigma_by_family, out);
  if (options.cross_validate) {
    model::CalibrationReport by_model =
        model::CrossValidate(data->points, model::PriorConstants(), model::HoldOut::kModel);
    PrintReport(by_model, "leave-one-model-out: each model predicted by a fit without it",
                options.rows, out);
    {
      // Each MPT size is its own model group: leave-one-model-out holds out one size.
      const SubsetError mpt = ErrorOf(by_model, "MPT-");
      const SubsetError fp8 = ErrorOf(by_model, "", model::Precision::kFp8);
      std::string line = fmt::format(
          "leave-one-MPT-size-out: MAPE {:.1f} % over {} MPT rows; FP8 rows held out "
          "with their size: MAPE {:.1f} %, worst {:.1f} % ({} rows)\n",
          mpt.mape, mpt.rows, fp8.mape, fp8.worst, fp8.rows);
      out << line;
    }
    out << "sigma of the held-out log residuals by family (the shipped p10-p90 width):\n";
    PrintSigma(by_model.constants.sigma_by_family, out);
    model::CalibrationReport by_gpu =
        model::CrossValidate(data->points, model::PriorConstants(), model::HoldOut::kGpu);
    PrintReport(by_gpu, "leave-one-GPU-out: each GPU predicted by a fit without it",
                options.rows, out);
    std::string line = fmt::format(
        "cross-validation MAPE: leave-one-model-out {:.1f} %, leave-one-GPU-out {:.1f} %\n",
        by_model.mape, by_gpu.mape);
    out << line;
  }
  return 0;
}

}  // namespace gpuplan::server
