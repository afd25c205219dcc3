// The catalog reads the planner needs, as an interface: db::CatalogStore implements it over
// SQLite; planner tests use an in-memory fake, and a second backend can be added without
// touching the planner. Errors: kNotFound where a lookup names something absent, kUnavailable
// for a failed backend.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <typeindex>
#include <utility>
#include <vector>

#include "db/catalog_types.h"
#include "model/gpu_spec.h"
#include "model/result.h"

namespace gpuplan::db {

// Filters of ListOffers. Empty / nullopt = no filter.
struct OfferFilter {
  std::string cloud;
  std::string region;
  std::string gpu;  // a GPU id, or a family prefix: "A100" matches "A100-80GB-SXM4"
  std::optional<int> min_gpu_count;
  std::optional<int> max_gpu_count;
  std::optional<double> min_gpu_memory_gb;  // per GPU
  std::string instance_type;                // exactly this id
  std::string instance_type_contains;       // ids holding this text, case-insensitive
  std::string interconnect;                 // none | pcie | nvlink | nvswitch
  std::optional<double> min_vcpus, min_memory_gib;  // per instance; unknown ones fail
};

struct CloudSummary {
  Cloud cloud;
  int regions = 0;
  int instance_types = 0;
};

// Spot observations of one instance type, oldest first. Empty region/zone/since/until = no
// filter; since/until are ISO 8601 and compare as text. Up to `limit` rows after the
// (observed_at, zone, region) position `after` when given.
struct SpotQuery {
  std::string cloud, instance_type, region, zone, since, until;
  int limit = 1000;
  std::optional<std::tuple<std::string, std::string, std::string>> after;
};

class CatalogReader {
 public:
  virtual ~CatalogReader() = default;
  virtual Result<std::vector<model::GpuSpec>> ListGpus() = 0;
  virtual Result<model::GpuSpec> GetGpu(const std::string& id) = 0;  // kNotFound if absent
  virtual Result<std::vector<CloudSummary>> ListClouds() = 0;
  virtual Result<std::vector<Region>> ListRegions(const std::string& cloud) = 0;  // "" = all
  // Every (instance type, region) with at least one current price matching `filter`,
  // ordered by (cloud, region, instance type).
  virtual Result<std::vector<Offer>> ListOffers(const OfferFilter& filter) = 0;
  // Every offer, as ListOffers(OfferFilter{}) orders them, shared and read-only: what a
  // planner walks without copying. The default copies ListOffers' answer once; a reader
  // that keeps the offers (db::CachedCatalog) hands out its own; a reader that overrides
  // ListOffers over another reader's offers overrides this too.
  virtual Result<std::shared_ptr<const std::vector<Offer>>> AllOffers() {
    auto offers = ListOffers(OfferFilter{});
    if (!offers.ok()) return offers.error();
    return std::make_shared<const std::vector<Offer>>(std::move(offers).value());
  }
  // The instance type with its offers in every region; kNotFound if the type is absent.
  virtual Result<std::pair<InstanceType, std::vector<Offer>>> GetInstanceType(
      const std::string& cloud, const std::string& id) = 0;
  // The same without copying the offers where the reader keeps them: `offers` point into
  // storage that `keep` holds alive (read-only, safe to read from any thread while held).
  // By default GetInstanceType's answer, kept in `keep`.
  struct InstanceOffers {
    InstanceType type;
    std::vector<const Offer*> offers;
    std::shared_ptr<const void> keep;
  };
  virtual Result<InstanceOffers> GetInstanceOffers(const std::string& cloud,
                                                   const std::string& id) {
    auto found = GetInstanceType(cloud, id);
    if (!found.ok()) return found.error();
    return Kept(std::move(found).value());
  }
  // `found`'s offers moved into an InstanceOffers' `keep`.
  static InstanceOffers Kept(std::pair<InstanceType, std::vector<Offer>> found) {
    auto offers = std::make_shared<const std::vector<Offer>>(std::move(found.second));
    InstanceOffers out{std::move(found.first), {}, offers};
    out.offers.reserve(offers->size());
    for (const Offer& o : *offers) out.offers.push_back(&o);
    return out;
  }
  virtual Result<std::map<std::string, FxRate>> FxRates() = 0;
  virtual Result<std::vector<PriceObservation>> SpotHistory(const SpotQuery& query) = 0;
  // The same series, shared and read-only (no copy where the reader keeps it: a snapshot's
  // series outlive the reader while the pointer is held). By default a copy of SpotHistory;
  // a reader that overrides both must not let each call the other.
  virtual Result<std::shared_ptr<const std::vector<PriceObservation>>> SharedSpotHistory(
      const SpotQuery& query) {
    auto rows = SpotHistory(query);
    if (!rows.ok()) return rows.error();
    return std::make_shared<const std::vector<PriceObservation>>(std::move(rows).value());
  }
  // The gpu_synonyms row by which `scope` names GPU `gpu_id` (kAnyCloud: SkyPilot's names;
  // kKubernetesScope: GPU Feature Discovery's product label): the shortest name when several
  // do ("H100" before "H100-MEGA", then by name); nullopt when none does.
  virtual Result<std::optional<GpuSynonym>> SynonymOf(const std::string& scope,
                                                      const std::string& gpu_id) = 0;

  // A T that an upper layer derives from this catalog, kept where the reader keeps the
  // catalog so that requests do not derive it again. `update` gets the value kept so far
  // (nullptr: none) and returns it when still current, or a new one. A reader that keeps
  // nothing (the default) calls update(nullptr) on every call; db::CachedCatalog keeps one
  // per catalog generation and says which value a request may get while another request
  // updates it (possibly the previous generation's: a value names what it was derived from
  // where that matters). `update` must not call Derived. Errors: `update`'s, or the
  // reader's.
  template <typename T>
  using Update = std::function<Result<std::shared_ptr<const T>>(std::shared_ptr<const T>)>;
  template <typename T>
  Result<std::shared_ptr<const T>> Derived(const Update<T>& update) {
    auto value = DerivedValue(
        typeid(T), [&](std::shared_ptr<const void> kept) -> Result<std::shared_ptr<const void>> {
          auto updated = update(std::static_pointer_cast<const T>(kept));
          if (!updated.ok()) return updated.error();
          return std::shared_ptr<const void>(*updated);
        });
    if (!value.ok()) return value.error();
    return std::static_pointer_cast<const T>(*value);
  }

 protected:
  using ErasedUpdate =
      std::function<Result<std::shared_ptr<const void>>(std::shared_ptr<const void>)>;
  // Derived's value of `type`: by default update(nullptr), kept nowhere.
  virtual Result<std::shared_ptr<const void>> DerivedValue(std::type_index,
                                                           const ErasedUpdate& update) {
    return update(nullptr);
  }
};

}  // namespace gpuplan::db
