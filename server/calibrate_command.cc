#include "server/calibrate_command.h"

#include <cstdio>
#include <ostream>
#include <string>

#include "db/calibration_data.h"
#include "model/calibration.h"

namespace gpuplan::server {

namespace {

std::string Line(const char* format, const std::string& name, int rows, double mape) {
  char buffer[160];
  std::snprintf(buffer, sizeof(buffer), format, name.c_str(), rows, mape);
  return buffer;
}

void PrintReport(const model::CalibrationReport& r, const char* title, bool rows,
                 std::ostream& out) {
  out << "== " << title << " ==\n";
  for (const auto& [heading, groups] :
       {std::pair{"family", &r.by_family}, std::pair{"gpu", &r.by_gpu},
        std::pair{"model", &r.by_model}}) {
    char head[96];
    std::snprintf(head, sizeof(head), "%-22s %5s %9s\n", heading, "rows", "MAPE %");
    out << head;
    for (const auto& g : *groups) out << Line("%-22s %5d %9.1f\n", g.name, g.rows, g.mape);
  }
  char overall[96];
  std::snprintf(overall, sizeof(overall), "%-22s %5zu %9.1f\n", "OVERALL", r.points.size(),
                r.mape);
  out << overall;
  if (rows) {
    for (const auto& p : r.points) {
      char line[256];
      std::snprintf(line, sizeof(line), "  %-70s measured %10.1f predicted %10.1f  %+6.1f%%\n",
                    p.point->label.c_str(), p.point->measured, p.predicted, p.error_pct);
      out << line;
    }
  }
}

}  // namespace

int RunCalibrate(const CalibrateOptions& options, std::ostream& out) {
  auto data = db::LoadEmbeddedCalibrationData();
  if (!data.ok()) {
    out << "cannot load calibration data: " << data.error().message << "\n";
    return 1;
  }
  out << "calibration.csv: " << data->points.size() << " rows used, " << data->skipped.size()
      << " skipped\n";
  for (const auto& s : data->skipped) out << "  skipped line " << s.line << ": " << s.reason << "\n";
  const model::ModelConstants& shipped = model::DefaultConstants();
  model::CalibrationReport report =
      options.fit ? model::Fit(data->points, model::PriorConstants())
                  : model::Evaluate(data->points, shipped);
  PrintReport(report, options.fit ? "fitted constants, error on calibration.csv"
                                  : "shipped constants, error on calibration.csv",
              options.rows, out);
  out << "constants:\n";
  for (const auto& [name, value] : model::FittedConstants(report.constants)) {
    char line[96];
    std::snprintf(line, sizeof(line), "  %-28s %.6g\n", name.c_str(), value);
    out << line;
  }
  out << "sigma (log residual) by family:\n";
  for (const auto& [family, sigma] : report.constants.sigma_by_family) {
    char line[96];
    std::snprintf(line, sizeof(line), "  %-28s %.3f\n", std::string(model::FamilyName(family)).c_str(),
                  sigma);
    out << line;
  }
  if (options.cross_validate) {
    model::CalibrationReport held_out =
        model::CrossValidate(data->points, model::PriorConstants());
    PrintReport(held_out, "leave-one-model-out: each model predicted by a fit without it",
                options.rows, out);
  }
  return 0;
}

}  // namespace gpuplan::server
