// Read access to the catalog: GPUs, clouds, regions, offers (instance type x region with
// current prices), exchange rates. Each call uses the connection it is given; the
// caller makes sure no other thread uses that connection meanwhile (ConnectionPool).
// Database failures are returned as kUnavailable.
#pragma once

#include <SQLiteCpp/Database.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "db/catalog_types.h"
#include "db/gpu_resolver.h"
#include "model/gpu_spec.h"
#include "model/result.h"

namespace gpuplan::db {

// Filters applied in the database. Empty / nullopt = no filter.
struct OfferFilter {
  std::string cloud;
  std::string region;
  std::string gpu;  // a GPU id, or a family prefix: "A100" matches "A100-80GB-SXM4"
  std::optional<int> min_gpu_count;
  std::optional<int> max_gpu_count;
  std::optional<double> min_gpu_memory_gb;  // per GPU
  std::string instance_type;
};

struct CloudSummary {
  Cloud cloud;
  int regions = 0;
  int instance_types = 0;
};

class CatalogStore {
 public:
  explicit CatalogStore(SQLite::Database& db) : db_(db) {}

  Result<std::vector<model::GpuSpec>> ListGpus();
  Result<model::GpuSpec> GetGpu(const std::string& id);  // kNotFound if absent
  Result<std::vector<CloudSummary>> ListClouds();
  Result<std::vector<Region>> ListRegions(const std::string& cloud);  // "" = every cloud
  // Every (instance type, region) with at least one current price, matching `filter`,
  // ordered by (cloud, region, instance type).
  Result<std::vector<Offer>> ListOffers(const OfferFilter& filter);
  // The instance type with its offers in every region; kNotFound if the type is absent.
  Result<std::pair<InstanceType, std::vector<Offer>>> GetInstanceType(const std::string& cloud,
                                                                     const std::string& id);
  Result<std::map<std::string, FxRate>> FxRates();

  // Spot observations of one instance type, oldest first. Empty region/zone/since/until =
  // no filter; since/until are ISO 8601 and compare as text. Returns up to `limit` rows
  // after the (observed_at, zone, region) position `after` when given.
  struct SpotQuery {
    std::string cloud, instance_type, region, zone, since, until;
    int limit = 1000;
    std::optional<std::tuple<std::string, std::string, std::string>> after;
  };
  Result<std::vector<PriceObservation>> SpotHistory(const SpotQuery& query);

  // Every GPU and synonym, for parsing imports.
  Result<GpuResolver> LoadGpuResolver();
  // A trivial query, for readiness checks.
  Status Ping();

 private:
  SQLite::Database& db_;
};

}  // namespace gpuplan::db
