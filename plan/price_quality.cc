#include "plan/price_quality.h"

#include <atomic>

#include "db/field_rules.h"
#include "db/offer_query.h"

namespace gpuplan::plan {

std::vector<std::string> PriceQuality::Flags() const {
  std::vector<std::string> out;
  if (spot_above_ondemand) out.push_back(kSpotAboveOndemandFlag);
  if (stale) out.push_back(kStalePriceFlag);
  return out;
}

namespace {
std::atomic<int> stale_price_days{kDefaultStalePriceDays};
}  // namespace

void SetStalePriceDays(int days) { stale_price_days.store(days, std::memory_order_relaxed); }
int StalePriceDays() { return stale_price_days.load(std::memory_order_relaxed); }

PriceQuality AssessPrice(const db::Offer& offer, std::time_t now, int stale_after_days) {
  PriceQuality q;
  q.stale_after_days = stale_after_days;
  q.spot_above_ondemand = db::SpotAboveOndemand(offer);
  auto observed = db::rules::ParseTimestamp(offer.observed_at);
  q.stale = observed && now - *observed > static_cast<std::time_t>(stale_after_days) * 86400;
  return q;
}

PriceQuality AssessPrice(const db::Offer& offer, std::time_t now) {
  return AssessPrice(offer, now, StalePriceDays());
}

std::vector<std::string> PriceWarnings(const db::Offer& offer, const PriceQuality& q) {
  std::vector<std::string> out;
  const std::string where = offer.instance.id + " in " + offer.region;
  if (q.spot_above_ondemand) {
    out.push_back("price flagged spot_above_ondemand: " + where +
                  " lists a spot price above its own on-demand price, so the catalog's "
                  "on-demand price may be stale or wrong");
  }
  if (q.stale) {
    out.push_back("price flagged stale: " + where + " was observed on " +
                  offer.observed_at.substr(0, 10) + ", more than " +
                  std::to_string(q.stale_after_days) +
                  " days ago (the stale age); today's price may differ (refresh the catalog: "
                  "gpuplan catalog refresh)");
  }
  return out;
}

}  // namespace gpuplan::plan
