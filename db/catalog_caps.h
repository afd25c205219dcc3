// How large the catalog may grow, and how much one import may carry. A recommendation
// walks every offer of the catalog and the shared snapshot (db/cached_catalog.h) holds them
// all in memory, so an unbounded catalog makes planning slow for every caller. At these
// caps (offers <= current prices) a recommendation plans within the request's planning
// share (plan/deadline.h) on the 2-core development machine (docs/benchmarks.md), and an
// import at the row cap holds the write lock for about a second. Price history (past
// observations of a key) is not capped: only the current price of each key counts.
//
// Three gates, each answering kInvalidArgument naming "rows", "instance_types" or "prices":
//  - CheckImportSize, on the batch alone;
//  - PrecheckCatalogSize, before the write transaction: the catalog's current keys plus
//    the keys the batch adds. A read on the writer's connection: no write lock is taken
//    and nothing is written, so an import that would overflow the catalog never holds
//    the write lock (nor writes its rows only to roll them back);
//  - CheckCatalogSize, inside the writer's transaction before its writes: the
//    authoritative check against a write that committed since the pre-check. When the
//    catalog generation is still the one the pre-check counted it costs one query;
//    otherwise it counts again.
// Functions of their inputs and the database; thread-safe as the connection is.
#pragma once

#include <cstddef>

#include "db/catalog_batch.h"
#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

inline constexpr size_t kMaxImportRows = 50000;      // data rows (or records) of one import
inline constexpr size_t kMaxInstanceTypes = 5000;    // instance types, all clouds
inline constexpr size_t kMaxCurrentPrices = 50000;   // current prices: one per (cloud,
                                                     // instance type, region, zone, kind)

// What PrecheckCatalogSize found, for CheckCatalogSize in the transaction that follows.
struct CatalogCount {
  long long generation = -1;  // catalog_meta 'generation' when counted; -1: not counted
};

// kInvalidArgument naming "rows" when a source has more than kMaxImportRows data rows.
Status CheckImportRows(size_t rows);
// kInvalidArgument naming "rows", "instance_types" or "prices" when `batch` alone is over
// a cap (its rows, or the instance types or prices it would write).
Status CheckImportSize(const CatalogBatch& batch);
// Outside any transaction, before the write transaction of `batch`: kInvalidArgument
// naming "instance_types" or "prices" when the catalog's instance types (or current price
// keys) plus those of `batch` not in the catalog yet are more than the cap. Fills `count`.
// Reads only: the current-price count walks the prices' UNIQUE index (every history row),
// without the write lock. Throws SqlError as reads do.
Status PrecheckCatalogSize(Connection& db, const CatalogBatch& batch, CatalogCount& count);
// Inside the caller's write transaction, before writing `batch`: the same check, made
// again only when a catalog write committed since `count` was taken (its generation
// changed). The caller returns the error and its transaction rolls back with nothing
// written. Throws SqlError as the writes do.
Status CheckCatalogSize(Connection& db, const CatalogBatch& batch, const CatalogCount& count);

}  // namespace gpuplan::db
