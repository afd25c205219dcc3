#include "db/catalog_store.h"

#include <cctype>
#include <memory>
#include <mutex>

#include "db/catalog_writer.h"
#include "db/sql.h"
#include "db/write_transaction.h"
#include "db/database.h"
#include "db/offer_query.h"
#include "db/price_rows.h"
#include "db/spot_bands.h"
#include "db/text.h"

namespace gpuplan::db {

namespace {

constexpr const char* kGpuColumns =
    "id, name, vendor, architecture, release_year, memory_gb, memory_type, memory_bw_gbps, "
    "fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops, int8_tops, "
    "nvlink_bw_gbps, pcie_gen, tdp_w, form_factor, source, sm_count, boost_clock_mhz, "
    "l2_cache_mb, base_clock_mhz, fp16_acc16_tflops, fp16_vector_tflops, achievable_bw_gbps, "
    "launch_price_usd, fp4_tflops";

model::GpuSpec ReadGpu(Statement& s) {
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
  g.sm_count = s.getColumn(20).getDouble();
  g.boost_clock_mhz = s.getColumn(21).getDouble();
  g.l2_cache_mb = s.getColumn(22).getDouble();
  g.base_clock_mhz = s.getColumn(23).getDouble();
  g.fp16_acc16_tflops = s.getColumn(24).getDouble();
  g.fp16_vector_tflops = s.getColumn(25).getDouble();
  g.achievable_bw_gbps = s.getColumn(26).getDouble();
  if (!s.getColumn(27).isNull()) g.launch_price_usd = s.getColumn(27).getDouble();
  g.fp4_tflops = s.getColumn(28).getDouble();
  return g;
}

std::optional<double> OptionalDouble(const Column& column) {
  if (column.isNull()) return std::nullopt;
  return column.getDouble();
}

constexpr const char* kInstanceColumns =
    "it.cloud, it.id, it.gpu_id, it.gpu_count, it.vcpus, it.memory_gib, it.interconnect, "
    "it.interconnect_bw_gbps, it.network_gbps, it.arch, it.host_instance_type, "
    "it.accelerator_name, it.source";
constexpr int kInstanceColumnCount = 13;

InstanceType ReadInstance(Statement& s) {
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

// An offer's instance type, GPU and cloud, joined to the offers' keys `k` (both backends).
constexpr const char* kOfferTypeJoins = R"SQL(
JOIN instance_types it ON it.cloud = k.cloud AND it.id = k.instance_type
JOIN gpus g ON g.id = it.gpu_id
JOIN clouds cl ON cl.id = it.cloud)SQL";

// Offers: one row per (cloud, instance type, region) having a current on-demand or spot
// price. On-demand = cheapest current observation of the region; spot = the cheapest zone
// among zones observed within 7 days of the region's newest spot observation (so zones
// that stopped being reported do not keep a stale price current).
// Every offer, or (`one_type`) the offers of the instance type bound to :cloud and :type,
// restricted inside the price scans so that one type does not cost a whole-catalog query.
// SQLite takes the other columns of a MIN() aggregate from the row with the minimum.
std::string SqliteOfferSql(bool one_type) {
  const char* only = one_type ? " AND cloud = :cloud AND instance_type = :type" : "";
  const char* only_c = one_type ? " AND c.cloud = :cloud AND c.instance_type = :type" : "";
  return std::string(R"SQL(
WITH od AS (
  SELECT cloud, instance_type, region, MIN(price_per_hour) AS price, currency, observed_at, source
  FROM current_prices WHERE kind = 'ondemand')SQL") + only + R"SQL( GROUP BY cloud, instance_type, region),
sp AS (
  SELECT c.cloud, c.instance_type, c.region, MIN(c.price_per_hour) AS price, c.zone, c.currency,
         c.observed_at, c.source,
         (SELECT COUNT(DISTINCT t.observed_at) FROM prices t
          WHERE t.cloud = c.cloud AND t.instance_type = c.instance_type AND t.region = c.region
            AND t.kind = 'spot') AS times
  FROM current_prices c
  WHERE c.kind = 'spot')SQL" + only_c + R"SQL( AND julianday(c.observed_at) >= (
    SELECT MAX(julianday(q.observed_at)) - 7 FROM prices q
    WHERE q.cloud = c.cloud AND q.instance_type = c.instance_type AND q.region = c.region
      AND q.kind = 'spot')
  GROUP BY c.cloud, c.instance_type, c.region),
k AS (SELECT cloud, instance_type, region FROM od UNION SELECT cloud, instance_type, region FROM sp)
SELECT )SQL" + kInstanceColumns + R"SQL(, k.region, g.memory_gb,
  od.price, od.currency, od.observed_at, od.source,
  sp.price, sp.zone, sp.currency, sp.observed_at, sp.source, cl.price_scope, sp.times
FROM k)SQL" + kOfferTypeJoins + R"SQL(
LEFT JOIN od ON od.cloud = k.cloud AND od.instance_type = k.instance_type AND od.region = k.region
LEFT JOIN sp ON sp.cloud = k.cloud AND sp.instance_type = k.instance_type AND sp.region = k.region
ORDER BY it.cloud, k.region, it.id
)SQL";
}

// The same offers on PostgreSQL, which has no such rule for MIN(): each key's cheapest current
// row is the first by (price, zone, time).
std::string PostgresOfferSql(bool one_type) {
  const char* only = one_type ? " AND cloud = :cloud AND instance_type = :type" : "";
  // One pass over the prices (windows, then one GROUP BY) and no join between derived
  // tables: PostgreSQL cannot estimate the current_prices view's rows (its correlated
  // MAX), and joins of such estimates became nested loops of thousands by thousands.
  const char* first = "ORDER BY price_per_hour, zone, observed_at) FILTER (WHERE ";
  auto pick = [&](const char* column, const char* which, const char* as) {
    return std::string("    (array_agg(") + column + " " + first + which + "))[1] AS " + as + ",\n";
  };
  return std::string(R"SQL(
WITH p AS (
  SELECT cloud, instance_type, region, zone, kind, price_per_hour, currency, observed_at, source,
       observed_at = max(observed_at) OVER (PARTITION BY cloud, instance_type, region, zone, kind)
         AS is_current,
       max(observed_at::timestamptz) FILTER (WHERE kind = 'spot')
         OVER (PARTITION BY cloud, instance_type, region) - interval '7 days' AS spot_since
  FROM prices WHERE kind IN ('ondemand', 'spot'))SQL") + only + R"SQL(),
q AS (
  SELECT *, is_current AND kind = 'ondemand' AS is_od,
       is_current AND kind = 'spot' AND observed_at::timestamptz >= spot_since AS is_sp
  FROM p),
k AS (
  SELECT cloud, instance_type, region,
)SQL" + pick("price_per_hour", "is_od", "od_price") + pick("currency", "is_od", "od_currency") +
         pick("observed_at", "is_od", "od_observed_at") + pick("source", "is_od", "od_source") +
         pick("price_per_hour", "is_sp", "sp_price") + pick("zone", "is_sp", "sp_zone") +
         pick("currency", "is_sp", "sp_currency") + pick("observed_at", "is_sp", "sp_observed_at") +
         pick("source", "is_sp", "sp_source") + R"SQL(
  CASE WHEN bool_or(is_sp) THEN COUNT(DISTINCT observed_at) FILTER (WHERE kind = 'spot') END
    AS times
  FROM q GROUP BY cloud, instance_type, region
  HAVING bool_or(is_od OR is_sp))
SELECT )SQL" + kInstanceColumns + R"SQL(, k.region, g.memory_gb,
  k.od_price, k.od_currency, k.od_observed_at, k.od_source,
  k.sp_price, k.sp_zone, k.sp_currency, k.sp_observed_at, k.sp_source, cl.price_scope, k.times
FROM k)SQL" + kOfferTypeJoins + R"SQL(
ORDER BY it.cloud, k.region, it.id
)SQL";
}

std::string OfferSql(bool one_type, SqlDialect dialect) {
  return dialect == SqlDialect::kPostgres ? PostgresOfferSql(one_type) : SqliteOfferSql(one_type);
}

Offer ReadOffer(Statement& s) {
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
    o.ondemand_observed_at = s.getColumn(c + 4).getString();
    o.observed_at = o.ondemand_observed_at;
    o.source = s.getColumn(c + 5).getString();
  } else {
    o.currency = s.getColumn(c + 8).getString();
    o.source = s.getColumn(c + 10).getString();
  }
  if (o.price_spot_per_hour) {
    o.spot_observed_at = s.getColumn(c + 9).getString();
    if (o.spot_observed_at > o.observed_at) o.observed_at = o.spot_observed_at;
  }
  o.price_scope = s.getColumn(c + 11).getString();
  o.spot_observation_times = s.getColumn(c + 12).getInt();  // 0 when NULL (no spot price)
  return o;
}

}  // namespace

