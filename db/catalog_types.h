// Catalog records as stored: clouds, regions, GPU synonyms, instance types, price
// observations, exchange rates, and the offers (instance type x region with its current prices)
// that listings return. Plain values; no database or HTTP knowledge.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan::db {

struct Cloud {
  std::string id;  // "aws", "gcp", "alibaba", ...
  std::string name;
  std::string default_currency;
  // "cloud": its catalog lists one price for an instance type in every region (Lambda,
  // OCI), so a region's price says nothing about that region; "region": priced per region.
  // Set by the importer that read the cloud's catalog (db/skypilot_parser.h).
  std::string price_scope = "region";
};

struct Region {
  std::string cloud;
  std::string id;
  std::string display_name;
  std::string country;    // ISO 3166 alpha-2, "" when unknown
  std::string continent;  // "" when unknown
};

// What a third party calls a catalog GPU (a gpu_synonyms row). `cloud` is the scope of the
// name: a cloud id ("alibaba"), kAnyCloud (SkyPilot's names, valid for every cloud) or
// kKubernetesScope (the node label value NVIDIA GPU Feature Discovery sets,
// nvidia.com/gpu.product; its note starts "sourced:" or "derived:", plan/gpu_product_label.h).
inline constexpr const char* kAnyCloud = "*";
inline constexpr const char* kKubernetesScope = "kubernetes";
struct GpuSynonym {
  std::string cloud;
  std::string accelerator_name;
  std::string gpu_id;  // "" = a known accelerator that is not a supported GPU
  std::string note;
};

struct InstanceType {
  std::string cloud;
  std::string id;
  std::string gpu_id;
  int gpu_count = 0;
  std::optional<double> vcpus;
  std::optional<double> memory_gib;
  std::string interconnect = "none";  // none | pcie | nvlink | nvswitch
  double interconnect_bw_gbps = 0;    // per GPU, bidirectional, GB/s
  std::optional<double> network_gbps;
  std::string arch = "x86_64";
  std::string host_instance_type;  // GCP: the host VM a GPU bundle is attached to
  std::string accelerator_name;    // the source's own accelerator name
  std::string source;
};

struct PriceObservation {
  std::string cloud;
  std::string instance_type;
  std::string region;
  std::string zone;  // "" = the whole region
  std::string kind;  // ondemand | spot | reserved_1y | reserved_3y
  double price_per_hour = 0;
  std::string currency;     // ISO 4217
  std::string observed_at;  // ISO 8601 date or date-time, UTC
  std::string source;
};

struct FxRate {
  std::string currency;
  double units_per_usd = 1;
  std::string as_of;
  std::string source;
};

// An interruption-frequency band of one instance type's spot capacity in one region, as the
// AWS Spot Instance Advisor publishes it (db/spot_bands.h): the fraction of the type's
// spot instances reclaimed in the trailing month lies in [low_fraction, high_fraction].
struct SpotBand {
  std::string cloud, region, instance_type;
  int band = 0;                          // the feed's range index: 0 ("<5%") .. 4 (">20%")
  std::string label;                     // the feed's label, e.g. "<5%"
  double low_fraction = 0;               // of instances interrupted per month, 0..1
  std::optional<double> high_fraction;   // nullopt: an open band (">20%")
  std::optional<double> savings_percent; // the feed's saving below on-demand, % (may be < 0)
  std::string observed_at;               // ISO 8601, UTC: the date of the data
  std::string source;
};

// One instance type offered in one region with its current prices in its own currency.
struct Offer {
  InstanceType instance;
  std::string region;
  double gpu_memory_gb = 0;  // per GPU, from the GPU's spec
  std::optional<double> price_ondemand_per_hour;
  std::optional<double> price_spot_per_hour;  // cheapest zone's current spot price
  std::string spot_zone;                      // that zone, "" when regional or none
  std::string currency;                       // of the prices above
  std::string observed_at;                    // latest observation among the prices
  // When each price was observed ("" without that price). A reader that sets only
  // `observed_at` means it for both (PriceObservedAt).
  std::string ondemand_observed_at, spot_observed_at;
  std::string source;                         // source of the on-demand (else spot) price
  // The spot interruption band of (cloud, region, instance type); null when none is known.
  // Shared and immutable: copies of the offer share it.
  std::shared_ptr<const SpotBand> spot_band;
  std::string price_scope = "region";         // of its cloud (Cloud::price_scope)
  // Distinct observation times of the region's spot prices (every zone, all history): under 3
  // there is no spot history to price from (plan::Pricing::SpotPricingFor), so it is not read.
  int spot_observation_times = 0;
};

// When `offer`'s on-demand (spot: false) or spot (true) price was observed.
inline const std::string& PriceObservedAt(const Offer& offer, bool spot) {
  const std::string& at = spot ? offer.spot_observed_at : offer.ondemand_observed_at;
  return at.empty() ? offer.observed_at : at;
}

}  // namespace gpuplan::db
