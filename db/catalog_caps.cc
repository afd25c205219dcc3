#include "db/catalog_caps.h"

#include <SQLiteCpp/Statement.h>

#include <string>

namespace gpuplan::db {

namespace {

Error OverCap(const char* field, size_t count, size_t cap, const char* what) {
  return Error::Invalid(field, std::string(what) + ": " + std::to_string(count) +
                                   " is more than the cap of " + std::to_string(cap) +
                                   "; nothing was written (docs/operations.md, catalog limits)");
}

size_t Count(SQLite::Database& db, const char* sql) {
  SQLite::Statement s(db, sql);
  return s.executeStep() ? static_cast<size_t>(s.getColumn(0).getInt64()) : 0;
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
  return OkStatus();
}

Status CheckCatalogSize(SQLite::Database& db, const CatalogBatch& batch) {
  if (!batch.instance_types.empty()) {
    size_t types = Count(db, "SELECT COUNT(*) FROM instance_types");
    if (types > kMaxInstanceTypes) {
      return OverCap("instance_types", types, kMaxInstanceTypes,
                     "instance types the catalog would hold");
    }
  }
  if (!batch.prices.empty()) {
    // Walks the UNIQUE (cloud, instance_type, region, zone, kind, observed_at) index.
    size_t current = Count(db, "SELECT COUNT(*) FROM (SELECT 1 FROM prices GROUP BY cloud, "
                               "instance_type, region, zone, kind)");
    if (current > kMaxCurrentPrices) {
      return OverCap("prices", current, kMaxCurrentPrices,
                     "current prices the catalog would hold");
    }
  }
  return OkStatus();
}

}  // namespace gpuplan::db
