#include "db/catalog_writer.h"

#include <chrono>
#include <ctime>
#include <set>

#include "db/bulk_rows.h"
#include "db/field_rules.h"
#include "db/spot_bands.h"
#include "db/sql.h"
#include "db/sql_bind.h"

namespace gpuplan::db {

namespace {

// Binds NULL for "unknown" (0 or less), e.g. a release year or PCIe generation.
void BindPositiveOrNull(Statement& stmt, int index, int value) {
  if (value > 0) {
    stmt.bind(index, value);
  } else {
    stmt.bind(index);
  }
}

}  // namespace

void BumpCatalogGeneration(Connection& db) {
  db.exec("INSERT INTO catalog_meta (key, value) VALUES ('generation', '1') "
          "ON CONFLICT (key) DO UPDATE SET value = CAST(catalog_meta.value AS BIGINT) + 1");
}

long long CatalogGeneration(Connection& db) {
  Statement s(db, "SELECT CAST(value AS BIGINT) FROM catalog_meta WHERE key = 'generation'");
  return s.executeStep() ? s.getColumn(0).getInt64() : 0;
}

void UpsertGpu(Connection& db, const model::GpuSpec& g) {
  BumpCatalogGeneration(db);
  Statement stmt(db, R"SQL(
INSERT INTO gpus (id, name, vendor, architecture, release_year, memory_gb, memory_type,
  memory_bw_gbps, fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops,
  fp8_tflops, int8_tops, nvlink_bw_gbps, pcie_gen, tdp_w, form_factor, source, sm_count,
  boost_clock_mhz, l2_cache_mb, base_clock_mhz, fp16_acc16_tflops, fp16_vector_tflops,
  achievable_bw_gbps, launch_price_usd, fp4_tflops)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
  ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)
ON CONFLICT (id) DO UPDATE SET name = excluded.name, vendor = excluded.vendor,
  architecture = excluded.architecture, release_year = excluded.release_year,
  memory_gb = excluded.memory_gb, memory_type = excluded.memory_type,
  memory_bw_gbps = excluded.memory_bw_gbps, fp64_tflops = excluded.fp64_tflops,
  fp32_tflops = excluded.fp32_tflops, tf32_tflops = excluded.tf32_tflops,
  fp16_tflops = excluded.fp16_tflops, bf16_tflops = excluded.bf16_tflops,
  fp8_tflops = excluded.fp8_tflops, int8_tops = excluded.int8_tops,
  nvlink_bw_gbps = excluded.nvlink_bw_gbps, pcie_gen = excluded.pcie_gen,
  tdp_w = excluded.tdp_w, form_factor = excluded.form_factor, source = excluded.source,
  sm_count = excluded.sm_count, boost_clock_mhz = excluded.boost_clock_mhz,
  l2_cache_mb = excluded.l2_cache_mb, base_clock_mhz = excluded.base_clock_mhz,
  fp16_acc16_tflops = excluded.fp16_acc16_tflops,
  fp16_vector_tflops = excluded.fp16_vector_tflops,
  achievable_bw_gbps = excluded.achievable_bw_gbps,
  launch_price_usd = excluded.launch_price_usd, fp4_tflops = excluded.fp4_tflops
)SQL");
  stmt.bind(1, g.id);
  stmt.bind(2, g.name);
  stmt.bind(3, g.vendor);
  stmt.bind(4, g.architecture);
  BindPositiveOrNull(stmt, 5, g.release_year);
  stmt.bind(6, g.memory_gb);
  stmt.bind(7, g.memory_type);
  stmt.bind(8, g.memory_bw_gbps);
  stmt.bind(9, g.fp64_tflops);
  stmt.bind(10, g.fp32_tflops);
  stmt.bind(11, g.tf32_tflops);
  stmt.bind(12, g.fp16_tflops);
  stmt.bind(13, g.bf16_tflops);
  stmt.bind(14, g.fp8_tflops);
  stmt.bind(15, g.int8_tops);
  stmt.bind(16, g.nvlink_bw_gbps);
  BindPositiveOrNull(stmt, 17, g.pcie_gen);
  stmt.bind(18, g.tdp_w);
  stmt.bind(19, g.form_factor);
  stmt.bind(20, g.source);
  stmt.bind(21, g.sm_count);
  stmt.bind(22, g.boost_clock_mhz);
  stmt.bind(23, g.l2_cache_mb);
  stmt.bind(24, g.base_clock_mhz);
  stmt.bind(25, g.fp16_acc16_tflops);
  stmt.bind(26, g.fp16_vector_tflops);
  stmt.bind(27, g.achievable_bw_gbps);
  BindOptional(stmt, 28, g.launch_price_usd);
  stmt.bind(29, g.fp4_tflops);
  stmt.exec();
}

