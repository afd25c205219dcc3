// Filtering by price, currency conversion, sorting and keyset pagination of offers.
// Pure functions over values; the api layer decodes the request into an OfferQuery.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/catalog_reader.h"
#include "db/catalog_types.h"
#include "model/price_kind.h"
#include "model/result.h"

namespace gpuplan::db {

// The offer's instance price per hour of `kind` (spot_with_fallback starts on spot: that
// one); nullopt when that kind is not offered. A reference into `offer`.
const std::optional<double>& PriceOf(const Offer& offer, model::PriceKind kind);
// Whether `offer` passes every filter of `filter` (CatalogReader::ListOffers' rule, for
// readers that filter offers they keep).
bool OfferMatches(const Offer& offer, const OfferFilter& filter);
// The offer's price of `kind` per GPU-hour (its instance price over its GPU count); nullopt
// when that kind is not offered. spot_with_fallback starts on the spot price: that one.
std::optional<double> PricePerGpuHour(const Offer& offer, model::PriceKind kind);
// An AWS zone as written: "id" (use1-az1, account-independent) or "name" (us-east-1a,
// mapped to ids differently in every account); "" when it is neither or empty.
std::string AwsZoneKind(const std::string& zone);
// "us-east-1a" -> "us-east-1"; Local Zones ("us-west-2-lax-1a") keep their parent region;
// "" when `zone` is not an AWS zone name. Bounded by the zone's length (names are at most
// 64 bytes once rules::CheckName passed).
std::string AwsRegionOfZone(const std::string& zone);
// Whether the offer's spot price is above its own on-demand price (a suspicious row).
bool SpotAboveOndemand(const Offer& offer);
enum class OfferSort { kPrice, kPricePerGpu, kGpuCount, kGpuMemory };

// The position after which a page starts: the sort value and the unique key of the
// last item of the previous page.
struct OfferCursor {
  std::optional<double> sort_value;
  std::string cloud, region, instance_type;
};

struct OfferQuery {
  model::PriceKind price_kind = model::PriceKind::kOndemand;  // the price sort and max_price use
  OfferSort sort = OfferSort::kPrice;
  bool descending = false;
  std::optional<double> max_price_per_hour;  // in `currency` (USD when empty)
  std::string currency;  // convert prices to it; "" keeps each offer's own currency
  int limit = 50;
  std::optional<OfferCursor> after;
};

struct OfferPage {
  std::vector<Offer> items;
  std::optional<OfferCursor> next;  // set when more items follow
  int total = 0;                    // matching items over all pages
};

// Converts `amount` from currency `from` to `to` with `rates` (units per USD).
// kInvalidArgument naming "currency" if either has no rate.
Result<double> ConvertCurrency(double amount, const std::string& from, const std::string& to,
                               const std::map<std::string, FxRate>& rates);

// Applies `query` to `offers`. Items without the price that the sort or filter uses
// come last (sort) or are left out (max_price_per_hour). Ties break on (cloud, region,
// instance type), so walking the cursors returns every item exactly once. Only the page's
// offers are copied: `offers` point into storage the caller keeps alive for the call (the
// snapshot's shared offers, CatalogReader::AllOffers, filtered with OfferMatches).
Result<OfferPage> PageOffers(const std::vector<const Offer*>& offers, const OfferQuery& query,
                             const std::map<std::string, FxRate>& rates);

}  // namespace gpuplan::db
