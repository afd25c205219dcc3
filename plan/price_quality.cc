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

PriceQuality PriceQuality::OfKind(model::PriceKind kind) const {
  PriceQuality q = *this;
  if (kind == model::PriceKind::kOndemand) q.spot_stale = false;
  if (kind == model::PriceKind::kSpot) q.ondemand_stale = false;
  q.stale = q.ondemand_stale || q.spot_stale;
  return q;
}

namespace {

// db::rules::ParseTimestamp of `text`, the last text this thread parsed kept: a walk assesses
// thousands of offers whose prices were mostly observed at the same few instants (one import's).
// (It starts as "", which parses to nullopt.)
std::optional<std::time_t> ObservedTime(const std::string& text) {
  thread_local std::string last_text;
  thread_local std::optional<std::time_t> last_time;
  if (text != last_text) {
    last_time = db::rules::ParseTimestamp(text);
    last_text = text;
  }
  return last_time;
}

}  // namespace

PriceQuality AssessPrice(const db::Offer& offer, std::time_t now, int stale_after_days) {
  PriceQuality q;
  q.stale_after_days = stale_after_days;
  q.spot_above_ondemand = db::SpotAboveOndemand(offer);
  auto stale = [&](bool spot) {
    auto observed = ObservedTime(db::PriceObservedAt(offer, spot));
    return observed && now - *observed > static_cast<std::time_t>(stale_after_days) * 86400;
  };
  q.ondemand_stale = offer.price_ondemand_per_hour && stale(false);
  q.spot_stale = offer.price_spot_per_hour && stale(true);
  q.stale = q.ondemand_stale || q.spot_stale;
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
    // The oldest of the prices judged stale.
    const std::string& ondemand_at = db::PriceObservedAt(offer, false);
    const std::string& spot_at = db::PriceObservedAt(offer, true);
    const std::string& at = !q.spot_stale                          ? ondemand_at
                            : !q.ondemand_stale || spot_at < ondemand_at ? spot_at
                                                                       : ondemand_at;
    const char* which = q.ondemand_stale && q.spot_stale ? "its prices were"
                        : q.ondemand_stale               ? "its on-demand price was"
                                                         : "its spot price was";
    out.push_back("price flagged stale: " + where + ": " + which + " observed on " +
                  at.substr(0, 10) + ", more than " +
                  std::to_string(q.stale_after_days) +
                  " days ago (the stale age); today's price may differ (refresh the catalog: "
                  "gpuplan catalog refresh)");
  }
  return out;
}

}  // namespace gpuplan::plan
