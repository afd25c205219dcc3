// Reading the whole catalog (GPUs, clouds, regions, exchange rates, instance types and
// every price observation) for export; importing it back reproduces it exactly.
#pragma once

#include <SQLiteCpp/Database.h>

#include "db/catalog_batch.h"
#include "model/result.h"

namespace gpuplan::db {

// Everything in a stable order (ids, then keys). kUnavailable on database errors.
Result<CatalogBatch> ExportCatalog(SQLite::Database& db);

}  // namespace gpuplan::db
