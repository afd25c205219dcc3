#include "db/catalog_export.h"

#include "db/catalog_store.h"
#include "db/price_rows.h"
#include "db/spot_bands.h"
#include "db/sql.h"
#include "db/write_transaction.h"

namespace gpuplan::db {

CatalogSnapshot::CatalogSnapshot(Connection& db) : db_(db) {}

Result<std::unique_ptr<CatalogSnapshot>> CatalogSnapshot::Open(Connection& db) {
  try {
    std::unique_ptr<CatalogSnapshot> s(new CatalogSnapshot(db));
    db.exec(BeginSql(db.dialect(), TransactionKind::kSnapshot));
    // The snapshot starts at the first read; take it now, before anything is streamed.
    db.execAndGet("SELECT count(*) FROM clouds");
    s->types_ = std::make_unique<Statement>(db, R"SQL(
SELECT cloud, id, gpu_id, gpu_count, vcpus, memory_gib, interconnect, interconnect_bw_gbps,
  network_gbps, arch, host_instance_type, accelerator_name, source
FROM instance_types ORDER BY cloud, id)SQL", RowFetch::kBatched);
    s->prices_ = std::make_unique<Statement>(
        db, std::string("SELECT ") + kPriceColumns +
                " FROM prices ORDER BY cloud, instance_type, region, zone, kind, observed_at",
        RowFetch::kBatched);
    return s;
  } catch (const SqlError& e) {
    try {
      db.exec("ROLLBACK");
    } catch (...) {
    }
    return StorageFailure(e);  // as every read answers (GuardSqlite)
  }
}

CatalogSnapshot::~CatalogSnapshot() {
  try {
    types_.reset();
    prices_.reset();
    db_.exec("ROLLBACK");
  } catch (...) {
  }
}

Result<ReferenceData> CatalogSnapshot::Reference() {
  return GuardSqlite([&]() -> Result<ReferenceData> {
    ReferenceData r;
    CatalogStore store(db_);
    auto gpus = store.ListGpus();
    if (!gpus.ok()) return gpus.error();
    r.gpus = std::move(gpus).value();
    Statement clouds(
        db_, "SELECT id, name, default_currency, price_scope FROM clouds ORDER BY id");
    while (clouds.executeStep()) {
      r.clouds.push_back({clouds.getColumn(0).getString(), clouds.getColumn(1).getString(),
                          clouds.getColumn(2).getString(), clouds.getColumn(3).getString()});
    }
    auto regions = store.ListRegions("");
    if (!regions.ok()) return regions.error();
    r.regions = std::move(regions).value();
    auto rates = store.FxRates();
    if (!rates.ok()) return rates.error();
    for (auto& [currency, rate] : *rates) r.fx_rates.push_back(rate);
    r.spot_bands = ReadSpotBands(db_);
    return r;
  });
}

bool CatalogSnapshot::NextInstanceType(InstanceType& t) {
  Statement& s = *types_;
  if (!s.executeStep()) return false;
  t = InstanceType{};
  t.cloud = s.getColumn(0).getString();
  t.id = s.getColumn(1).getString();
  t.gpu_id = s.getColumn(2).getString();
  t.gpu_count = s.getColumn(3).getInt();
  if (!s.getColumn(4).isNull()) t.vcpus = s.getColumn(4).getDouble();
  if (!s.getColumn(5).isNull()) t.memory_gib = s.getColumn(5).getDouble();
  t.interconnect = s.getColumn(6).getString();
  t.interconnect_bw_gbps = s.getColumn(7).getDouble();
  if (!s.getColumn(8).isNull()) t.network_gbps = s.getColumn(8).getDouble();
  t.arch = s.getColumn(9).getString();
  t.host_instance_type = s.getColumn(10).getString();
  t.accelerator_name = s.getColumn(11).getString();
  t.source = s.getColumn(12).getString();
  return true;
}

bool CatalogSnapshot::NextPrice(PriceObservation& out) {
  if (!prices_->executeStep()) return false;
  out = ReadPriceRow(*prices_);
  return true;
}

}  // namespace gpuplan::db
