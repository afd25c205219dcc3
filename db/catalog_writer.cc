#include "db/catalog_writer.h"

#include <chrono>
#include <ctime>
#include <set>

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
          "ON CONFLICT (key) DO UPDATE SET value = CAST(catalog_meta.value AS INTEGER) + 1");
}

long long CatalogGeneration(Connection& db) {
  Statement s(db, "SELECT CAST(value AS INTEGER) FROM catalog_meta WHERE key = 'generation'");
  return s.executeStep() ? s.getColumn(0).getInt64() : 0;
}

void UpsertGpu(Connection& db, const model::GpuSpec& g) {
  BumpCatalogGeneration(db);
  Statement stmt(db, R"SQL(
INSERT INTO gpus (id, name, vendor, architecture, release_year, memory_gb, memory_type,
  memory_bw_gbps, fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops,
  fp8_tflops, int8_tops, nvlink_bw_gbps, pcie_gen, tdp_w, form_factor, source, sm_count,
  boost_clock_mhz, l2_cache_mb, base_clock_mhz, fp16_acc16_tflops, fp16_vector_tflops,
  achievable_bw_gbps, launch_price_usd)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
  ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)
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
  launch_price_usd = excluded.launch_price_usd
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
  Statement exists(db, "SELECT 1 FROM instance_types WHERE cloud = ? AND id = ?");
  Statement upsert_type(db, R"SQL(
INSERT INTO instance_types (cloud, id, gpu_id, gpu_count, vcpus, memory_gib, interconnect,
  interconnect_bw_gbps, network_gbps, arch, host_instance_type, accelerator_name, source)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
ON CONFLICT (cloud, id) DO UPDATE SET gpu_id = excluded.gpu_id, gpu_count = excluded.gpu_count,
  vcpus = excluded.vcpus, memory_gib = excluded.memory_gib, interconnect = excluded.interconnect,
  interconnect_bw_gbps = excluded.interconnect_bw_gbps, network_gbps = excluded.network_gbps,
  arch = excluded.arch, host_instance_type = excluded.host_instance_type,
  accelerator_name = excluded.accelerator_name, source = excluded.source
)SQL");
  Statement price_exists(db, R"SQL(
SELECT 1 FROM prices WHERE cloud = ? AND instance_type = ? AND region = ? AND zone = ? AND kind = ?
  AND observed_at = ?)SQL");
  Statement upsert_price(db, R"SQL(
INSERT INTO prices (cloud, instance_type, region, zone, kind, price_per_hour, currency,
  observed_at, source)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
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
  for (const InstanceType& t : batch.instance_types) {
    ensure_cloud_once(t.cloud, "");
    exists.bind(1, t.cloud);
    exists.bind(2, t.id);
    bool existed = exists.executeStep();
    exists.reset();
    upsert_type.bind(1, t.cloud);
    upsert_type.bind(2, t.id);
    upsert_type.bind(3, t.gpu_id);
    upsert_type.bind(4, t.gpu_count);
    BindOptional(upsert_type, 5, t.vcpus);
    BindOptional(upsert_type, 6, t.memory_gib);
    upsert_type.bind(7, t.interconnect);
    upsert_type.bind(8, t.interconnect_bw_gbps);
    BindOptional(upsert_type, 9, t.network_gbps);
    upsert_type.bind(10, t.arch);
    upsert_type.bind(11, t.host_instance_type);
    upsert_type.bind(12, t.accelerator_name);
    upsert_type.bind(13, t.source);
    upsert_type.exec();
    upsert_type.reset();
    ++(existed ? counts.updated : counts.inserted);
  }
  std::set<std::pair<std::string, std::string>> regions;
  for (const PriceObservation& p : batch.prices) {
    if (regions.insert({p.cloud, p.region}).second) {
      ensure_region.bind(1, p.cloud);
      ensure_region.bind(2, p.region);
      all.regions += ensure_region.exec();  // regions a price creates count too
      ensure_region.reset();
    }
    price_exists.bind(1, p.cloud);
    price_exists.bind(2, p.instance_type);
    price_exists.bind(3, p.region);
    price_exists.bind(4, p.zone);
    price_exists.bind(5, p.kind);
    const std::string observed_at = rules::CanonicalOrSame(p.observed_at);
    price_exists.bind(6, observed_at);
    ++(price_exists.executeStep() ? all.prices.updated : all.prices.inserted);
    price_exists.reset();
    upsert_price.bind(1, p.cloud);
    upsert_price.bind(2, p.instance_type);
    upsert_price.bind(3, p.region);
    upsert_price.bind(4, p.zone);
    upsert_price.bind(5, p.kind);
    upsert_price.bind(6, p.price_per_hour);
    upsert_price.bind(7, p.currency);
    upsert_price.bind(8, observed_at);
    upsert_price.bind(9, p.source);
    upsert_price.exec();
    upsert_price.reset();
  }
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
