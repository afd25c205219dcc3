// A catalog refresh: the parsed SkyPilot catalogs of several clouds written as ONE import
// (db/catalog_import.h: one write transaction, all clouds or nothing, one audit
// row), and what it changed in each cloud's current prices (the latest observation per
// instance type, region, zone and kind; db/migrations.cc `current_prices`).
//
// What changed is exact: the current prices are read before the write, and read again
// inside the write transaction just before its commit; if another connection committed in
// between (db::WriteCommits moved), the write is rolled back and the refresh starts
// again, at most kRefreshAttempts times. Prices the refresh does not list are kept, not
// deleted: they are reported as `not_seen` and age into `stale` (plan/price_quality.h).
// Not thread-safe on one connection (as every write); the caller owns `db`.
#pragma once

#include <string>
#include <vector>

#include "db/catalog_batch.h"
#include "db/catalog_import.h"
#include "db/csv.h"
#include "db/skypilot_parser.h"
#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

inline constexpr int kRefreshAttempts = 3;
inline constexpr size_t kRefreshMovesReported = 5;  // largest price moves listed per cloud

// The rows of a SkyPilot table that can make a GPU offer: those naming an accelerator
// (AcceleratorName), and host rows of the machine types `attach` gives GPUs to (GCP;
// nullptr for other clouds: the parser only skips host rows there). Upstream files list
// every instance type of a cloud, GPU or not (AWS: far more rows than the import cap), so
// a refresh keeps these before parsing; `left_out` is set to the number of the others. A
// table without an AcceleratorName column is returned whole (the parser names the column).
CsvTable SkypilotGpuRows(const CsvTable& table, const GcpAttachRules* attach, int& left_out);

// One cloud's parsed catalog and where it came from (a file path or a URL).
struct CloudCatalog {
  std::string cloud;
  std::string origin;
  CatalogBatch batch;         // as the SkyPilot parser made it, with no rejected rows
  int rows_without_gpu = 0;   // rows SkypilotGpuRows left out before parsing
};

// One current price that the refresh changed.
struct PriceMove {
  std::string instance_type, region, zone, kind;  // zone "" = the whole region
  double before_per_hour = 0, after_per_hour = 0;
  std::string currency;  // of `after_per_hour` (and of `before_per_hour` unless it changed)
  double relative_change() const;  // after / before - 1 (inf when before is 0)
};

struct CloudRefresh {
  std::string cloud, origin;
  int rows_without_gpu = 0;  // left out before parsing (SkypilotGpuRows)
  int rows_read = 0, rows_skipped = 0;  // parsed; skipped by the parser (reasons in the import)
  int prices_listed = 0;     // current-price keys the refresh lists
  int prices_added = 0;      // keys the catalog had no current price for
  int prices_changed = 0;    // keys whose current price (or currency) moved
  int prices_unchanged = 0;  // keys listed at the current price, or at an older date
  int prices_not_seen = 0;   // keys with a current price the refresh does not list (kept)
  int instance_types_added = 0;
  std::vector<std::string> instance_types_added_ids;  // sorted
  std::vector<PriceMove> largest_moves;  // at most kRefreshMovesReported, largest |change| first
};

struct RefreshOutcome {
  std::vector<CloudRefresh> clouds;  // in the order given
  ImportOutcome import;              // rows and write counts of the whole refresh
  int attempts = 1;
};

// Writes every catalog in `catalogs` in one import by `actor` (format "skypilot", the audit
// row's cloud the clouds joined by ","). Errors: those of ImportCatalog (nothing written:
// kInvalidArgument naming the field or cap, kUnavailable when busy or failing);
// kInvalidArgument naming "cloud" when `catalogs` is empty, names a cloud twice or holds
// rejected rows; kUnavailable when the catalog changed under every attempt.
Result<RefreshOutcome> RefreshCatalog(Connection& db, const std::vector<CloudCatalog>& catalogs,
                                      const std::string& actor);

}  // namespace gpuplan::db
