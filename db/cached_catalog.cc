#include "db/cached_catalog.h"

#include <map>
#include <mutex>
#include <tuple>

#include "db/catalog_writer.h"

namespace gpuplan::db {

// Immutable once built, except for the spot series, filled on demand under their mutex.
class CatalogSnapshot {
 public:
  long long generation = 0;
  std::vector<model::GpuSpec> gpus;
  std::map<std::string, size_t> gpu_index;
  std::map<std::string, FxRate> rates;
  std::map<std::pair<std::string, std::string>, std::pair<InstanceType, std::vector<Offer>>> types;

  std::mutex spot_mutex;
  std::map<std::tuple<std::string, std::string, std::string, int>,
           std::shared_ptr<const std::vector<PriceObservation>>>
      spot;
};

namespace {

// The current snapshot of each database file.
class SnapshotCache {
 public:
  static SnapshotCache& Instance() {
    static SnapshotCache cache;
    return cache;
  }
  std::shared_ptr<CatalogSnapshot> Get(const std::string& file, long long generation) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(file);
    if (it == entries_.end() || it->second->generation != generation) return nullptr;
    return it->second;
  }
  void Put(const std::string& file, std::shared_ptr<CatalogSnapshot> snapshot) {
    std::lock_guard lock(mutex_);
    auto& slot = entries_[file];
    if (!slot || slot->generation <= snapshot->generation) slot = std::move(snapshot);
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<CatalogSnapshot>> entries_;
};

Result<std::shared_ptr<CatalogSnapshot>> Build(CatalogStore& store, long long generation) {
  auto snapshot = std::make_shared<CatalogSnapshot>();
  snapshot->generation = generation;
  auto gpus = store.ListGpus();
  if (!gpus.ok()) return gpus.error();
  snapshot->gpus = std::move(gpus).value();
  for (size_t i = 0; i < snapshot->gpus.size(); ++i) snapshot->gpu_index[snapshot->gpus[i].id] = i;
  auto rates = store.FxRates();
  if (!rates.ok()) return rates.error();
  snapshot->rates = std::move(rates).value();
  auto offers = store.ListOffers(OfferFilter{});
  if (!offers.ok()) return offers.error();
  for (Offer& o : *offers) {
    auto& entry = snapshot->types[{o.instance.cloud, o.instance.id}];
    entry.first = o.instance;
    entry.second.push_back(std::move(o));
  }
  return snapshot;
}

}  // namespace

Result<std::shared_ptr<CatalogSnapshot>> CachedCatalog::Snapshot() {
  if (checked_) return snapshot_;
  try {
    checked_ = true;
    std::string file = db_.getFilename();
    if (file.empty()) return snapshot_;  // in memory: private to this connection
    long long generation = lease_ ? CatalogGeneration(lease_->Prepared(kCatalogGenerationSql))
                                  : CatalogGeneration(db_);
    snapshot_ = SnapshotCache::Instance().Get(file, generation);
    if (!snapshot_) {
      auto built = Build(store_, generation);
      if (!built.ok()) return built.error();
      snapshot_ = *built;
      SnapshotCache::Instance().Put(file, snapshot_);
    }
    return snapshot_;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<std::vector<model::GpuSpec>> CachedCatalog::ListGpus() {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (!*s) return store_.ListGpus();
  return (*s)->gpus;
}

Result<model::GpuSpec> CachedCatalog::GetGpu(const std::string& id) {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (!*s) return store_.GetGpu(id);
  auto it = (*s)->gpu_index.find(id);
  if (it == (*s)->gpu_index.end()) return store_.GetGpu(id);  // kNotFound, with its message
  return (*s)->gpus[it->second];
}

Result<std::pair<InstanceType, std::vector<Offer>>> CachedCatalog::GetInstanceType(
    const std::string& cloud, const std::string& id) {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (*s) {
    auto it = (*s)->types.find({cloud, id});
    if (it != (*s)->types.end()) return it->second;
  }
  return store_.GetInstanceType(cloud, id);  // unpriced or unknown: SQLite says which
}

Result<std::map<std::string, FxRate>> CachedCatalog::FxRates() {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (!*s) return store_.FxRates();
  return (*s)->rates;
}

Result<std::vector<PriceObservation>> CachedCatalog::SpotHistory(const SpotQuery& q) {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  bool whole_region = q.zone.empty() && q.since.empty() && q.until.empty() && !q.after;
  if (!*s || !whole_region) return store_.SpotHistory(q);
  CatalogSnapshot& snapshot = **s;
  auto key = std::make_tuple(q.cloud, q.instance_type, q.region, q.limit);
  {
    std::lock_guard lock(snapshot.spot_mutex);
    auto it = snapshot.spot.find(key);
    if (it != snapshot.spot.end()) return *it->second;
  }
  auto rows = store_.SpotHistory(q);
  if (!rows.ok()) return rows.error();
  auto shared = std::make_shared<const std::vector<PriceObservation>>(*rows);
  std::lock_guard lock(snapshot.spot_mutex);
  snapshot.spot.emplace(key, shared);
  return rows;
}

}  // namespace gpuplan::db