Result<std::vector<model::GpuSpec>> CatalogStore::ListGpus() {
  return GuardSqlite([&]() -> Result<std::vector<model::GpuSpec>> {
    Statement s(db_, std::string("SELECT ") + kGpuColumns + " FROM gpus ORDER BY id");
    std::vector<model::GpuSpec> gpus;
    while (s.executeStep()) gpus.push_back(ReadGpu(s));
    return gpus;
  });
}

Result<model::GpuSpec> CatalogStore::GetGpu(const std::string& id) {
  return GuardSqlite([&]() -> Result<model::GpuSpec> {
    Statement s(db_, std::string("SELECT ") + kGpuColumns + " FROM gpus WHERE id = ?");
    s.bind(1, id);
    if (!s.executeStep()) return Error::NotFound("no GPU with id '" + id + "'");
    return ReadGpu(s);
  });
}

Result<std::vector<CloudSummary>> CatalogStore::ListClouds() {
  return GuardSqlite([&]() -> Result<std::vector<CloudSummary>> {
    Statement s(db_, R"SQL(
SELECT c.id, c.name, c.default_currency,
  (SELECT COUNT(*) FROM regions r WHERE r.cloud = c.id),
  (SELECT COUNT(*) FROM instance_types it WHERE it.cloud = c.id), c.price_scope
FROM clouds c ORDER BY c.id)SQL");
    std::vector<CloudSummary> clouds;
    while (s.executeStep()) {
      clouds.push_back({Cloud{s.getColumn(0).getString(), s.getColumn(1).getString(),
                              s.getColumn(2).getString(), s.getColumn(5).getString()},
                        s.getColumn(3).getInt(), s.getColumn(4).getInt()});
    }
    return clouds;
  });
}

