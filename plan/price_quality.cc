#include "plan/price_quality.h"

#include "db/field_rules.h"
#include "db/offer_query.h"

namespace gpuplan::plan {

PriceQuality AssessPrice(const db::Offer& offer, std::time_t now) {
  PriceQuality q;
  auto where = [&] { return offer.instance.id + " in " + offer.region; };
  if (db::SpotAboveOndemand(offer)) {
    q.spot_above_ondemand = true;
    q.flags.push_back(kSpotAboveOndemandFlag);
    q.warnings.push_back("price flagged spot_above_ondemand: " + where() +
                         " lists a spot price above its own on-demand price, so the catalog's "
                         "on-demand price may be stale or wrong");
  }
  auto observed = db::rules::ParseTimestamp(offer.observed_at);
  if (observed && now - *observed > static_cast<std::time_t>(kStalePriceDays) * 86400) {
    q.stale = true;
    q.flags.push_back(kStalePriceFlag);
    q.warnings.push_back("price flagged stale: " + where() + " was observed on " +
                         offer.observed_at.substr(0, 10) + ", more than " +
                         std::to_string(kStalePriceDays) +
                         " days ago; today's price may differ (import a current one)");
  }
  return q;
}

}  // namespace gpuplan::plan
