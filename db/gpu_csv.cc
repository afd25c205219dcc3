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
    // "" or "n/a": no published list price.
    const std::string price = text("launch_price_usd");
    if (!price.empty() && price != "n/a") {
      auto value = ParseDouble(price);
      if (!value || !(*value > 0)) {
        return Error::Invalid("launch_price_usd", "line " + std::to_string(row.line) +
                                                      ": launch_price_usd is not a positive number");
      }
      g.launch_price_usd = *value;
    }
    const std::pair<const char*, double*> memory{"memory_gb", &g.memory_gb};
    std::vector<std::pair<const char*, double*>> fields = {memory};
    for (const model::GpuRateField& rate : model::kGpuRateFields) {
      fields.push_back({rate.name, &(g.*rate.field)});
    }
    for (const auto& [column, target] : fields) {
      if (!RateField(CsvTable::Field(row, col(column)), *target)) {
        return Error::Invalid(column, "line " + std::to_string(row.line) + ": " + column +
                                          " is not a non-negative number");
      }
    }
    Status valid = model::ValidateGpuSpec(g);
    if (!valid.ok()) {
      const Error& e = valid.error();
      return Error::Invalid(e.fields.empty() ? "id" : e.fields.front().id.name,
                            "line " + std::to_string(row.line) + ": " + e.message);
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace gpuplan::db
