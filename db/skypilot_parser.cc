#include "db/skypilot_parser.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>

#include "db/catalog_caps.h"
#include "db/field_rules.h"
#include "db/text.h"

namespace gpuplan::db {

namespace {

using ZoneKey = std::tuple<std::string, std::string, std::string>;  // name, region, zone

struct Columns {
  std::optional<size_t> instance_type, accelerator, count, vcpus, memory, price, spot, region,
      zone, arch;
};

struct PricedRow {
  int line = 0;
  std::optional<double> ondemand;
  std::optional<double> spot;
  std::optional<double> vcpus;
  std::optional<double> memory_gib;
  std::string arch;
  bool used = false;
};

struct BundleKey {
  std::string accelerator;
  int count;
  std::string region, zone;
  auto operator<=>(const BundleKey&) const = default;
};

// Collects offers and turns them into instance types and price observations.
class OfferCollector {
 public:
  explicit OfferCollector(const SkypilotOptions& options) : options_(options) {}

  void Add(InstanceType type, const std::string& region, const std::string& zone,
           std::optional<double> ondemand, std::optional<double> spot) {
    std::string id = type.id;
    types_.try_emplace(id, std::move(type));
    if (ondemand) {
      auto [it, inserted] = ondemand_.try_emplace({id, region}, *ondemand);
      if (!inserted) it->second = std::min(it->second, *ondemand);
    }
    if (spot) spot_[{id, region, zone}] = *spot;
  }

  void Finish(CatalogBatch& batch) {
    for (auto& [id, type] : types_) batch.instance_types.push_back(type);
    for (const auto& [key, price] : ondemand_) {
      batch.prices.push_back(Observation(key.first, key.second, "", "ondemand", price));
    }
    for (const auto& [key, price] : spot_) {
      const auto& [type, region, zone] = key;
      batch.prices.push_back(Observation(type, region, zone, "spot", price));
      auto od = ondemand_.find({type, region});
      if (od != ondemand_.end() && price > od->second) ++batch.report.spot_above_ondemand;
    }
  }

 private:
  PriceObservation Observation(const std::string& type, const std::string& region,
                               const std::string& zone, const char* kind, double price) const {
    return PriceObservation{options_.cloud, type,     region,           zone,
                            kind,           price,    options_.currency, options_.observed_at,
                            options_.source};
  }

  const SkypilotOptions& options_;
  std::map<std::string, InstanceType> types_;
  std::map<std::pair<std::string, std::string>, double> ondemand_;
  std::map<ZoneKey, double> spot_;
};

// Parses an optional non-negative price. Returns false (and rejects the row) if malformed.
bool ParsePrice(std::string_view text, const char* column, int line, ImportReport& report,
                std::optional<double>& out) {
  out.reset();
  if (Trim(text).empty()) return true;
  auto value = ParseDouble(text);
  if (!value) {
    report.Reject(line, std::string(column) + " '" + Printable(text, 40) + "' is not a number");
    return false;
  }
  // Zero is a price only for the parts of a GCP offer (a host whose price is in its GPU
  // bundle); a stored price must be above zero (checked where offers are made).
  if (*value != 0 || std::signbit(*value)) {
    if (auto reason = rules::CheckPrice(*value)) {
      report.Reject(line, std::string(column) + " " + *reason);
      return false;
    }
  }
  out = value;
  return true;
}

bool ParseOptionalPositive(std::string_view text, const char* column, int line,
                           ImportReport& report, std::optional<double>& out) {
  out.reset();
  if (Trim(text).empty()) return true;
  auto value = ParseDouble(text);
  if (!value || *value <= 0 || *value > 1e6) {
    report.Reject(line, std::string(column) + " '" + Printable(text, 40) +
                            "' is not a positive number up to 1e6");
    return false;
  }
  out = value;
  return true;
}

InstanceType MakeType(const SkypilotOptions& options, std::string id,
                      const model::GpuSpec& gpu, int count, const PricedRow& row,
                      std::string accelerator, std::string host) {
  InstanceType type;
  type.cloud = options.cloud;
  type.id = std::move(id);
  type.gpu_id = gpu.id;
  type.gpu_count = count;
  type.vcpus = row.vcpus;
  type.memory_gib = row.memory_gib;
  type.interconnect = "";
  type.arch = row.arch.empty() ? "x86_64" : row.arch;
  type.host_instance_type = std::move(host);
  type.accelerator_name = std::move(accelerator);
  type.source = options.source;
  DeriveInterconnect(gpu, type);
  return type;
}

// The price of a host + GPU bundle offer; none when a part has none or the sum is 0.
std::optional<double> Sum(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *a + *b <= 0) return std::nullopt;
  return *a + *b;
}

}  // namespace

