#include "db/catalog_caps.h"

#include <set>
#include <string>
#include <tuple>

#include "db/catalog_writer.h"
#include "db/sql.h"

namespace gpuplan::db {

namespace {

Error OverCap(const char* field, size_t count, size_t cap, const char* what) {
  return Error::Invalid(field, std::string(what) + ": " + std::to_string(count) +
                                   " is more than the cap of " + std::to_string(cap) +
                                   "; nothing was written (docs/operations.md, catalog limits)");
}

size_t Count(Connection& db, const char* sql) {
  Statement s(db, sql);
  return s.executeStep() ? static_cast<size_t>(s.getColumn(0).getInt64()) : 0;
}

// Instance types of `batch` the catalog does not hold, each counted once.
size_t NewInstanceTypes(Connection& db, const CatalogBatch& batch) {
  Statement exists(db, "SELECT 1 FROM instance_types WHERE cloud = ? AND id = ?");
  std::set<std::pair<std::string, std::string>> seen;
  size_t added = 0;
  for (const InstanceType& t : batch.instance_types) {
    if (!seen.insert({t.cloud, t.id}).second) continue;
    exists.bind(1, t.cloud);
    exists.bind(2, t.id);
    if (!exists.executeStep()) ++added;
    exists.reset();
  }
  return added;
}

// Current-price keys of `batch` the catalog does not hold, each counted once; looked up
// by a prefix of the prices' UNIQUE (cloud, instance_type, region, zone, kind, observed_at).
size_t NewPriceKeys(Connection& db, const CatalogBatch& batch) {
  Statement exists(db,
                           "SELECT 1 FROM prices WHERE cloud = ? AND instance_type = ? AND "
                           "region = ? AND zone = ? AND kind = ? LIMIT 1");
  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> seen;
  size_t added = 0;
  for (const PriceObservation& p : batch.prices) {
    if (!seen.insert({p.cloud, p.instance_type, p.region, p.zone, p.kind}).second) continue;
    exists.bind(1, p.cloud);
    exists.bind(2, p.instance_type);
    exists.bind(3, p.region);
    exists.bind(4, p.zone);
    exists.bind(5, p.kind);
    if (!exists.executeStep()) ++added;
    exists.reset();
  }
  return added;
}

// The catalog's keys plus the new keys of `batch`, against the caps; `generation` is read
// before counting, so a write committed meanwhile shows as a changed generation.
Status CountAndCheck(Connection& db, const CatalogBatch& batch, long long& generation) {
  generation = CatalogGeneration(db);
  if (!batch.instance_types.empty()) {
    size_t types = Count(db, "SELECT COUNT(*) FROM instance_types") + NewInstanceTypes(db, batch);
    if (types > kMaxInstanceTypes) {
      return OverCap("instance_types", types, kMaxInstanceTypes,
                     "instance types the catalog would hold");
    }
  }
  if (!batch.prices.empty()) {
    size_t current = Count(db, "SELECT COUNT(*) FROM (SELECT DISTINCT cloud, instance_type, "
                               "region, zone, kind FROM prices) AS price_keys") +
                     NewPriceKeys(db, batch);
    if (current > kMaxCurrentPrices) {
      return OverCap("prices", current, kMaxCurrentPrices,
                     "current prices the catalog would hold");
    }
  }
  return OkStatus();
}

}  // namespace

Status CheckImportRows(size_t rows) {
  if (rows > kMaxImportRows) return OverCap("rows", rows, kMaxImportRows, "rows in one import");
  return OkStatus();
}

Status CheckImportSize(const CatalogBatch& batch) {
  Status rows = CheckImportRows(static_cast<size_t>(batch.report.rows_read));
  if (!rows.ok()) return rows;
  if (batch.instance_types.size() > kMaxInstanceTypes) {
    return OverCap("instance_types", batch.instance_types.size(), kMaxInstanceTypes,
                   "instance types in one import");
  }
  if (batch.prices.size() > kMaxImportRows) {
    return OverCap("prices", batch.prices.size(), kMaxImportRows, "prices in one import");
  }
  if (batch.spot_bands.size() > kMaxImportRows) {
    return OverCap("rows", batch.spot_bands.size(), kMaxImportRows,
                   "spot interruption bands in one import");
  }
  return OkStatus();
}

Status PrecheckCatalogSize(Connection& db, const CatalogBatch& batch, CatalogCount& count) {
  long long generation = -1;
  Status st = CountAndCheck(db, batch, generation);
  count.generation = st.ok() ? generation : -1;
  return st;
}

Status CheckCatalogSize(Connection& db, const CatalogBatch& batch, const CatalogCount& count) {
  if (batch.instance_types.empty() && batch.prices.empty()) return OkStatus();
  // Every catalog write bumps the generation (db/catalog_writer.h): unchanged, the catalog
  // is the one the pre-check counted.
  if (count.generation >= 0 && CatalogGeneration(db) == count.generation) return OkStatus();
  long long generation = -1;
  return CountAndCheck(db, batch, generation);
}

}  // namespace gpuplan::db