void UpsertCloud(Connection& db, const Cloud& cloud) {
  BumpCatalogGeneration(db);
  Statement stmt(db,
                         "INSERT INTO clouds (id, name, default_currency, price_scope) "
                         "VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                         "default_currency = excluded.default_currency, "
                         "price_scope = excluded.price_scope");
  stmt.bind(1, cloud.id);
  stmt.bind(2, cloud.name);
  stmt.bind(3, cloud.default_currency);
  stmt.bind(4, cloud.price_scope);
  stmt.exec();
}

void UpsertRegion(Connection& db, const Region& region) {
  BumpCatalogGeneration(db);
  Statement stmt(
      db,
      "INSERT INTO regions (cloud, id, display_name, country, continent) VALUES (?, ?, ?, ?, ?) "
      "ON CONFLICT (cloud, id) DO UPDATE SET display_name = excluded.display_name, "
      "country = excluded.country, continent = excluded.continent");
  stmt.bind(1, region.cloud);
  stmt.bind(2, region.id);
  stmt.bind(3, region.display_name);
  stmt.bind(4, region.country);
  stmt.bind(5, region.continent);
  stmt.exec();
}

void UpsertSynonym(Connection& db, const GpuSynonym& synonym) {
  BumpCatalogGeneration(db);
  Statement stmt(db,
                         "INSERT INTO gpu_synonyms (cloud, accelerator_name, gpu_id, note) "
                         "VALUES (?, ?, ?, ?) ON CONFLICT (cloud, accelerator_name) DO UPDATE "
                         "SET gpu_id = excluded.gpu_id, note = excluded.note");
  stmt.bind(1, synonym.cloud);
  stmt.bind(2, synonym.accelerator_name);
  if (synonym.gpu_id.empty()) {
    stmt.bind(3);
  } else {
    stmt.bind(3, synonym.gpu_id);
  }
  stmt.bind(4, synonym.note);
  stmt.exec();
}

void UpsertFxRate(Connection& db, const FxRate& rate) {
  BumpCatalogGeneration(db);
  Statement stmt(db,
                         "INSERT INTO fx_rates (currency, units_per_usd, as_of, source) "
                         "VALUES (?, ?, ?, ?) ON CONFLICT (currency) DO UPDATE SET "
                         "units_per_usd = excluded.units_per_usd, as_of = excluded.as_of, "
                         "source = excluded.source");
  stmt.bind(1, rate.currency);
  stmt.bind(2, rate.units_per_usd);
  stmt.bind(3, rules::CanonicalOrSame(rate.as_of));
  stmt.bind(4, rate.source);
  stmt.exec();
}

BatchCounts WriteCatalogBatch(Connection& db, const CatalogBatch& batch) {
  BatchCounts all;
  BumpCatalogGeneration(db);
  for (const auto& g : batch.gpus) UpsertGpu(db, g);
  for (const auto& c : batch.clouds) UpsertCloud(db, c);
  for (const auto& f : batch.fx_rates) UpsertFxRate(db, f);
  all.gpus = static_cast<int>(batch.gpus.size());
  all.clouds = static_cast<int>(batch.clouds.size());
  all.regions = static_cast<int>(batch.regions.size());
  all.fx_rates = static_cast<int>(batch.fx_rates.size());
  WriteCounts& counts = all.instance_types;
  Statement ensure_cloud(
      db, "INSERT INTO clouds (id, name, default_currency) VALUES (?1, ?1, ?2) "
      "ON CONFLICT DO NOTHING");
  Statement ensure_region(
      db, "INSERT INTO regions (cloud, id, display_name) VALUES (?1, ?2, ?2) "
      "ON CONFLICT DO NOTHING");
  BulkInsert upsert_type(db, R"SQL(
INSERT INTO instance_types (cloud, id, gpu_id, gpu_count, vcpus, memory_gib, interconnect,
  interconnect_bw_gbps, network_gbps, arch, host_instance_type, accelerator_name, source))SQL",
                         13, R"SQL(
ON CONFLICT (cloud, id) DO UPDATE SET gpu_id = excluded.gpu_id, gpu_count = excluded.gpu_count,
  vcpus = excluded.vcpus, memory_gib = excluded.memory_gib, interconnect = excluded.interconnect,
  interconnect_bw_gbps = excluded.interconnect_bw_gbps, network_gbps = excluded.network_gbps,
  arch = excluded.arch, host_instance_type = excluded.host_instance_type,
  accelerator_name = excluded.accelerator_name, source = excluded.source
)SQL");
  BulkInsert upsert_price(db, R"SQL(
INSERT INTO prices (cloud, instance_type, region, zone, kind, price_per_hour, currency,
  observed_at, source))SQL",
                          9, R"SQL(
