#include "db/catalog_store.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

namespace gpuplan::db {

namespace {

constexpr const char* kGpuColumns =
    "id, name, vendor, architecture, release_year, memory_gb, memory_type, memory_bw_gbps, "
    "fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops, int8_tops, "
    "nvlink_bw_gbps, pcie_gen, tdp_w, form_factor, source";

model::GpuSpec ReadGpu(SQLite::Statement& s) {
  model::GpuSpec g;
  g.id = s.getColumn(0).getString();
  g.name = s.getColumn(1).getString();
  g.vendor = s.getColumn(2).getString();
  g.architecture = s.getColumn(3).getString();
  g.release_year = s.getColumn(4).isNull() ? 0 : s.getColumn(4).getInt();
  g.memory_gb = s.getColumn(5).getDouble();
  g.memory_type = s.getColumn(6).getString();
  g.memory_bw_gbps = s.getColumn(7).getDouble();
  g.fp64_tflops = s.getColumn(8).getDouble();
  g.fp32_tflops = s.getColumn(9).getDouble();
  g.tf32_tflops = s.getColumn(10).getDouble();
  g.fp16_tflops = s.getColumn(11).getDouble();
  g.bf16_tflops = s.getColumn(12).getDouble();
  g.fp8_tflops = s.getColumn(13).getDouble();
  g.int8_tops = s.getColumn(14).getDouble();
  g.nvlink_bw_gbps = s.getColumn(15).getDouble();
  g.pcie_gen = s.getColumn(16).isNull() ? 0 : s.getColumn(16).getInt();
  g.tdp_w = s.getColumn(17).getDouble();
  g.form_factor = s.getColumn(18).getString();
  g.source = s.getColumn(19).getString();
  return g;
}

std::optional<double> OptionalDouble(const SQLite::Column& column) {
  if (column.isNull()) return std::nullopt;
  return column.getDouble();
}

constexpr const char* kInstanceColumns =
    "it.cloud, it.id, it.gpu_id, it.gpu_count, it.vcpus, it.memory_gib, it.interconnect, "
    "it.interconnect_bw_gbps, it.network_gbps, it.arch, it.host_instance_type, "
    "it.accelerator_name, it.source";
constexpr int kInstanceColumnCount = 13;

InstanceType ReadInstance(SQLite::Statement& s) {
  InstanceType t;
  t.cloud = s.getColumn(0).getString();
  t.id = s.getColumn(1).getString();
  t.gpu_id = s.getColumn(2).getString();
  t.gpu_count = s.getColumn(3).getInt();
  t.vcpus = OptionalDouble(s.getColumn(4));
  t.memory_gib = OptionalDouble(s.getColumn(5));
  t.interconnect = s.getColumn(6).getString();
  t.interconnect_bw_gbps = s.getColumn(7).getDouble();
  t.network_gbps = OptionalDouble(s.getColumn(8));
  t.arch = s.getColumn(9).getString();
  t.host_instance_type = s.getColumn(10).getString();
  t.accelerator_name = s.getColumn(11).getString();
  t.source = s.getColumn(12).getString();
  return t;
}

// Offers: one row per (cloud, instance type, region) having a current on-demand or spot
// price. On-demand = cheapest current observation of the region; spot = cheapest zone.
const std::string kOfferQuery = std::string(R"SQL(
WITH od AS (
  SELECT cloud, instance_type, region, MIN(price_per_hour) AS price, currency, observed_at, source
  FROM current_prices WHERE kind = 'ondemand' GROUP BY cloud, instance_type, region),
sp AS (
  SELECT cloud, instance_type, region, MIN(price_per_hour) AS price, zone, currency,
         observed_at, source
  FROM current_prices WHERE kind = 'spot' GROUP BY cloud, instance_type, region),
k AS (SELECT cloud, instance_type, region FROM od UNION SELECT cloud, instance_type, region FROM sp)
SELECT )SQL") + kInstanceColumns + R"SQL(, k.region, g.memory_gb,
  od.price, od.currency, od.observed_at, od.source,
  sp.price, sp.zone, sp.currency, sp.observed_at, sp.source
FROM k
JOIN instance_types it ON it.cloud = k.cloud AND it.id = k.instance_type
JOIN gpus g ON g.id = it.gpu_id
LEFT JOIN od ON od.cloud = k.cloud AND od.instance_type = k.instance_type AND od.region = k.region
LEFT JOIN sp ON sp.cloud = k.cloud AND sp.instance_type = k.instance_type AND sp.region = k.region
WHERE (:cloud = '' OR it.cloud = :cloud)
  AND (:region = '' OR k.region = :region)
  AND (:instance_type = '' OR it.id = :instance_type)
  AND (:gpu = '' OR lower(it.gpu_id) = lower(:gpu)
       OR substr(lower(it.gpu_id), 1, length(:gpu) + 1) = lower(:gpu) || '-')
  AND (:min_count IS NULL OR it.gpu_count >= :min_count)
  AND (:max_count IS NULL OR it.gpu_count <= :max_count)
  AND (:min_memory IS NULL OR g.memory_gb >= :min_memory)
ORDER BY it.cloud, k.region, it.id
)SQL";

Offer ReadOffer(SQLite::Statement& s) {
  Offer o;
  o.instance = ReadInstance(s);
  int c = kInstanceColumnCount;
  o.region = s.getColumn(c).getString();
  o.gpu_memory_gb = s.getColumn(c + 1).getDouble();
  o.price_ondemand_per_hour = OptionalDouble(s.getColumn(c + 2));
  o.price_spot_per_hour = OptionalDouble(s.getColumn(c + 6));
  o.spot_zone = s.getColumn(c + 7).getString();
  if (o.price_ondemand_per_hour) {
    o.currency = s.getColumn(c + 3).getString();
    o.observed_at = s.getColumn(c + 4).getString();
    o.source = s.getColumn(c + 5).getString();
  } else {
    o.currency = s.getColumn(c + 8).getString();
    o.source = s.getColumn(c + 10).getString();
  }
  if (o.price_spot_per_hour) {
    std::string spot_at = s.getColumn(c + 9).getString();
    if (spot_at > o.observed_at) o.observed_at = spot_at;
  }
  return o;
}

template <typename Optional>
void BindOptional(SQLite::Statement& s, const char* name, const Optional& value) {
  if (value) {
    s.bind(name, *value);
  } else {
    s.bind(name);
  }
}

}  // namespace

Result<std::vector<model::GpuSpec>> CatalogStore::ListGpus() {
  try {
    SQLite::Statement s(db_, std::string("SELECT ") + kGpuColumns + " FROM gpus ORDER BY id");
    std::vector<model::GpuSpec> gpus;
    while (s.executeStep()) gpus.push_back(ReadGpu(s));
    return gpus;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<model::GpuSpec> CatalogStore::GetGpu(const std::string& id) {
  try {
    SQLite::Statement s(db_, std::string("SELECT ") + kGpuColumns + " FROM gpus WHERE id = ?");
    s.bind(1, id);
    if (!s.executeStep()) return Error::NotFound("no GPU with id '" + id + "'");
    return ReadGpu(s);
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<std::vector<CloudSummary>> CatalogStore::ListClouds() {
  try {
    SQLite::Statement s(db_, R"SQL(
SELECT c.id, c.name, c.default_currency,
  (SELECT COUNT(*) FROM regions r WHERE r.cloud = c.id),
  (SELECT COUNT(*) FROM instance_types it WHERE it.cloud = c.id)
FROM clouds c ORDER BY c.id)SQL");
    std::vector<CloudSummary> clouds;
    while (s.executeStep()) {
      clouds.push_back({Cloud{s.getColumn(0).getString(), s.getColumn(1).getString(),
                              s.getColumn(2).getString()},
                        s.getColumn(3).getInt(), s.getColumn(4).getInt()});
    }
    return clouds;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<std::vector<Region>> CatalogStore::ListRegions(const std::string& cloud) {
  try {
    SQLite::Statement s(db_,
                        "SELECT cloud, id, display_name, country, continent FROM regions "
                        "WHERE (?1 = '' OR cloud = ?1) ORDER BY cloud, id");
    s.bind(1, cloud);
    std::vector<Region> regions;
    while (s.executeStep()) {
      regions.push_back({s.getColumn(0).getString(), s.getColumn(1).getString(),
                         s.getColumn(2).getString(), s.getColumn(3).getString(),
                         s.getColumn(4).getString()});
    }
    return regions;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<std::vector<Offer>> CatalogStore::ListOffers(const OfferFilter& filter) {
  try {
    SQLite::Statement s(db_, kOfferQuery);
    s.bind(":cloud", filter.cloud);
    s.bind(":region", filter.region);
    s.bind(":instance_type", filter.instance_type);
    s.bind(":gpu", filter.gpu);
    BindOptional(s, ":min_count", filter.min_gpu_count);
    BindOptional(s, ":max_count", filter.max_gpu_count);
    BindOptional(s, ":min_memory", filter.min_gpu_memory_gb);
    std::vector<Offer> offers;
    while (s.executeStep()) offers.push_back(ReadOffer(s));
    return offers;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<std::pair<InstanceType, std::vector<Offer>>> CatalogStore::GetInstanceType(
    const std::string& cloud, const std::string& id) {
  try {
    SQLite::Statement s(db_, std::string("SELECT ") + kInstanceColumns +
                                 " FROM instance_types it WHERE it.cloud = ? AND it.id = ?");
    s.bind(1, cloud);
    s.bind(2, id);
    if (!s.executeStep()) {
      return Error::NotFound("no instance type '" + id + "' in cloud '" + cloud + "'");
    }
    InstanceType type = ReadInstance(s);
    OfferFilter filter;
    filter.cloud = cloud;
    filter.instance_type = id;
    auto offers = ListOffers(filter);
    if (!offers.ok()) return offers.error();
    return std::make_pair(std::move(type), std::move(offers).value());
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<std::map<std::string, FxRate>> CatalogStore::FxRates() {
  try {
    SQLite::Statement s(db_, "SELECT currency, units_per_usd, as_of, source FROM fx_rates");
    std::map<std::string, FxRate> rates;
    while (s.executeStep()) {
      FxRate r{s.getColumn(0).getString(), s.getColumn(1).getDouble(),
               s.getColumn(2).getString(), s.getColumn(3).getString()};
      rates[r.currency] = r;
    }
    return rates;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Status CatalogStore::Ping() {
  try {
    db_.execAndGet("SELECT 1");
    return OkStatus();
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

}  // namespace gpuplan::db
