// Writes catalog records. Every function expects to run inside the caller's transaction
// (Transaction), so that a whole import or seed is all or nothing. They throw
// SqlError on a constraint violation; the caller's transaction rolls back.
#pragma once

#include <ctime>
#include <string>

#include "db/catalog_batch.h"
#include "db/catalog_types.h"
#include "db/gpu_resolver.h"
#include "db/sql.h"
#include "db/text.h"  // UtcNow, FormatUtc (stamps of written rows)
#include "model/gpu_spec.h"

namespace gpuplan::db {

struct WriteCounts {
  int inserted = 0;
  int updated = 0;
};

struct BatchCounts {
  WriteCounts instance_types;
  WriteCounts prices;
  int gpus = 0, clouds = 0, regions = 0, fx_rates = 0;
  int spot_bands = 0;  // written (each replaces its region's bands: db/spot_bands.h)
};

// Every write below also bumps the catalog generation (catalog_meta 'generation'), which
// tells readers' caches that the catalog changed. Deletes elsewhere call it themselves.
void BumpCatalogGeneration(Connection& db);
// The current generation (0 before any write). A request reads it once with the newest
// measured run's id (db::ReadRequestCatalogState, db/cached_catalog.h).
long long CatalogGeneration(Connection& db);

void UpsertGpu(Connection& db, const model::GpuSpec& gpu);
void UpsertCloud(Connection& db, const Cloud& cloud);
void UpsertRegion(Connection& db, const Region& region);
void UpsertSynonym(Connection& db, const GpuSynonym& synonym);
void UpsertFxRate(Connection& db, const FxRate& rate);

// Upserts the batch: reference data, then instance types, price observations and spot
// interruption bands (WriteSpotBands: a region's bands are replaced). A
// region that is not in the catalog yet is created with its id as display name; an
// unknown cloud is created with the currency of its first price (USD if none).
BatchCounts WriteCatalogBatch(Connection& db, const CatalogBatch& batch);

struct ImportAudit {
  std::string actor;  // api key name, "seed", or "cli"
  std::string format;
  std::string cloud;
  std::string started_at, finished_at;
  int accepted = 0, updated = 0, skipped = 0, rejected = 0;
  bool dry_run = false;
  std::string note;
};
void RecordImport(Connection& db, const ImportAudit& audit);

}  // namespace gpuplan::db
