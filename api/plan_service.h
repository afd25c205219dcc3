// Answers planning requests: resolves the hardware (a catalog instance with its regional
// prices, or an explicit GPU), runs the model, prices the result in the requested
// currency, and renders the JSON answer. Uses one catalog connection; not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/plan_request.h"
#include "db/catalog_store.h"
#include "model/training.h"

namespace gpuplan::api {

// Hourly prices of one node in the request's currency, and where they come from.
struct PriceQuote {
  std::optional<double> ondemand;
  std::optional<double> spot;
  std::string currency;
  std::string native_currency;
  std::string spot_zone;
  std::string observed_at;
  std::string source;
};

struct ResolvedHardware {
  model::Cluster cluster;
  std::optional<db::Offer> offer;  // set for catalog instances
  PriceQuote price;
  std::vector<std::string> warnings;
};

// The node of a catalog instance type with GPU `gpu`.
model::NodeSpec NodeFromInstance(const db::InstanceType& type, const model::GpuSpec& gpu);

// A service that must answer around the clock cannot lose its replicas to a spot reclaim
// (AWS gives 2 minutes' notice, GCP and Azure about 30 s).
inline constexpr const char* kSpotServingCaveat =
    "spot capacity can be reclaimed at any time (AWS 2 min notice, GCP/Azure ~30 s): serving "
    "a 24/7 latency target on spot needs spare replicas or on-demand fallback";

class PlanService {
 public:
  explicit PlanService(db::CatalogStore& store) : store_(store) {}

  // Loads the exchange rates; kInvalidArgument naming "/currency" if `currency` has none.
  Status UseCurrency(const std::string& currency);
  const std::map<std::string, db::FxRate>& rates() const { return rates_; }
  Result<double> Convert(double amount, const std::string& from) const;

  // Without a region, the cheapest region for the price kind the request asks for (spot
  // price when only spot is wanted, else on-demand), named in warnings.
  Result<ResolvedHardware> Resolve(const HardwareRequest& hardware, const PricingRequest& pricing);
  // The offer's prices in the request currency.
  Result<PriceQuote> Quote(const db::Offer& offer) const;

  Result<nlohmann::json> Training(const TrainingRequest& request);
  Result<nlohmann::json> Inference(const InferenceRequest& request);

  // Cost part of a training answer for `estimate` on `nodes` nodes priced by `price`.
  // Count, range and mean of the spot observations of the offer's region, in the request
  // currency; null when there are none.
  Result<nlohmann::json> SpotHistorySummary(const db::Offer& offer) const;

  nlohmann::json TrainingCost(const model::TrainingEstimate& estimate, const model::Workload& w,
                              int nodes, const PriceQuote& price,
                              const PricingRequest& pricing) const;

 private:
  db::CatalogStore& store_;
  std::map<std::string, db::FxRate> rates_;
  std::string currency_ = "USD";
};

// The price used, its source and date, and the exchange rate when it was converted.
nlohmann::json PriceQuoteJson(const PriceQuote& quote, const std::optional<db::Offer>& offer,
                              const std::map<std::string, db::FxRate>& rates);

}  // namespace gpuplan::api