Result<std::vector<Region>> CatalogStore::ListRegions(const std::string& cloud) {
  return GuardSqlite([&]() -> Result<std::vector<Region>> {
    Statement s(db_,
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
  });
}

Result<std::vector<Offer>> CatalogStore::ListOffers(const OfferFilter& filter) {
  return GuardSqlite([&]() -> Result<std::vector<Offer>> {
    // Read from SQLite on every call: the one cache of offers is the per-generation
    // snapshot of db::CachedCatalog, which the request paths read through.
    Statement s(db_, OfferSql(false, db_.dialect()));
    std::vector<Offer> offers;
    while (s.executeStep()) {
      Offer o = ReadOffer(s);
      if (OfferMatches(o, filter)) offers.push_back(std::move(o));
    }
    AttachSpotBands(db_, offers);
    return offers;
  });
}

Result<std::pair<InstanceType, std::vector<Offer>>> CatalogStore::GetInstanceType(
    const std::string& cloud, const std::string& id) {
  return GuardSqlite([&]() -> Result<std::pair<InstanceType, std::vector<Offer>>> {
    Statement s(db_, std::string("SELECT ") + kInstanceColumns +
                                 " FROM instance_types it WHERE it.cloud = ? AND it.id = ?");
    s.bind(1, cloud);
    s.bind(2, id);
    if (!s.executeStep()) {
      return Error::NotFound("no instance type '" + id + "' in cloud '" + cloud + "'");
    }
    InstanceType type = ReadInstance(s);
    Statement q(db_, OfferSql(true, db_.dialect()));
    q.bind(":cloud", cloud);
    q.bind(":type", id);
    std::vector<Offer> offers;
    while (q.executeStep()) offers.push_back(ReadOffer(q));
    AttachSpotBands(db_, offers);
    return std::make_pair(std::move(type), std::move(offers));
  });
}

Result<std::map<std::string, FxRate>> CatalogStore::FxRates() {
  return GuardSqlite([&]() -> Result<std::map<std::string, FxRate>> {
    Statement s(db_, "SELECT currency, units_per_usd, as_of, source FROM fx_rates");
    std::map<std::string, FxRate> rates;
    while (s.executeStep()) {
      FxRate r{s.getColumn(0).getString(), s.getColumn(1).getDouble(),
               s.getColumn(2).getString(), s.getColumn(3).getString()};
      rates[r.currency] = r;
    }
    return rates;
  });
}

Result<std::vector<PriceObservation>> CatalogStore::SpotHistory(const SpotQuery& q) {
  return GuardSqlite([&]() -> Result<std::vector<PriceObservation>> {
    Statement s(db_, R"SQL(
SELECT cloud, instance_type, region, zone, kind, price_per_hour, currency, observed_at, source
FROM prices
WHERE cloud = :cloud AND instance_type = :type AND kind = 'spot'
  AND (:region = '' OR region = :region) AND (:zone = '' OR zone = :zone)
  AND (:since = '' OR observed_at >= :since) AND (:until = '' OR observed_at <= :until)
  AND (CAST(:after AS TEXT) IS NULL OR (observed_at, zone, region) > (:after, :after_zone, :after_region))
ORDER BY observed_at, zone, region
LIMIT :limit)SQL");
    s.bind(":cloud", q.cloud);
    s.bind(":type", q.instance_type);
    s.bind(":region", q.region);
    s.bind(":zone", q.zone);
    s.bind(":since", q.since);
    s.bind(":until", q.until);
    if (q.after) {
      s.bind(":after", std::get<0>(*q.after));
      s.bind(":after_zone", std::get<1>(*q.after));
      s.bind(":after_region", std::get<2>(*q.after));
    } else {
      s.bind(":after");
      s.bind(":after_zone");
      s.bind(":after_region");
    }
    s.bind(":limit", q.limit);
    std::vector<PriceObservation> out;
    while (s.executeStep()) out.push_back(ReadPriceRow(s));
    return out;
  });
}

Result<std::optional<GpuSynonym>> CatalogStore::SynonymOf(const std::string& scope,
                                                           const std::string& gpu_id) {
  return GuardSqlite([&]() -> Result<std::optional<GpuSynonym>> {
    Statement s(db_, "SELECT accelerator_name, note FROM gpu_synonyms WHERE cloud = ? AND gpu_id = ? "
                             "ORDER BY length(accelerator_name), accelerator_name LIMIT 1");
    s.bind(1, scope);
    s.bind(2, gpu_id);
    if (!s.executeStep()) return std::optional<GpuSynonym>();
    return std::optional<GpuSynonym>(
        GpuSynonym{scope, s.getColumn(0).getString(), gpu_id, s.getColumn(1).getString()});
  });
}

Result<GpuResolver> CatalogStore::LoadGpuResolver() {
  auto gpus = ListGpus();
  if (!gpus.ok()) return gpus.error();
  GpuResolver resolver;
  for (auto& g : *gpus) resolver.AddGpu(std::move(g));
  return GuardSqlite([&]() -> Result<GpuResolver> {
    Statement s(db_, "SELECT cloud, accelerator_name, coalesce(gpu_id, ''), note FROM gpu_synonyms");
    while (s.executeStep()) {
      resolver.AddSynonym({s.getColumn(0).getString(), s.getColumn(1).getString(),
                           s.getColumn(2).getString(), s.getColumn(3).getString()});
    }
    return std::move(resolver);
  });
}

Result<CatalogStore::Sizes> CatalogStore::CountRows() {
  return GuardSqlite([&]() -> Result<CatalogStore::Sizes> {
    Statement q(db_, R"(SELECT (SELECT COUNT(*) FROM gpus), (SELECT COUNT(*) FROM clouds),
  (SELECT COUNT(*) FROM regions), (SELECT COUNT(*) FROM instance_types),
  (SELECT COUNT(*) FROM prices))");
    Sizes s;
    if (q.executeStep()) {
      s.gpus = q.getColumn(0).getInt64();
      s.clouds = q.getColumn(1).getInt64();
      s.regions = q.getColumn(2).getInt64();
      s.instance_types = q.getColumn(3).getInt64();
      s.price_observations = q.getColumn(4).getInt64();
    }
    s.generation = CatalogGeneration(db_);
    return s;
  });
}

}  // namespace gpuplan::db