ON CONFLICT (cloud, instance_type, region, zone, kind, observed_at) DO UPDATE SET
  price_per_hour = excluded.price_per_hour, currency = excluded.currency,
  source = excluded.source
)SQL");

  std::set<std::string> clouds;
  auto ensure_cloud_once = [&](const std::string& cloud, const std::string& currency) {
    if (!clouds.insert(cloud).second) return;
    ensure_cloud.bind(1, cloud);
    ensure_cloud.bind(2, currency.empty() ? "USD" : currency);
    all.clouds += ensure_cloud.exec();  // clouds an instance type creates count too
    ensure_cloud.reset();
  };
  for (const auto& price : batch.prices) ensure_cloud_once(price.cloud, price.currency);
  for (const auto& r : batch.regions) {
    ensure_cloud_once(r.cloud, "");
    UpsertRegion(db, r);
  }
  if (!batch.price_scopes.empty()) {
    Statement scope(db, "UPDATE clouds SET price_scope = ?2 WHERE id = ?1");
    for (const auto& [cloud, price_scope] : batch.price_scopes) {
      ensure_cloud_once(cloud, "");
      scope.bind(1, cloud);
      scope.bind(2, price_scope);
      scope.exec();
      scope.reset();
    }
  }
  // A row counts as updated when the catalog held its key before the write or an earlier
  // row of the batch wrote it (as if each row were looked up just before it is written).
  std::vector<std::vector<std::string>> type_keys;
  type_keys.reserve(batch.instance_types.size());
  for (const InstanceType& t : batch.instance_types) type_keys.push_back({t.cloud, t.id});
  std::set<std::vector<std::string>> held_types =
      ExistingKeys(db, "instance_types", {"cloud", "id"}, type_keys);
  for (size_t i = 0; i < batch.instance_types.size(); ++i) {
    const InstanceType& t = batch.instance_types[i];
    ensure_cloud_once(t.cloud, "");
    const bool existed = !held_types.insert(type_keys[i]).second;
    upsert_type.Add(t.cloud + '\x1f' + t.id,
                    {t.cloud, t.id, t.gpu_id, static_cast<long long>(t.gpu_count),
                     OptionalValue(t.vcpus), OptionalValue(t.memory_gib), t.interconnect,
                     t.interconnect_bw_gbps, OptionalValue(t.network_gbps), t.arch,
                     t.host_instance_type, t.accelerator_name, t.source});
    ++(existed ? counts.updated : counts.inserted);
  }
  upsert_type.Flush();  // before the prices that refer to them
  std::vector<std::vector<std::string>> price_keys;
  price_keys.reserve(batch.prices.size());
  for (const PriceObservation& p : batch.prices) {
    price_keys.push_back({p.cloud, p.instance_type, p.region, p.zone, p.kind,
                          rules::CanonicalOrSame(p.observed_at)});
  }
  std::set<std::vector<std::string>> held_prices = ExistingKeys(
      db, "prices", {"cloud", "instance_type", "region", "zone", "kind", "observed_at"},
      price_keys);
  std::set<std::pair<std::string, std::string>> regions;
  for (size_t i = 0; i < batch.prices.size(); ++i) {
    const PriceObservation& p = batch.prices[i];
    if (regions.insert({p.cloud, p.region}).second) {
      ensure_region.bind(1, p.cloud);
      ensure_region.bind(2, p.region);
      all.regions += ensure_region.exec();  // regions a price creates count too
      ensure_region.reset();
    }
    const std::vector<std::string>& key = price_keys[i];
    ++(held_prices.insert(key).second ? all.prices.inserted : all.prices.updated);
    std::string queued_key;
    for (const std::string& part : key) queued_key += part + '\x1f';
    upsert_price.Add(std::move(queued_key),
                     {p.cloud, p.instance_type, p.region, p.zone, p.kind, p.price_per_hour,
                      p.currency, key[5], p.source});
  }
  upsert_price.Flush();
  all.spot_bands = WriteSpotBands(db, batch.spot_bands);
  return all;
}

void RecordImport(Connection& db, const ImportAudit& a) {
  Statement stmt(db, R"SQL(
INSERT INTO imports (actor, format, cloud, started_at, finished_at, accepted, updated, skipped,
  rejected, dry_run, note)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
)SQL");
  stmt.bind(1, a.actor);
  stmt.bind(2, a.format);
  stmt.bind(3, a.cloud);
  stmt.bind(4, a.started_at);
  stmt.bind(5, a.finished_at);
  stmt.bind(6, a.accepted);
  stmt.bind(7, a.updated);
  stmt.bind(8, a.skipped);
  stmt.bind(9, a.rejected);
  stmt.bind(10, a.dry_run ? 1 : 0);
  stmt.bind(11, a.note);
  stmt.exec();
}

}  // namespace gpuplan::db
