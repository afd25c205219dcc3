// What an imported batch refers to must exist: an instance type's GPU (in the catalog or in
// the batch) and a price's currency (an exchange rate in the catalog or in the batch, so
// prices stay comparable). Rows that refer to nothing are moved out of the batch into its
// report as rejected rows ("/instance_types/3/gpu: unknown GPU 'X'"), one line per row at
// its position + 1. Reads the catalog through `catalog`; kUnavailable when it fails.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "db/catalog_batch.h"
#include "db/catalog_reader.h"
#include "model/result.h"

namespace gpuplan::db {

// Instance types whose GPU neither the batch nor the catalog has.
Status RejectUnknownGpus(CatalogBatch& batch, CatalogReader& catalog);
// Prices in a currency without an exchange rate in the batch or the catalog.
Status RejectUnknownCurrencies(CatalogBatch& batch, CatalogReader& catalog);

// Whether the catalog has instance types of one cloud, each type looked up once (imports of
// per-type rows: spot price history, spot interruption bands). Reads through `catalog`,
// which must outlive it; kUnavailable when it fails. Not thread-safe.
class KnownInstanceTypes {
 public:
  KnownInstanceTypes(CatalogReader& catalog, std::string cloud)
      : catalog_(catalog), cloud_(std::move(cloud)) {}
  Result<bool> Has(const std::string& type);

 private:
  CatalogReader& catalog_;
  std::string cloud_;
  std::set<std::string> known_, unknown_;
};

}  // namespace gpuplan::db
