#include "db/catalog_export.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include "db/catalog_store.h"
#include "db/price_rows.h"

namespace gpuplan::db {

Result<CatalogBatch> ExportCatalog(SQLite::Database& db) {
  try {
    CatalogBatch b;
    CatalogStore store(db);
    auto gpus = store.ListGpus();
    if (!gpus.ok()) return gpus.error();
    b.gpus = std::move(gpus).value();
    SQLite::Statement clouds(db, "SELECT id, name, default_currency FROM clouds ORDER BY id");
    while (clouds.executeStep()) {
      b.clouds.push_back({clouds.getColumn(0).getString(), clouds.getColumn(1).getString(),
                          clouds.getColumn(2).getString()});
    }
    auto regions = store.ListRegions("");
    if (!regions.ok()) return regions.error();
    b.regions = std::move(regions).value();
    auto rates = store.FxRates();
    if (!rates.ok()) return rates.error();
    for (auto& [currency, rate] : *rates) b.fx_rates.push_back(rate);
    SQLite::Statement types(db, R"SQL(
SELECT cloud, id, gpu_id, gpu_count, vcpus, memory_gib, interconnect, interconnect_bw_gbps,
  network_gbps, arch, host_instance_type, accelerator_name, source
FROM instance_types ORDER BY cloud, id)SQL");
    while (types.executeStep()) {
      InstanceType t;
      t.cloud = types.getColumn(0).getString();
      t.id = types.getColumn(1).getString();
      t.gpu_id = types.getColumn(2).getString();
      t.gpu_count = types.getColumn(3).getInt();
      if (!types.getColumn(4).isNull()) t.vcpus = types.getColumn(4).getDouble();
      if (!types.getColumn(5).isNull()) t.memory_gib = types.getColumn(5).getDouble();
      t.interconnect = types.getColumn(6).getString();
      t.interconnect_bw_gbps = types.getColumn(7).getDouble();
      if (!types.getColumn(8).isNull()) t.network_gbps = types.getColumn(8).getDouble();
      t.arch = types.getColumn(9).getString();
      t.host_instance_type = types.getColumn(10).getString();
      t.accelerator_name = types.getColumn(11).getString();
      t.source = types.getColumn(12).getString();
      b.instance_types.push_back(std::move(t));
    }
    SQLite::Statement prices(db, std::string("SELECT ") + kPriceColumns +
                                     " FROM prices ORDER BY cloud, instance_type, region, zone, "
                                     "kind, observed_at");
    while (prices.executeStep()) b.prices.push_back(ReadPriceRow(prices));
    return b;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

}  // namespace gpuplan::db
