// An in-memory db::CatalogReader for planner tests (no SQLite): GPUs, offers (an instance
// type in a region with its USD prices) and exchange rates (USD 1, EUR 0.5). Clouds and
// regions are the offers'. Counts the GPU lookups and offer listings the planner makes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/catalog_reader.h"
#include "db/text.h"

namespace gpuplan::plan::testing {

class MemoryCatalog : public db::CatalogReader {
 public:
  MemoryCatalog() {
    rates["USD"] = {"USD", 1.0, "2026-11-01", "test"};
    rates["EUR"] = {"EUR", 0.5, "2026-11-01", "test"};
  }

  // `count` GPUs `gpu` per instance, linked by `link` when there is more than one.
  void AddOffer(const std::string& cloud, const std::string& id, const std::string& gpu,
                int count, const std::string& region, double ondemand,
                std::optional<double> spot, const std::string& link = "nvswitch") {
    db::Offer o;
    o.instance.cloud = cloud;
    o.instance.id = id;
    o.instance.gpu_id = gpu;
    o.instance.gpu_count = count;
    o.instance.interconnect = count > 1 ? link : "none";
    o.instance.network_gbps = 100;
    o.region = region;
    o.price_ondemand_per_hour = ondemand;
    o.price_spot_per_hour = spot;
    o.currency = "USD";
    o.observed_at = "2026-11-01";
    offers.push_back(std::move(o));
  }

  Result<std::vector<model::GpuSpec>> ListGpus() override { return gpus; }
  Result<model::GpuSpec> GetGpu(const std::string& id) override {
    ++gpu_lookups;
    for (const auto& g : gpus) {
      if (g.id == id) return g;
    }
    return Error::NotFound("no GPU " + id);
  }
  Result<std::vector<db::CloudSummary>> ListClouds() override {
    std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> seen;
    for (const auto& o : offers) {
      seen[o.instance.cloud].first.insert(o.region);
      seen[o.instance.cloud].second.insert(o.instance.id);
    }
    std::vector<db::CloudSummary> out;
    for (const auto& [id, sets] : seen) {
      out.push_back({{id, id, "USD"}, static_cast<int>(sets.first.size()),
                     static_cast<int>(sets.second.size())});
    }
    return out;
  }
  Result<std::vector<db::Region>> ListRegions(const std::string& cloud) override {
    std::vector<db::Region> out;
    for (const auto& o : offers) {
      if (cloud.empty() || o.instance.cloud == cloud) {
        out.push_back({o.instance.cloud, o.region, o.region, "", ""});
      }
    }
    return out;
  }
  // Honours the filter's GPU only.
  Result<std::vector<db::Offer>> ListOffers(const db::OfferFilter& filter) override {
    ++offer_listings;
    std::vector<db::Offer> out;
    for (const auto& o : offers) {
      if (filter.gpu.empty() || db::GpuIdMatches(o.instance.gpu_id, filter.gpu)) out.push_back(o);
    }
    return out;
  }
  Result<std::pair<db::InstanceType, std::vector<db::Offer>>> GetInstanceType(
      const std::string& cloud, const std::string& id) override {
    std::vector<db::Offer> found;
    for (const auto& o : offers) {
      if (o.instance.cloud == cloud && o.instance.id == id) found.push_back(o);
    }
    if (found.empty()) return Error::NotFound("no instance type " + id);
    return std::make_pair(found.front().instance, found);
  }
  Result<std::map<std::string, db::FxRate>> FxRates() override { return rates; }
  Result<std::optional<db::GpuSynonym>> SynonymOf(const std::string&, const std::string&) override {
    return std::optional<db::GpuSynonym>();
  }
  Result<std::vector<db::PriceObservation>> SpotHistory(const db::SpotQuery&) override {
    return std::vector<db::PriceObservation>{};
  }

  std::vector<model::GpuSpec> gpus;
  std::vector<db::Offer> offers;
  std::map<std::string, db::FxRate> rates;
  int gpu_lookups = 0;
  int offer_listings = 0;
};

}  // namespace gpuplan::plan::testing
