#include "db/cached_catalog.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "db/catalog_writer.h"
#include "db/offer_query.h"
#include "db/write_transaction.h"

namespace gpuplan::db {

// Immutable once built, except for the spot series, filled on demand under their mutex.
class CachedSnapshot {
 public:
  long long generation = 0;
  // When the transaction it was read in began (steady clock).
  std::chrono::steady_clock::time_point built_at{};
  std::vector<model::GpuSpec> gpus;
  std::map<std::string, size_t> gpu_index;
  std::map<std::string, FxRate> rates;
  // Every offer, as CatalogStore::ListOffers orders them: the process's one copy.
  std::shared_ptr<const std::vector<Offer>> offers;
  // (cloud, instance type) -> the type and the positions of its offers in `offers`.
  std::map<std::pair<std::string, std::string>, std::pair<InstanceType, std::vector<size_t>>> types;

  std::mutex spot_mutex;
  std::map<std::tuple<std::string, std::string, std::string, std::string, int>,
           std::shared_ptr<const std::vector<PriceObservation>>>
      spot;

  // Held by the one request that checks or updates a derived value (CachedCatalog::Derived).
  std::mutex update_mutex;
  // Guards the two maps below; held only to read or replace an entry.
  std::mutex derived_mutex;
  std::map<std::type_index, std::shared_ptr<const void>> derived;   // of this generation
  std::map<std::type_index, std::shared_ptr<const void>> previous;  // of an earlier one

  // This generation's value of `type`, or else (`or_previous`) an earlier generation's.
  std::shared_ptr<const void> Value(std::type_index type, bool or_previous) {
    std::lock_guard lock(derived_mutex);
    if (auto it = derived.find(type); it != derived.end()) return it->second;
    if (!or_previous) return nullptr;
    auto it = previous.find(type);
    return it == previous.end() ? nullptr : it->second;
  }
  // Every value kept, this generation's over an earlier one's: the next snapshot's previous.
  std::map<std::type_index, std::shared_ptr<const void>> Latest() {
    std::lock_guard lock(derived_mutex);
    auto all = derived;
    all.insert(previous.begin(), previous.end());  // keeps this generation's on a clash
    return all;
  }
  void Keep(std::type_index type, std::shared_ptr<const void> value) {
    std::lock_guard lock(derived_mutex);
    derived[type] = std::move(value);
    previous.erase(type);
  }
};

namespace {

constexpr size_t kMaxCachedSpotRows = 2000;

// The catalog generation and the newest measured run's id, in one query per request.
constexpr const char* kSnapshotStateSql =
    "SELECT (SELECT CAST(value AS BIGINT) FROM catalog_meta WHERE key = 'generation'), "
    "(SELECT coalesce(max(id), 0) FROM measurements)";

using SnapshotState = CatalogState;

// What ReadRequestCatalogState kept for this thread's request (database file, state).
thread_local std::optional<std::pair<std::string, CatalogState>> request_state;

SnapshotState ReadState(Statement& s) {
  // Reset on every path: a kept statement left mid-step would hold a read snapshot open.
  struct Reset {
    Statement& s;
    ~Reset() { s.tryReset(); }
  } reset{s};
  // Taken once the row is read: the database's view of this read (SQLite's read transaction,
  // PostgreSQL's statement snapshot) began before it, so a snapshot whose transaction
  // began at or after read_at holds everything this state does.
  if (!s.executeStep()) return {0, 0, std::chrono::steady_clock::now()};
  CatalogState state{s.getColumn(0).getInt64(), s.getColumn(1).getInt64(), {}};
  state.read_at = std::chrono::steady_clock::now();
  return state;
}

// The last state read of each database file, reused until it is older than the max age or
// this process committed a write since (SetCatalogStateMaxAge).
class KeptStates {
 public:
  static KeptStates& Instance() {
    static KeptStates kept;
    return kept;
  }
  void SetMaxAge(std::chrono::microseconds max_age) {
    max_age_us_.store(max_age.count(), std::memory_order_relaxed);
  }
  // The state of `file` as `db` would read it: kept, or `read()` (and kept). A connection
  // inside a transaction reads its own view (a write not yet committed, or an older
  // snapshot): read, never kept.
  template <typename Read>
  CatalogState Current(const std::string& file, Connection& db, Read&& read) {
    long long max_age_us = max_age_us_.load(std::memory_order_relaxed);
    if (max_age_us <= 0 || file.empty() || db.InTransaction()) {
      return read();
    }
    // Both before the read: a commit after it, or a write by another process after the
    // moment taken, is seen by the next request past the bound.
    unsigned long long commits = LocalCommits();
    auto now = std::chrono::steady_clock::now();
    {
      std::lock_guard lock(mutex_);
      auto it = kept_.find(file);
      if (it != kept_.end() && it->second.commits == commits &&
          now - it->second.read_at < std::chrono::microseconds(max_age_us)) {
        return it->second.state;
      }
    }
    CatalogState state = read();
    std::lock_guard lock(mutex_);
    auto& entry = kept_[file];
    if (entry.read_at <= now) entry = {state, commits, now};
    return state;
  }

