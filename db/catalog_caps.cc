#include "db/catalog_caps.h"

#include <set>
#include <string>
#include <vector>

#include "db/bulk_rows.h"
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
  std::set<std::vector<std::string>> keys;
  for (const InstanceType& t : batch.instance_types) keys.insert({t.cloud, t.id});
  const std::vector<std::vector<std::string>> distinct(keys.begin(), keys.end());
  return keys.size() - ExistingKeys(db, "instance_types", {"cloud", "id"}, distinct).size();
}

// Current-price keys of `batch` the catalog does not hold, each counted once; looked up
// by a prefix of the prices' UNIQUE (cloud, instance_type, region, zone, kind, observed_at).
size_t NewPriceKeys(Connection& db, const CatalogBatch& batch) {
  std::set<std::vector<std::string>> keys;
  for (const PriceObservation& p : batch.prices) {
    keys.insert({p.cloud, p.instance_type, p.region, p.zone, p.kind});
  }
  const std::vector<std::vector<std::string>> distinct(keys.begin(), keys.end());
  return keys.size() -
         ExistingKeys(db, "prices", {"cloud", "instance_type", "region", "zone", "kind"}, distinct)
             .size();
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
