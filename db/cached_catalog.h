// A CatalogReader that serves the planner's hot reads from a snapshot of the catalog built
// once per catalog generation (every write bumps catalog_meta.generation) and shared by
// every connection of the process. A snapshot is read in one read transaction, its
// generation included, and serves a request that read the same generation or read its
// state before the snapshot's transaction began (it holds every write that state does): GPUs, exchange rates, instance types and their offers
// (the process's one cache of offers), and the spot series the planner summarizes. One
// small query per request checks the generation (ReadRequestCatalogState when the request
// read it already, else one per CachedCatalog); everything else the snapshot already holds
// is answered without SQL.
// In-memory SQLite databases (private to their connection) are never shared: reads go to
// the database every time.
// The same query reads the newest measured run's id, and the snapshot keeps values that upper
// layers derive from the catalog and the runs (Derived: the runs' predictions), so planning
// requests neither list nor decode runs.
// Use one CachedCatalog per request, on the thread that holds the connection.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <typeindex>

#include "db/catalog_store.h"
#include "db/database.h"
#include "db/sql.h"

namespace gpuplan::db {

class CachedSnapshot;  // db/cached_catalog.cc

// The catalog's state as one request reads it: its generation (what a catalog ETag names)
// and the newest measured run's id.
struct CatalogState {
  long long generation = 0;
  long long newest_measurement_id = 0;
  // When the read had its row (steady clock): a snapshot whose read transaction began
  // later holds at least this state's catalog.
  std::chrono::steady_clock::time_point read_at{};
};
// How long a state read from a database file (its generation and newest measured run) may
// be reused by later requests of this process (0, the default: every request reads it). A write committed through this process
// (db::WriteTransaction) is seen by the next request whatever the age; a write by another
// process (a CLI import into the same file) within `max_age`. The server sets it once at
// start (--catalog-recheck-ms, docs/operations.md), before requests are served.
// Thread-safe.
void SetCatalogStateMaxAge(std::chrono::microseconds max_age);
// What `gpuplan serve` sets unless told otherwise.
inline constexpr std::chrono::milliseconds kDefaultCatalogRecheck{10};

// Reads the state on `lease` (or takes the state kept within SetCatalogStateMaxAge's bound)
// and keeps it for this thread's request: CachedCatalogs of the
// same database file made on this thread use it instead of reading it again, until
// ForgetRequestCatalogState (the request's end: api/middleware.h). So the ETag of a catalog
// read and the snapshot that answers it are of one generation, read once. Errors: throws
// SqlError as the read does.
CatalogState ReadRequestCatalogState(ConnectionPool::Lease& lease);
void ForgetRequestCatalogState();

class CachedCatalog : public CatalogReader {
 public:
  explicit CachedCatalog(Connection& db) : db_(db), store_(db) {}
  // A pooled connection: its generation query is prepared once per connection.
  explicit CachedCatalog(ConnectionPool::Lease& lease)
      : db_(*lease), store_(*lease), lease_(&lease) {}

  Result<std::vector<model::GpuSpec>> ListGpus() override;
  Result<model::GpuSpec> GetGpu(const std::string& id) override;
  Result<std::vector<CloudSummary>> ListClouds() override { return store_.ListClouds(); }
  Result<std::vector<Region>> ListRegions(const std::string& cloud) override {
    return store_.ListRegions(cloud);
  }
  // From the snapshot: no SQL. AllOffers' vector is the snapshot's own: immutable, safe to
  // read from any thread, and kept alive by the pointer beyond this CachedCatalog. In-memory
  // databases read SQLite (CatalogStore) instead.
  Result<std::vector<Offer>> ListOffers(const OfferFilter& filter) override;
  Result<std::shared_ptr<const std::vector<Offer>>> AllOffers() override;
  Result<std::pair<InstanceType, std::vector<Offer>>> GetInstanceType(
      const std::string& cloud, const std::string& id) override;
  Result<InstanceOffers> GetInstanceOffers(const std::string& cloud,
                                           const std::string& id) override;
  Result<std::map<std::string, FxRate>> FxRates() override;
  // Whole-region series (no zone, until or cursor; any since) of up to 2 000 rows are kept
  // in the snapshot.
  Result<std::vector<PriceObservation>> SpotHistory(const SpotQuery& query) override;
  Result<std::shared_ptr<const std::vector<PriceObservation>>> SharedSpotHistory(
      const SpotQuery& query) override;
  Result<std::optional<GpuSynonym>> SynonymOf(const std::string& scope,
                                              const std::string& gpu_id) override {
    return store_.SynonymOf(scope, gpu_id);
  }

  // The id of the newest measured run (0: none) when this request first read the catalog:
  // runs are append-only (db/measurements.h), so a larger id means runs were recorded.
  Result<long long> NewestMeasurementId();

  // Derived (CatalogReader): a T derived from this generation's catalog (and measured
  // runs), kept in the snapshot and shared by every request of the generation. `update`
  // gets this generation's value kept so far (nullptr: none) and returns it when still
  // current, or a new one (built by reading this catalog on this request's connection). One
  // request updates at a time; the others do not wait for it: they get the value kept, which
  // may lack what the update adds, or, in a new generation, the value of the previous one
  // (derived from the catalog before the last write). Only while no value was ever kept do
  // they wait (each holding its connection). After an error nothing is kept. In-memory
  // databases keep the value for this CachedCatalog only. `update` must not call Derived.
  // Errors: `update`'s, or kUnavailable. Thread-safe across CachedCatalogs; a CachedCatalog
  // is one request's.

 private:
  Result<std::shared_ptr<const void>> DerivedValue(std::type_index type,
                                                   const ErasedUpdate& update) override;
  // The snapshot of the current generation, built on first use; nullptr for in-memory
  // databases.
  Result<std::shared_ptr<CachedSnapshot>> Snapshot();

  Connection& db_;
  CatalogStore store_;
  ConnectionPool::Lease* lease_ = nullptr;
  std::shared_ptr<CachedSnapshot> snapshot_;
  bool checked_ = false;
  std::optional<long long> newest_measurement_id_;
  std::map<std::type_index, std::shared_ptr<const void>> derived_;  // this request's
};

}  // namespace gpuplan::db
