// Read access to the catalog: GPUs, clouds, regions, offers (instance type x region with
// current prices), exchange rates. Each call uses the connection it is given; the
// caller makes sure no other thread uses that connection meanwhile (ConnectionPool).
// Database failures are returned as kUnavailable.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "db/catalog_reader.h"
#include "db/catalog_types.h"
#include "db/gpu_resolver.h"
#include "db/sql.h"
#include "model/gpu_spec.h"
#include "model/result.h"

namespace gpuplan::db {

class CatalogStore : public CatalogReader {
 public:
  explicit CatalogStore(Connection& db) : db_(db) {}

  Result<std::vector<model::GpuSpec>> ListGpus() override;
  Result<model::GpuSpec> GetGpu(const std::string& id) override;
  Result<std::vector<CloudSummary>> ListClouds() override;
  Result<std::vector<Region>> ListRegions(const std::string& cloud) override;
  Result<std::vector<Offer>> ListOffers(const OfferFilter& filter) override;
  Result<std::pair<InstanceType, std::vector<Offer>>> GetInstanceType(
      const std::string& cloud, const std::string& id) override;
  Result<std::map<std::string, FxRate>> FxRates() override;
  using SpotQuery = db::SpotQuery;
  Result<std::vector<PriceObservation>> SpotHistory(const SpotQuery& query) override;
  Result<std::optional<GpuSynonym>> SynonymOf(const std::string& scope,
                                              const std::string& gpu_id) override;

  // Every GPU and synonym, for parsing imports.
  Result<GpuResolver> LoadGpuResolver();
  // How much the catalog holds (for /metrics).
  struct Sizes {
    long long gpus = 0, clouds = 0, regions = 0, instance_types = 0, price_observations = 0;
    long long generation = 0;
  };
  Result<Sizes> CountRows();

 private:
  Connection& db_;
};

}  // namespace gpuplan::db