std::string AttachedOfferName(const std::string& host, int count,
                              const std::string& accelerator) {
  return host + "+" + std::to_string(count) + "x" + accelerator;
}

Result<CatalogBatch> ParseSkypilotCatalog(const CsvTable& table, const SkypilotOptions& options,
                                          const GpuResolver& resolver) {
  Columns c{table.Column("InstanceType"), table.Column("AcceleratorName"),
            table.Column("AcceleratorCount"), table.Column("vCPUs"),
            table.Column("MemoryGiB"), table.Column("Price"),
            table.Column("SpotPrice"), table.Column("Region"),
            table.Column("AvailabilityZone"), table.Column("Arch")};
  const std::pair<const char*, std::optional<size_t>> required[] = {
      {"InstanceType", c.instance_type}, {"AcceleratorName", c.accelerator},
      {"AcceleratorCount", c.count},     {"Region", c.region},
      {"Price", c.price},                {"SpotPrice", c.spot}};
  for (const auto& [name, column] : required) {
    if (!column) return Error::Invalid(name, std::string("missing column '") + name + "'");
  }

  // A file over the row cap is refused before any of its rows is looked at.
  Status rows = CheckImportRows(table.rows().size());
  if (!rows.ok()) return rows.error();

  CatalogBatch batch;
  ImportReport& report = batch.report;
  OfferCollector offers(options);
  std::map<ZoneKey, PricedRow> hosts;       // host VM rows (GCP)
  std::map<BundleKey, PricedRow> bundles;   // attachable GPU rows (GCP)

  for (const CsvRow& row : table.rows()) {
    ++report.rows_read;
    auto field = [&](std::optional<size_t> col) { return std::string(Trim(CsvTable::Field(row, col))); };
    std::string name = field(c.instance_type), accelerator = field(c.accelerator);
    std::string region = field(c.region), zone = field(c.zone);
    if (region.empty()) {
      report.Reject(row.line, "Region is empty");
      continue;
    }
    // The shared field rules (db/field_rules.h), before anything else reads the row.
    rules::Reason bad;
    const char* column = "";
    if ((bad = rules::CheckName(region))) {
      column = "Region";
    } else if ((bad = rules::CheckZone(zone))) {
      column = "AvailabilityZone";
    } else if (!name.empty() && (bad = rules::CheckCatalogId(name))) {
      column = "InstanceType";
    } else if ((bad = rules::CheckText(accelerator, rules::kMaxIdBytes))) {
      column = "AcceleratorName";
    } else if (c.arch && (bad = rules::CheckText(field(c.arch), 32))) {
      column = "Arch";
    }
    if (bad) {
      report.Reject(row.line, std::string(column) + " " + *bad);
      continue;
    }
    PricedRow priced{row.line, {}, {}, {}, {}, field(c.arch), false};
    if (!ParsePrice(field(c.price), "Price", row.line, report, priced.ondemand) ||
        !ParsePrice(field(c.spot), "SpotPrice", row.line, report, priced.spot) ||
        !ParseOptionalPositive(field(c.vcpus), "vCPUs", row.line, report, priced.vcpus) ||
        !ParseOptionalPositive(field(c.memory), "MemoryGiB", row.line, report,
                               priced.memory_gib)) {
      continue;
    }
    if (accelerator.empty()) {
      if (name.empty()) {
        report.Reject(row.line, "both InstanceType and AcceleratorName are empty");
      } else if (options.attach) {
        hosts[{name, region, zone}] = priced;
      } else {
        report.Skip("instance type without an accelerator");
      }
      continue;
    }
    std::string count_text = field(c.count);
    auto count = ParseInteger(count_text);
    if (!count) {
      if (ParseDouble(count_text)) {
        report.Skip("fractional GPU count");
      } else {
        report.Reject(row.line, "AcceleratorCount '" + Printable(count_text, 40) + "' is not a number");
      }
      continue;
    }
    if (auto reason = rules::CheckGpuCount(*count)) {
      report.Reject(row.line, "AcceleratorCount " + *reason);
      continue;
    }
    auto resolved = resolver.Resolve(options.cloud, accelerator);
    if (resolved.outcome != GpuResolver::Outcome::kResolved) {
      report.Skip((resolved.outcome == GpuResolver::Outcome::kUnknown ? "unknown accelerator: "
                                                                      : "not a supported GPU: ") +
                  accelerator);
      continue;
    }
    if (name.empty()) {
      if (!options.attach) {  // only GCP attaches GPU rows to host VMs
        report.Reject(row.line, "InstanceType is empty (a GPU row without a host VM is "
                                "understood for GCP only)");
      } else {
        bundles[{accelerator, static_cast<int>(*count), region, zone}] = priced;
      }
      continue;
    }
    if ((priced.ondemand && *priced.ondemand == 0) || (priced.spot && *priced.spot == 0)) {
      report.Reject(row.line, "a price of 0 is not a price: leave Price or SpotPrice empty when not offered");
      continue;
    }
    ++report.rows_used;
    offers.Add(MakeType(options, name, *resolved.gpu, static_cast<int>(*count), priced,
                        accelerator, ""),
               region, zone, priced.ondemand, priced.spot);
  }

  if (options.attach) {
    // Machine types that always carry a fixed GPU bundle (A2, A3, A4, G2).
    for (auto& [key, host] : hosts) {
      const auto& [name, region, zone] = key;
      auto machine = options.attach->machine_gpus.find(name);
      if (machine == options.attach->machine_gpus.end()) continue;
      const auto& [accelerator, count] = machine->second;
      auto bundle = bundles.find({accelerator, count, region, zone});
      if (bundle == bundles.end()) continue;
      auto resolved = resolver.Resolve(options.cloud, accelerator);
      host.used = bundle->second.used = true;
      offers.Add(MakeType(options, name, *resolved.gpu, count, host, accelerator, ""), region,
                 zone, Sum(host.ondemand, bundle->second.ondemand),
                 Sum(host.spot, bundle->second.spot));
    }
    // N1 hosts with attached GPUs, in the usual combinations.
    for (auto& [key, bundle] : bundles) {
      auto range = options.attach->n1_hosts.equal_range({key.accelerator, key.count});
      for (auto it = range.first; it != range.second; ++it) {
        auto host = hosts.find({it->second, key.region, key.zone});
        if (host == hosts.end()) continue;
        auto resolved = resolver.Resolve(options.cloud, key.accelerator);
        host->second.used = bundle.used = true;
        offers.Add(MakeType(options, AttachedOfferName(it->second, key.count, key.accelerator),
                            *resolved.gpu, key.count, host->second, key.accelerator,
                            it->second),
                   key.region, key.zone, Sum(host->second.ondemand, bundle.ondemand),
                   Sum(host->second.spot, bundle.spot));
      }
    }
    for (const auto& [key, host] : hosts) {
      if (host.used) {
        ++report.rows_used;
      } else {
        report.Skip("host VM with no GPU combination");
      }
    }
    for (const auto& [key, bundle] : bundles) {
      if (bundle.used) {
        ++report.rows_used;
      } else {
        report.Skip("GPU bundle with no host VM in its zone");
      }
    }
  }
  offers.Finish(batch);
  return batch;
}

}  // namespace gpuplan::db
