// Whether a catalog price can be trusted to rank options: the flags every answer that uses
// an offer's price carries (recommendation items, compare rows, estimate warnings).
//   spot_above_ondemand  the offer's spot price is above its own on-demand price: one of the
//                        two is stale or wrong. Recommendations do not rank it unless asked
//                        (constraints.include_doubtful_prices).
//   stale                the price was observed more than kStalePriceDays before the request:
//                        ranked, with the flag and a warning naming its date.
// Pure functions of the offer and the request's clock; thread-safe.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "db/catalog_types.h"

namespace gpuplan::plan {

inline constexpr int kStalePriceDays = 365;
inline constexpr const char* kSpotAboveOndemandFlag = "spot_above_ondemand";
inline constexpr const char* kStalePriceFlag = "stale";

struct PriceQuality {
  bool spot_above_ondemand = false;
  bool stale = false;
  bool flagged() const { return spot_above_ondemand || stale; }
  std::vector<std::string> Flags() const;  // the names above, in that order
};

// The flags of `offer`'s current prices at `now` (no allocation: recommendations judge
// every offer they walk).
PriceQuality AssessPrice(const db::Offer& offer, std::time_t now);

// One sentence per flag of `q`, naming `offer` (and the date of a stale price).
std::vector<std::string> PriceWarnings(const db::Offer& offer, const PriceQuality& q);

}  // namespace gpuplan::plan
