// A CatalogReader that serves the planner's hot reads from a snapshot of the catalog built
// once per catalog generation (every write bumps catalog_meta.generation) and shared by
// every connection of the process: GPUs, exchange rates, instance types and their offers,
// and the spot series the planner summarizes. One small query per CachedCatalog checks the
// generation; everything else the snapshot already holds is answered without SQL.
// In-memory databases (private to their connection) are never shared: reads go to SQLite.
// Use one CachedCatalog per request, on the thread that holds the connection.
#pragma once

#include <SQLiteCpp/Database.h>

#include <memory>

#include "db/catalog_store.h"
#include "db/database.h"

namespace gpuplan::db {

class CachedSnapshot;  // db/cached_catalog.cc

class CachedCatalog : public CatalogReader {
 public:
  explicit CachedCatalog(SQLite::Database& db) : db_(db), store_(db) {}
  // A pooled connection: its generation query is prepared once per connection.
  explicit CachedCatalog(ConnectionPool::Lease& lease)
      : db_(*lease), store_(*lease), lease_(&lease) {}

  Result<std::vector<model::GpuSpec>> ListGpus() override;
  Result<model::GpuSpec> GetGpu(const std::string& id) override;
  Result<std::vector<CloudSummary>> ListClouds() override { return store_.ListClouds(); }
  Result<std::vector<Region>> ListRegions(const std::string& cloud) override {
    return store_.ListRegions(cloud);
  }
  Result<std::vector<Offer>> ListOffers(const OfferFilter& filter) override {
    return store_.ListOffers(filter);
  }
  Result<std::pair<InstanceType, std::vector<Offer>>> GetInstanceType(
      const std::string& cloud, const std::string& id) override;
  Result<std::map<std::string, FxRate>> FxRates() override;
  // Whole-region series (no zone, until or cursor; any since) of up to 2 000 rows are kept
  // in the snapshot.
  Result<std::vector<PriceObservation>> SpotHistory(const SpotQuery& query) override;
  Result<std::string> AcceleratorName(const std::string& scope, const std::string& gpu_id) override {
    return store_.AcceleratorName(scope, gpu_id);
  }

 private:
  // The snapshot of the current generation, built on first use; nullptr for in-memory
  // databases.
  Result<std::shared_ptr<CachedSnapshot>> Snapshot();

  SQLite::Database& db_;
  CatalogStore store_;
  ConnectionPool::Lease* lease_ = nullptr;
  std::shared_ptr<CachedSnapshot> snapshot_;
  bool checked_ = false;
};

}  // namespace gpuplan::db
