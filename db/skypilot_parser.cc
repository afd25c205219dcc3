#include "db/skypilot_parser.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>

#include "db/catalog_caps.h"
#include "db/field_rules.h"
#include "db/gpu_info.h"
#include "db/location_region.h"
#include "db/text.h"

namespace gpuplan::db {

namespace {

using ZoneKey = std::tuple<std::string, std::string, std::string>;  // name, region, zone

struct Columns {
  std::optional<size_t> instance_type, accelerator, count, vcpus, memory, price, spot, region,
      zone, arch, gpu_info;
};

constexpr const char* kZeroPriceReason = "price 0.0 read as missing, not free";
constexpr const char* kNoPriceReason = "no on-demand or spot price (empty or 0.0)";

struct PricedRow {
  int line = 0;
  std::optional<double> ondemand;
  std::optional<double> spot;
  std::optional<double> vcpus;
  std::optional<double> memory_gib;
  std::string arch;
  bool used = false;
  bool priceless = false;  // a host whose GPU offers would have no price (0.0 read as missing)
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
    batch.price_scopes[options_.cloud] = PriceScope();
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

  // "cloud" when the file names two regions or more and lists every instance type in every
  // one of them at one on-demand price (the Lambda and OCI catalogs); else "region".
  std::string PriceScope() const {
    std::set<std::string> regions;
    std::map<std::string, std::pair<double, size_t>> by_type;  // price, regions listed
    for (const auto& [key, price] : ondemand_) {
      regions.insert(key.second);
      auto [it, first] = by_type.try_emplace(key.first, price, 0);
      if (std::fabs(it->second.first - price) > 1e-9 * std::max(1.0, price)) return "region";
      ++it->second.second;
    }
    if (regions.size() < 2) return "region";
    for (const auto& [type, seen] : by_type) {
      if (seen.second != regions.size()) return "region";
    }
    return "cloud";
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
  // A 0 is how some catalogs write "no price" (GCP a4-highgpu-8g, Vast's spot column): it is
  // missing, not free.
  if (*value == 0 && !std::signbit(*value)) {
    report.Correct(kZeroPriceReason);
    return true;
  }
  if (auto reason = rules::CheckPrice(*value)) {
    report.Reject(line, std::string(column) + " " + *reason);
    return false;
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

// True when the row's vCPUs and MemoryGiB merely repeat the "-<vCPUs>-<MiB>" suffix of its
// type name (Vast: "1x-H200-32-65536" with 32 vCPUs and 64.0 GiB).
bool IsPlaceholderSize(const std::string& name, const PricedRow& row) {
  if (!row.vcpus || !row.memory_gib) return false;
  size_t last = name.rfind('-');
  if (last == std::string::npos || last == 0) return false;
  size_t before = name.rfind('-', last - 1);
  if (before == std::string::npos) return false;
  auto vcpus = ParseInteger(std::string_view(name).substr(before + 1, last - before - 1));
  auto mib = ParseInteger(std::string_view(name).substr(last + 1));
  return vcpus && mib && *vcpus == *row.vcpus && *mib == *row.memory_gib * 1024;
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
            table.Column("AvailabilityZone"), table.Column("Arch"), table.Column("GpuInfo")};
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
  std::map<std::string, Region> locations;  // regions written as locations (Vast)

  for (const CsvRow& row : table.rows()) {
    ++report.rows_read;
    auto field = [&](std::optional<size_t> col) { return std::string(Trim(CsvTable::Field(row, col))); };
    std::string name = field(c.instance_type), accelerator = field(c.accelerator);
    std::string region = field(c.region), zone = field(c.zone);
    if (region.empty()) {
      report.Reject(row.line, "Region is empty");
      continue;
    }
    if (rules::CheckName(region)) {
      if (auto located = LocationRegion(options.cloud, region)) {
        region = located->id;
        locations.try_emplace(region, std::move(*located));
      }
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
        report.Skip("fractional GPU count (a GPU partition such as AWS g6f/gr6f): not modelled");
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
    const model::GpuSpec* gpu = resolved.gpu;
    int gpu_count = static_cast<int>(*count);
    if (options.sizes && !name.empty()) {
      auto published = options.sizes->find({options.cloud, name});
      if (published != options.sizes->end()) {
        const PublishedSize& size = published->second;
        if (size.gpu_count != gpu_count) {
          report.Correct("AcceleratorCount corrected to the published size of " + name + " (" +
                         std::to_string(gpu_count) + " -> " + std::to_string(size.gpu_count) +
                         "; " + size.source + ")");
          gpu_count = size.gpu_count;
        }
        const model::GpuSpec* named = resolver.FindGpu(size.gpu_id);
        if (named && named != gpu) {
          report.Correct("GPU of " + name + " is " + named->id + " by its published size (" +
                         size.source + ")");
          gpu = named;
        }
      }
    }
    if (c.gpu_info) {
      auto stated = GpuInfoMemoryPerGpuGib(field(c.gpu_info), gpu_count, gpu->memory_gb);
      if (stated && !GpuMemoryAgrees(*stated, gpu->memory_gb)) {
        report.Skip("GpuInfo memory contradicts the GPU the name resolves to: " + accelerator +
                    " -> " + gpu->id);
        continue;
      }
    }
    if (name.empty()) {
      if (!options.attach) {  // only GCP attaches GPU rows to host VMs
        report.Reject(row.line, "InstanceType is empty (a GPU row without a host VM is "
                                "understood for GCP only)");
      } else {
        // The GPU part's own spot above its own on-demand (GCP A100-80GB, H200 x8): counted
        // here, since the composed offer's prices can hide it.
        if (priced.spot && priced.ondemand && *priced.spot > *priced.ondemand) {
          ++report.spot_above_ondemand;
        }
        bundles[{accelerator, static_cast<int>(*count), region, zone}] = priced;
      }
      continue;
    }
    if (!priced.ondemand && !priced.spot) {
      report.Skip(kNoPriceReason);
      continue;
    }
    if (IsPlaceholderSize(name, priced)) {
      report.Correct("vCPUs and MemoryGiB repeat the type name's suffix (placeholders): not used");
      priced.vcpus.reset();
      priced.memory_gib.reset();
    }
    ++report.rows_used;
    offers.Add(MakeType(options, name, *gpu, gpu_count, priced, accelerator, ""), region, zone,
               priced.ondemand, priced.spot);
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
      bundle->second.used = true;
      auto ondemand = Sum(host.ondemand, bundle->second.ondemand);
      auto spot = Sum(host.spot, bundle->second.spot);
      if (!ondemand && !spot) {
        host.priceless = true;
        continue;
      }
      host.used = true;
      offers.Add(MakeType(options, name, *resolved.gpu, count, host, accelerator, ""), region,
                 zone, ondemand, spot);
    }
    // N1 hosts with attached GPUs, in the usual combinations.
    for (auto& [key, bundle] : bundles) {
      auto range = options.attach->n1_hosts.equal_range({key.accelerator, key.count});
      for (auto it = range.first; it != range.second; ++it) {
        auto host = hosts.find({it->second, key.region, key.zone});
        if (host == hosts.end()) continue;
        auto resolved = resolver.Resolve(options.cloud, key.accelerator);
        bundle.used = true;
        auto ondemand = Sum(host->second.ondemand, bundle.ondemand);
        auto spot = Sum(host->second.spot, bundle.spot);
        if (!ondemand && !spot) {
          host->second.priceless = true;
          continue;
        }
        host->second.used = true;
        offers.Add(MakeType(options, AttachedOfferName(it->second, key.count, key.accelerator),
                            *resolved.gpu, key.count, host->second, key.accelerator,
                            it->second),
                   key.region, key.zone, ondemand, spot);
      }
    }
    for (const auto& [key, host] : hosts) {
      if (host.used) {
        ++report.rows_used;
      } else if (host.priceless) {
        report.Skip(kNoPriceReason);
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
  for (auto& [id, region] : locations) batch.regions.push_back(std::move(region));
  return batch;
}

}  // namespace gpuplan::db
