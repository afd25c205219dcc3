// What an imported batch refers to must exist: an instance type's GPU (in the catalog or in
// the batch) and a price's currency (an exchange rate in the catalog or in the batch, so
// prices stay comparable). Rows that refer to nothing are moved out of the batch into its
// report as rejected rows ("/instance_types/3/gpu: unknown GPU 'X'"), one line per row at
// its position + 1. Reads the catalog through `catalog`; kUnavailable when it fails.
#pragma once

#include "db/catalog_batch.h"
#include "db/catalog_reader.h"
#include "model/result.h"

namespace gpuplan::db {

// Instance types whose GPU neither the batch nor the catalog has.
Status RejectUnknownGpus(CatalogBatch& batch, CatalogReader& catalog);
// Prices in a currency without an exchange rate in the batch or the catalog.
Status RejectUnknownCurrencies(CatalogBatch& batch, CatalogReader& catalog);

}  // namespace gpuplan::db
