#include "db/gpu_csv.h"

#include <string>

#include "db/text.h"

namespace gpuplan::db {

namespace {

// "n/a", "" -> 0; otherwise a non-negative number or an error.
bool RateField(std::string_view text, double& out) {
  text = Trim(text);
  if (text.empty() || text == "n/a") {
    out = 0;
    return true;
  }
  auto value = ParseDouble(text);
  if (!value || *value < 0) return false;
  out = *value;
  return true;
}

}  // namespace

Result<std::vector<model::GpuSpec>> ParseGpuCsv(const CsvTable& table) {
  for (const char* required : {"id", "name", "vendor", "memory_gb"}) {
    if (!table.Column(required)) {
      return Error::Invalid(required, std::string("missing column '") + required + "'");
    }
  }
  auto col = [&](const char* name) { return table.Column(name); };
  std::vector<model::GpuSpec> gpus;
  for (const CsvRow& row : table.rows()) {
    auto text = [&](const char* name) { return std::string(Trim(CsvTable::Field(row, col(name)))); };
    model::GpuSpec g;
    g.id = text("id");
    g.name = text("name");
    g.vendor = text("vendor");
    g.architecture = text("architecture");
    g.memory_type = text("memory_type");
    g.form_factor = text("form_factor");
    g.source = text("source");
    g.release_year = static_cast<int>(ParseInteger(text("release_year")).value_or(0));
    g.pcie_gen = static_cast<int>(ParseInteger(text("pcie_gen")).value_or(0));
    struct {
      const char* column;
      double* target;
    } rates[] = {{"memory_gb", &g.memory_gb},       {"memory_bw_gbps", &g.memory_bw_gbps},
                 {"fp64_tflops", &g.fp64_tflops},   {"fp32_tflops", &g.fp32_tflops},
                 {"tf32_tflops", &g.tf32_tflops},   {"fp16_tflops", &g.fp16_tflops},
                 {"bf16_tflops", &g.bf16_tflops},   {"fp8_tflops", &g.fp8_tflops},
                 {"int8_tops", &g.int8_tops},       {"nvlink_bw_gbps", &g.nvlink_bw_gbps},
                 {"tdp_w", &g.tdp_w}};
    for (const auto& rate : rates) {
      if (!RateField(CsvTable::Field(row, col(rate.column)), *rate.target)) {
        return Error::Invalid(rate.column, "line " + std::to_string(row.line) + ": " +
                                               rate.column + " is not a non-negative number");
      }
    }
    Status valid = model::ValidateGpuSpec(g);
    if (!valid.ok()) {
      const Error& e = valid.error();
      return Error::Invalid(e.fields.empty() ? "id" : e.fields.front().field,
                            "line " + std::to_string(row.line) + ": " + e.message);
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace gpuplan::db
