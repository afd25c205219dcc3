// Prices in the request's currency: exchange rates, an offer's quote, the spot price an
// expected cost uses (the catalog's recent spot history), the cheapest price per GPU-hour
// of each GPU, and the age and consistency flags of a catalog price.
//
// One Pricing per request, on one thread: UseCurrency loads the catalog's exchange rates
// once and later calls convert with them. Reads the catalog through db::CatalogReader,
// which it does not own (it must outlive the Pricing).
//
// Errors: kInvalidArgument naming "currency" for a currency without an exchange rate (the
// request's, or a price's); kUnavailable when the catalog fails.
#pragma once

#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/catalog_reader.h"
#include "model/price_kind.h"
#include "model/spot_interruption.h"
#include "plan/price_quality.h"

namespace gpuplan::plan {

// Hourly prices of one node in the request's currency, and where they come from.
struct PriceQuote {
  std::optional<double> ondemand;
  std::optional<double> spot;
  std::string currency;
  std::string native_currency;
  std::string spot_zone;
  std::string observed_at;
  std::string source;
  // Units of `currency` per unit of `native_currency`, when they differ.
  std::optional<double> fx_rate;
  std::string fx_as_of;
};

// Spot observations of an offer's region, in the request currency.
struct SpotHistorySummary {
  size_t observations = 0;
  std::string first_observed_at, last_observed_at;
  double min_per_hour = 0, max_per_hour = 0, mean_per_hour = 0;
  std::string cloud, instance_type, region;  // what the series is of
};

// The spot price an expected cost uses: the mean over the catalog's recent spot history of
// the offer's region when it holds one (the cheapest zone at each observation time), with
// its P10 and P90; else the current price.
// No strings: options copy it freely.
struct SpotPricing {
  double price_per_hour = 0;
  double p10_per_hour = 0, p90_per_hour = 0;
  bool from_history = false;
  size_t observations = 0;  // observation times in the window
  std::time_t window_start = 0, window_end = 0;  // from_history: the first and last of them
};
// What a SpotPricing is, in words, for the answer ("the mean spot price of the cheapest zone
// over 12 observation times from ... to ...", or "the current spot price").
std::string SpotPricingBasis(const SpotPricing& pricing);

inline constexpr int kSpotHistoryWindowDays = 30;
// Fewer distinct observation times than this is a snapshot, not a spot history: the current
// price is used (SpotPricingFor).
inline constexpr size_t kMinSpotHistoryTimes = 3;
// Whether `offer`'s region has enough spot observation times in all its history for
// SpotPricingFor to read it (db::Offer::spot_observation_times); when not, its spot pricing is
// the current price whatever the window.
inline bool MayHaveSpotHistory(const db::Offer& offer) {
  return offer.spot_observation_times >= static_cast<int>(kMinSpotHistoryTimes);
}
// Hours billed in a month of a service that runs around the clock (model/spot_interruption.h).
using model::kHoursPerMonth;

// Money as answers show it: rounded to 1e-6 of the currency unit.
double RoundMoney(double amount);

class Pricing {
 public:
  // `now`: the request's clock, for the age of prices (plan/price_quality.h).
  Pricing(db::CatalogReader& catalog, std::time_t now) : catalog_(catalog), now_(now) {}

  // Loads the exchange rates; kInvalidArgument naming "currency" if `currency` has none.
  // Until it is called, prices are in USD and only USD converts.
  Status UseCurrency(const std::string& currency);
  const std::string& currency() const { return currency_; }

  // `amount` in `from` in the request currency.
  Result<double> Convert(double amount, const std::string& from) const;
  // `amount` in `from` in USD, nullopt without a rate: to compare prices across currencies.
  std::optional<double> InUsd(double amount, const std::string& from) const;

  // The offer's prices in the request currency.
  Result<PriceQuote> Quote(const db::Offer& offer) const;
  // The same prices and currency without the quote's text (zone, date, source, rate date):
  // what a recommendation walk ranks every offer by; its answered items show the offer's.
  Result<PriceQuote> QuotePrices(const db::Offer& offer) const;
  // Prices a request gives for explicit hardware (per node, in `native`), source "request";
  // kInvalidArgument naming `field` when `native` has no exchange rate.
  Result<PriceQuote> QuoteGiven(std::optional<double> ondemand, std::optional<double> spot,
                                const std::string& native, const FieldId& field) const;
  // The flags of the offer's price at the request's clock (plan/price_quality.h).
  PriceQuality Assess(const db::Offer& offer) const { return AssessPrice(offer, now_); }

  // The cheapest price per GPU-hour of `kind` (an instance's price over its GPUs, in the
  // request currency) of each GPU among the `offers` that pass `keep` (all when empty),
  // with the offer it is found on (a pointer into `offers`; the first of equal prices).
  struct GpuHourPrice {
    double price = 0;
    const db::Offer* offer = nullptr;
  };
  Result<std::map<std::string, GpuHourPrice>> CheapestPerGpuHour(
      const std::vector<db::Offer>& offers, model::PriceKind kind,
      const std::function<bool(const db::Offer&)>& keep = {}) const;

  // The spot price of `offer` (current price `current`, request currency) for expected
  // costs: the last kSpotHistoryWindowDays of its region's history, or `current` (also
  // when `offer` is null: explicit hardware).
  Result<SpotPricing> SpotPricingFor(const db::Offer* offer, double current) const;
  // Every spot observation of the offer's region (nullopt: none).
  Result<std::optional<SpotHistorySummary>> SpotHistory(const db::Offer& offer) const;

 private:
  // Sets `q`'s exchange rate from its native currency to its currency, when they differ.
  void NoteFxRate(PriceQuote& q) const;

  db::CatalogReader& catalog_;
  std::time_t now_;
  std::map<std::string, db::FxRate> rates_;
  std::string currency_ = "USD";
};

}  // namespace gpuplan::plan
