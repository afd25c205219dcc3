#include "db/flat_csv_parser.h"

#include <map>
#include <optional>

#include "db/field_rules.h"
#include "db/text.h"

namespace gpuplan::db {

namespace {

bool IsIsoDate(const std::string& text) { return rules::ParseTimestamp(text).has_value(); }

struct FlatColumns {
  std::optional<size_t> cloud, region, zone, instance_type, gpu, gpu_count, vcpus, memory_gib,
      price_ondemand, price_spot, currency, price_date, source;
};

}  // namespace

Result<CatalogBatch> ParseFlatInstanceCsv(const CsvTable& table, const GpuResolver& resolver) {
  FlatColumns c{table.Column("cloud"),          table.Column("region"),
                table.Column("zone"),           table.Column("instance_type"),
                table.Column("gpu"),            table.Column("gpu_count"),
                table.Column("vcpus"),          table.Column("memory_gib"),
                table.Column("price_ondemand"), table.Column("price_spot"),
                table.Column("currency"),       table.Column("price_date"),
                table.Column("source")};
  const std::pair<const char*, std::optional<size_t>> required[] = {
      {"cloud", c.cloud},         {"region", c.region},
      {"instance_type", c.instance_type}, {"gpu", c.gpu},
      {"gpu_count", c.gpu_count}, {"price_ondemand", c.price_ondemand},
      {"currency", c.currency},   {"price_date", c.price_date}};
  for (const auto& [name, column] : required) {
    if (!column) return Error::Invalid(name, std::string("missing column '") + name + "'");
  }

  CatalogBatch batch;
  ImportReport& report = batch.report;
  std::map<std::pair<std::string, std::string>, size_t> type_index;
  for (const CsvRow& row : table.rows()) {
    ++report.rows_read;
    auto field = [&](std::optional<size_t> col) {
      return std::string(Trim(CsvTable::Field(row, col)));
    };
    auto reject = [&](const std::string& reason) { report.Reject(row.line, reason); };
    std::string cloud = field(c.cloud), id = field(c.instance_type), gpu_name = field(c.gpu);
    if (cloud.empty()) { reject("cloud is empty"); continue; }
    if (id.empty()) { reject("instance_type is empty"); continue; }
    auto count = ParseInteger(field(c.gpu_count));
    if (!count || *count <= 0) { reject("gpu_count must be a positive integer"); continue; }
    std::optional<double> numbers[4];
    const std::pair<const char*, std::optional<size_t>> numeric[4] = {
        {"vcpus", c.vcpus}, {"memory_gib", c.memory_gib},
        {"price_ondemand", c.price_ondemand}, {"price_spot", c.price_spot}};
    bool bad = false;
    for (int i = 0; i < 4 && !bad; ++i) {
      std::string text = field(numeric[i].second);
      if (text.empty()) continue;
      numbers[i] = ParseDouble(text);
      bool positive_required = i < 2;
      if (!numbers[i] || (positive_required ? *numbers[i] <= 0 : *numbers[i] < 0)) {
        reject(std::string(numeric[i].first) + " '" + text + "' is not a valid number");
        bad = true;
      }
    }
    if (bad) continue;
    auto resolved = resolver.Resolve(cloud, gpu_name);
    if (resolved.outcome != GpuResolver::Outcome::kResolved) {
      report.Skip((resolved.outcome == GpuResolver::Outcome::kUnknown ? "unknown accelerator: "
                                                                      : "not a supported GPU: ") +
                  gpu_name);
      continue;
    }
    std::string region = field(c.region), currency = field(c.currency);
    std::string date = field(c.price_date), source = field(c.source);
    bool has_price = numbers[2] || numbers[3];
    if (has_price && region.empty()) { reject("a price needs a region"); continue; }
    if (has_price && (currency.size() != 3)) { reject("currency must be an ISO 4217 code"); continue; }
    if (has_price && !IsIsoDate(date)) { reject("price_date must be an ISO 8601 date"); continue; }

    ++report.rows_used;
    auto [slot, inserted] = type_index.try_emplace({cloud, id}, batch.instance_types.size());
    if (inserted) {
      InstanceType type;
      type.cloud = cloud;
      type.id = id;
      type.gpu_id = resolved.gpu->id;
      type.gpu_count = static_cast<int>(*count);
      type.vcpus = numbers[0];
      type.memory_gib = numbers[1];
      type.interconnect = "";
      type.accelerator_name = gpu_name;
      type.source = source;
      DeriveInterconnect(*resolved.gpu, type);
      batch.instance_types.push_back(std::move(type));
    }
    std::string zone = field(c.zone);
    if (numbers[2]) {
      batch.prices.push_back({cloud, id, region, "", "ondemand", *numbers[2], currency, date, source});
    }
    if (numbers[3]) {
      batch.prices.push_back({cloud, id, region, zone, "spot", *numbers[3], currency, date, source});
      if (numbers[2] && *numbers[3] > *numbers[2]) ++report.spot_above_ondemand;
    }
  }
  return batch;
}

}  // namespace gpuplan::db
