// The age past which a price is stale: a fixed clock in, flags and a dated warning out.
#include "plan/price_quality.h"

#include <gtest/gtest.h>

#include "db/field_rules.h"

namespace gpuplan::plan {
namespace {

db::Offer OfferObservedAt(const std::string& observed_at) {
  db::Offer o;
  o.instance.cloud = "aws";
  o.instance.id = "g5.xlarge";
  o.region = "us-east-1";
  o.price_ondemand_per_hour = 1.0;
  o.observed_at = observed_at;
  return o;
}

std::time_t At(const char* when) { return *db::rules::ParseTimestamp(when); }

TEST(PriceQualityTest, StaleOnlyPastTheAgeGiven) {
  const std::time_t now = At("2026-11-27T00:00:00Z");
  struct Case {
    const char* observed_at;
    int stale_after_days;
    bool stale;
  } const cases[] = {
      {"2026-10-27T00:00:00Z", 30, true},   // 31 days
      {"2026-10-28T00:00:00Z", 30, false},  // 30 days: not more than 30
      {"2026-10-27T23:59:59Z", 30, true},   // 30 days and 1 s
      {"2026-10-27T00:00:00Z", 31, false},
      {"2024-12-30", 365, true},
      {"2026-11-27T00:00:00Z", 1, false},
      {"not a date", 1, false},  // never written: the field rules refuse it
  };
  for (const Case& c : cases) {
    PriceQuality q = AssessPrice(OfferObservedAt(c.observed_at), now, c.stale_after_days);
    EXPECT_EQ(q.stale, c.stale) << c.observed_at << " / " << c.stale_after_days;
    EXPECT_EQ(q.stale_after_days, c.stale_after_days);
    EXPECT_EQ(q.flagged(), c.stale);
  }
}

TEST(PriceQualityTest, TheWarningNamesTheDateAndTheAge) {
  const db::Offer offer = OfferObservedAt("2026-09-01T10:00:00Z");
  PriceQuality q = AssessPrice(offer, At("2026-11-27T00:00:00Z"), 45);
  ASSERT_TRUE(q.stale);
  ASSERT_EQ(q.Flags(), std::vector<std::string>{kStalePriceFlag});
  auto warnings = PriceWarnings(offer, q);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("price flagged stale: g5.xlarge in us-east-1: its on-demand "
                             "price was observed on 2026-09-01, more than 45 days ago"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("gpuplan catalog refresh"), std::string::npos) << warnings[0];
}

TEST(PriceQualityTest, EachPriceIsJudgedByItsOwnDate) {
  db::Offer offer = OfferObservedAt("2026-11-20T00:00:00Z");
  offer.price_spot_per_hour = 0.4;
  offer.ondemand_observed_at = "2026-08-01T00:00:00Z";  // old
  offer.spot_observed_at = "2026-11-20T00:00:00Z";      // fresh: the offer's latest
  const PriceQuality q = AssessPrice(offer, At("2026-11-27T00:00:00Z"), 30);
  EXPECT_TRUE(q.stale);  // the offer stands for both prices
  EXPECT_TRUE(q.ondemand_stale);
  EXPECT_FALSE(q.spot_stale);
  EXPECT_TRUE(q.OfKind(model::PriceKind::kOndemand).stale);
  EXPECT_FALSE(q.OfKind(model::PriceKind::kSpot).stale);
  EXPECT_TRUE(q.OfKind(model::PriceKind::kSpotWithFallback).stale);  // may pay on-demand
  auto warnings = PriceWarnings(offer, q);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("its on-demand price was observed on 2026-08-01"),
            std::string::npos)
      << warnings[0];
  EXPECT_TRUE(PriceWarnings(offer, q.OfKind(model::PriceKind::kSpot)).empty());
  offer.spot_observed_at = "2026-07-01T00:00:00Z";  // both old: the older is named
  auto both = PriceWarnings(offer, AssessPrice(offer, At("2026-11-27T00:00:00Z"), 30));
  ASSERT_EQ(both.size(), 1u);
  EXPECT_NE(both[0].find("its prices were observed on 2026-07-01"), std::string::npos)
      << both[0];
}

TEST(PriceQualityTest, TheProcessAgeDefaultsToThirtyDaysAndIsSettable) {
  EXPECT_EQ(StalePriceDays(), kDefaultStalePriceDays);
  EXPECT_EQ(kDefaultStalePriceDays, 30);
  const db::Offer offer = OfferObservedAt("2026-10-01T00:00:00Z");
  const std::time_t now = At("2026-11-27T00:00:00Z");  // 57 days later
  EXPECT_TRUE(AssessPrice(offer, now).stale);
  SetStalePriceDays(60);
  EXPECT_FALSE(AssessPrice(offer, now).stale);
  EXPECT_EQ(AssessPrice(offer, now).stale_after_days, 60);
  SetStalePriceDays(kDefaultStalePriceDays);
}

}  // namespace
}  // namespace gpuplan::plan