 private:
  struct Entry {
    CatalogState state;
    unsigned long long commits = 0;
    std::chrono::steady_clock::time_point read_at{};
  };
  std::atomic<long long> max_age_us_{0};
  std::mutex mutex_;
  std::map<std::string, Entry> kept_;
};

// The current snapshot of each database file.
class SnapshotCache {
 public:
  static SnapshotCache& Instance() {
    static SnapshotCache cache;
    return cache;
  }
  // The snapshot kept for `file`, whatever its generation (nullptr: none).
  std::shared_ptr<CachedSnapshot> Latest(const std::string& file) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(file);
    return it == entries_.end() ? nullptr : it->second;
  }
  // Held while a snapshot of `file` is built, so that after a write one request builds it
  // and the others wait for it instead of each building their own.
  std::mutex& BuildMutex(const std::string& file) {
    std::lock_guard lock(mutex_);
    return build_mutexes_[file];
  }

  // Replaces whatever was there: a restored file may carry a lower generation, and a
  // snapshot that lost a race is simply rebuilt by the next request.
  void Put(const std::string& file, std::shared_ptr<CachedSnapshot> snapshot) {
    std::lock_guard lock(mutex_);
    entries_[file] = std::move(snapshot);
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<CachedSnapshot>> entries_;
  std::map<std::string, std::mutex> build_mutexes_;
};

Result<std::shared_ptr<CachedSnapshot>> Build(CatalogStore& store, long long generation) {
  auto snapshot = std::make_shared<CachedSnapshot>();
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
  snapshot->offers = std::make_shared<const std::vector<Offer>>(std::move(offers).value());
  for (size_t i = 0; i < snapshot->offers->size(); ++i) {
    const Offer& o = (*snapshot->offers)[i];
    auto& entry = snapshot->types[{o.instance.cloud, o.instance.id}];
    entry.first = o.instance;
    entry.second.push_back(i);
  }
  return snapshot;
}

}  // namespace

void SetCatalogStateMaxAge(std::chrono::microseconds max_age) {
  KeptStates::Instance().SetMaxAge(max_age);
}

CatalogState ReadRequestCatalogState(ConnectionPool::Lease& lease) {
  std::string file = DatabaseKey(*lease);
  CatalogState state = KeptStates::Instance().Current(
      file, *lease, [&] { return ReadState(lease.Prepared(kSnapshotStateSql)); });
  request_state.emplace(std::move(file), state);
  return state;
}

void ForgetRequestCatalogState() { request_state.reset(); }

Result<std::shared_ptr<CachedSnapshot>> CachedCatalog::Snapshot() {
  if (checked_) return snapshot_;
  return GuardSqlite([&]() -> Result<std::shared_ptr<CachedSnapshot>> {
    checked_ = true;
    std::string file = DatabaseKey(db_);
    if (file.empty()) return snapshot_;  // in memory: private to this connection
    auto state = [&] {
      if (lease_) return ReadState(lease_->Prepared(kSnapshotStateSql));
      Statement s(db_, kSnapshotStateSql);
      return ReadState(s);
    };
    auto generation = [&] { return state().generation; };
    SnapshotState now = request_state && request_state->first == file
                            ? request_state->second
                            : KeptStates::Instance().Current(file, db_, state);
    newest_measurement_id_ = now.newest_measurement_id;
    long long before = now.generation;
    const bool in_transaction = db_.InTransaction();
    // The kept snapshot serves this request when it is of the generation the request read,
    // or was read from the database after the request's state was (so it holds every write
    // that state does: after a burst of writes one build serves every request that read an
    // older generation meanwhile, instead of each rebuilding). Not inside a transaction,
    // whose own uncommitted writes no shared snapshot holds.
    auto usable = [&](const std::shared_ptr<CachedSnapshot>& kept) {
      return kept && (kept->generation == before ||
                      (!in_transaction && kept->built_at >= now.read_at));
    };
    snapshot_ = SnapshotCache::Instance().Latest(file);
    if (!usable(snapshot_)) {
      std::lock_guard building(SnapshotCache::Instance().BuildMutex(file));
      snapshot_ = SnapshotCache::Instance().Latest(file);  // built while we waited?
      if (usable(snapshot_)) return snapshot_;
      // Inside a transaction (a write's own, uncommitted view) the build is this request's
      // only. Otherwise it reads one snapshot of the database, its generation included, and
      // is shared under that generation: the one this request read or, when a write
      // committed since, a newer one (this request then answers from the newer catalog, as
      // it would without the cache; the next requests that read that generation share it).
      const bool shared = !in_transaction;
      const auto started = std::chrono::steady_clock::now();
      std::optional<Transaction> reading;
      if (shared) reading.emplace(db_, TransactionKind::kSnapshot);
      const long long built_generation = shared ? generation() : before;
      auto built = Build(store_, built_generation);
      if (!built.ok()) return built.error();
      if (reading) reading->commit();
      snapshot_ = *built;
      snapshot_->built_at = started;
      // Served while this generation's own values are derived (CachedCatalog::Derived).
      if (auto earlier = SnapshotCache::Instance().Latest(file)) {
        snapshot_->previous = earlier->Latest();
      }
      if (shared) SnapshotCache::Instance().Put(file, snapshot_);
    }
    return snapshot_;
  });
}

Result<long long> CachedCatalog::NewestMeasurementId() {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (newest_measurement_id_) return *newest_measurement_id_;
  return GuardSqlite([&]() -> Result<long long> {  // in memory: no snapshot was checked
    Statement state(db_, kSnapshotStateSql);
    newest_measurement_id_ = ReadState(state).newest_measurement_id;
    return *newest_measurement_id_;
  });
}

Result<std::shared_ptr<const void>> CachedCatalog::DerivedValue(std::type_index type,
                                                                const ErasedUpdate& update) {
  if (auto mine = derived_.find(type); mine != derived_.end()) return mine->second;
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (!*s) {  // in memory: this request's own
    auto updated = update(nullptr);
    if (!updated.ok()) return updated.error();
    return derived_[type] = *updated;
  }
  CachedSnapshot& snapshot = **s;
  std::unique_lock updating(snapshot.update_mutex, std::try_to_lock);
  if (!updating.owns_lock()) {
    // Another request is updating: use what is kept rather than wait for it (holding this
    // request's pooled connection), unless nothing is kept yet.
    if (auto last = snapshot.Value(type, /*or_previous=*/true)) return derived_[type] = last;
    updating.lock();
  }
  auto updated = update(snapshot.Value(type, /*or_previous=*/false));
  if (!updated.ok()) return updated.error();
  snapshot.Keep(type, *updated);
  return derived_[type] = *updated;
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
  auto found = GetInstanceOffers(cloud, id);
  if (!found.ok()) return found.error();
  std::pair<InstanceType, std::vector<Offer>> copied{std::move(found->type), {}};
  copied.second.reserve(found->offers.size());
  for (const Offer* o : found->offers) copied.second.push_back(*o);
  return copied;
}

Result<CatalogReader::InstanceOffers> CachedCatalog::GetInstanceOffers(const std::string& cloud,
                                                                      const std::string& id) {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (*s) {
    auto it = (*s)->types.find({cloud, id});
    if (it != (*s)->types.end()) {
      InstanceOffers found{it->second.first, {}, (*s)->offers};
      found.offers.reserve(it->second.second.size());
      for (size_t i : it->second.second) found.offers.push_back(&(*(*s)->offers)[i]);
      return found;
    }
  }
  // Unpriced or unknown: SQLite says which (not CatalogReader's default: it calls
  // GetInstanceType, which calls this).
  auto found = store_.GetInstanceType(cloud, id);
  if (!found.ok()) return found.error();
  return Kept(std::move(found).value());
}

Result<std::vector<Offer>> CachedCatalog::ListOffers(const OfferFilter& filter) {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (!*s) return store_.ListOffers(filter);
  std::vector<Offer> out;
  for (const Offer& o : *(*s)->offers) {
    if (OfferMatches(o, filter)) out.push_back(o);
  }
  return out;
}

Result<std::shared_ptr<const std::vector<Offer>>> CachedCatalog::AllOffers() {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (!*s) return CatalogReader::AllOffers();
  return (*s)->offers;
}

Result<std::map<std::string, FxRate>> CachedCatalog::FxRates() {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  if (!*s) return store_.FxRates();
  return (*s)->rates;
}

Result<std::vector<PriceObservation>> CachedCatalog::SpotHistory(const SpotQuery& q) {
  if (q.zone.empty() && q.until.empty() && !q.after) {  // a series the snapshot may keep
    auto shared = SharedSpotHistory(q);
    if (!shared.ok()) return shared.error();
    return **shared;  // a copy for the caller to keep
  }
  return store_.SpotHistory(q);
}

Result<std::shared_ptr<const std::vector<PriceObservation>>> CachedCatalog::SharedSpotHistory(
    const SpotQuery& q) {
  auto s = Snapshot();
  if (!s.ok()) return s.error();
  bool whole_region = q.zone.empty() && q.until.empty() && !q.after;
  if (!*s || !whole_region) {  // not kept: read from SQLite (not SpotHistory: it calls this)
    auto rows = store_.SpotHistory(q);
    if (!rows.ok()) return rows.error();
    return std::make_shared<const std::vector<PriceObservation>>(std::move(rows).value());
  }
  CachedSnapshot& snapshot = **s;
  auto key = std::make_tuple(q.cloud, q.instance_type, q.region, q.since, q.limit);
  {
    std::lock_guard lock(snapshot.spot_mutex);
    auto it = snapshot.spot.find(key);
    if (it != snapshot.spot.end()) return it->second;
  }
  auto rows = store_.SpotHistory(q);
  if (!rows.ok()) return rows.error();
  auto shared = std::make_shared<const std::vector<PriceObservation>>(std::move(rows).value());
  // Long series are not kept: the snapshot's memory stays bounded by the catalog's size.
  if (shared->size() <= kMaxCachedSpotRows) {
    std::lock_guard lock(snapshot.spot_mutex);
    snapshot.spot.emplace(key, shared);
  }
  return shared;
}

}  // namespace gpuplan::db
