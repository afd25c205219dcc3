// Whether a catalog price can be trusted to rank options: the flags every answer that uses
// an offer's price carries (recommendation items, compare rows, estimate warnings).
//   spot_above_ondemand  the offer's spot price is above its own on-demand price: one of the
//                        two is stale or wrong. Recommendations do not rank it unless asked
//                        (constraints.include_doubtful_prices).
//   stale                a price it stands for was observed more than the stale age
//                        (StalePriceDays(), default kDefaultStalePriceDays) before the
//                        request: ranked, with the flag and a warning naming its date and the
//                        age. An offer stands for all its prices (an old on-demand price
//                        beside a fresh spot one is stale); an option for the price it is
//                        costed on (PriceQuality::OfKind).
// Pure functions of the offer, the request's clock and the stale age; thread-safe.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "db/catalog_types.h"
#include "model/price_kind.h"

namespace gpuplan::plan {

// Why 30 days (docs/operations.md): cloud GPU list prices and SkyPilot's hosted catalog move
// within weeks, so a month-old snapshot is the age at which an operator should refresh
// (`gpuplan catalog refresh`) rather than trust a ranking built on it.
inline constexpr int kDefaultStalePriceDays = 30;
inline constexpr int kMaxStalePriceDays = 36500;

// The stale age of this process, in days (1..kMaxStalePriceDays; out of range is clamped by
// the flag's check, not here). Set once at start (serve --stale-price-days, the planning
// commands' flag) before any request is planned; reading it is thread-safe.
void SetStalePriceDays(int days);
int StalePriceDays();
inline constexpr const char* kSpotAboveOndemandFlag = "spot_above_ondemand";
inline constexpr const char* kStalePriceFlag = "stale";

struct PriceQuality {
  bool spot_above_ondemand = false;
  bool stale = false;        // ondemand_stale || spot_stale
  bool ondemand_stale = false, spot_stale = false;
  int stale_after_days = 0;  // the age `stale` was judged by
  bool flagged() const { return spot_above_ondemand || stale; }
  std::vector<std::string> Flags() const;  // the names above, in that order
  // The flags of an option costed on `kind`: stale when its price is (spot_with_fallback:
  // its spot price or the on-demand one it may move to).
  PriceQuality OfKind(model::PriceKind kind) const;
};

// The flags of `offer`'s current prices at `now`, stale past `stale_after_days` (no
// allocation: recommendations judge every offer they walk). A price without a readable
// date is not stale (the field rules refuse such dates on every write); each price is
// judged by its own date (db::PriceObservedAt).
PriceQuality AssessPrice(const db::Offer& offer, std::time_t now, int stale_after_days);
// The same with this process's stale age.
PriceQuality AssessPrice(const db::Offer& offer, std::time_t now);

// One sentence per flag of `q`, naming `offer` (and the date of its oldest stale price).
std::vector<std::string> PriceWarnings(const db::Offer& offer, const PriceQuality& q);

}  // namespace gpuplan::plan
