// How large the catalog may grow, and how much one import may carry. A recommendation
// walks every offer of the catalog and the shared snapshot (db/cached_catalog.h) holds them
// all in memory, so an unbounded catalog makes planning slow for every caller. At these
// caps (offers <= current prices) a recommendation plans within the request's planning
// share (plan/deadline.h) on the 2-core development machine (docs/benchmarks.md), and an
// import at the row cap holds the write lock for about a second.
//
// Two gates, both answering kInvalidArgument naming "rows", "instance_types" or "prices":
//  - CheckImportSize, before any write transaction (the write lock is never taken for an
//    import that is too large by itself);
//  - CheckCatalogSize, inside the writer's transaction after its writes: the caller returns
//    the error and its transaction rolls back, so a refused write leaves nothing behind.
// Pure functions of their inputs; thread-safe.
#pragma once

#include <SQLiteCpp/Database.h>

#include <cstddef>

#include "db/catalog_batch.h"
#include "model/result.h"

namespace gpuplan::db {

inline constexpr size_t kMaxImportRows = 50000;      // data rows (or records) of one import
inline constexpr size_t kMaxInstanceTypes = 5000;    // instance types, all clouds
inline constexpr size_t kMaxCurrentPrices = 50000;   // current prices: one per (cloud,
                                                     // instance type, region, zone, kind)

// kInvalidArgument naming "rows" when a source has more than kMaxImportRows data rows.
Status CheckImportRows(size_t rows);
// kInvalidArgument naming "rows", "instance_types" or "prices" when `batch` alone is over
// a cap (its rows, or the instance types or prices it would write).
Status CheckImportSize(const CatalogBatch& batch);
// Inside the caller's write transaction, after writing `batch`: kInvalidArgument naming
// "instance_types" or "prices" when the catalog now holds more than its cap. Counts only
// what the batch can have grown. Throws SQLite::Exception as the writes do.
Status CheckCatalogSize(SQLite::Database& db, const CatalogBatch& batch);

}  // namespace gpuplan::db
