// Reading the whole catalog for export (GPUs, clouds, regions, exchange rates, spot
// interruption bands, instance types and every price observation) as one consistent snapshot, a row at a time, so an
// export of any size is streamed in bounded memory. Importing an export reproduces it.
#pragma once

#include <memory>
#include <vector>

#include "db/catalog_types.h"
#include "db/sql.h"
#include "model/gpu_spec.h"
#include "model/result.h"

namespace gpuplan::db {

// The small reference tables, read whole.
struct ReferenceData {
  std::vector<model::GpuSpec> gpus;     // by id
  std::vector<Cloud> clouds;            // by id
  std::vector<Region> regions;          // by cloud, id
  std::vector<FxRate> fx_rates;         // by currency
  std::vector<SpotBand> spot_bands;     // by cloud, region, instance type
};

// Holds a read transaction on `db` from construction to destruction, so every read sees
// the same catalog while writers go on (WAL). Not thread-safe; `db` must outlive it and
// must not be used for anything else meanwhile. The Next* calls step in key order and
// throw SqlError on database errors.
class CatalogSnapshot {
 public:
  // Begins the transaction; kUnavailable when the database cannot be read.
  static Result<std::unique_ptr<CatalogSnapshot>> Open(Connection& db);
  ~CatalogSnapshot();  // ends the transaction; never throws
  CatalogSnapshot(const CatalogSnapshot&) = delete;
  CatalogSnapshot& operator=(const CatalogSnapshot&) = delete;

  Result<ReferenceData> Reference();
  // The next instance type by (cloud, id); false after the last.
  bool NextInstanceType(InstanceType& out);
  // The next price by (cloud, instance_type, region, zone, kind, observed_at); false after
  // the last.
  bool NextPrice(PriceObservation& out);

 private:
  explicit CatalogSnapshot(Connection& db);

  Connection& db_;
  std::unique_ptr<Statement> types_;
  std::unique_ptr<Statement> prices_;
};

}  // namespace gpuplan::db
