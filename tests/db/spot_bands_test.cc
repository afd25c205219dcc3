#include "db/spot_bands.h"

#include <gtest/gtest.h>

#include <ctime>

#include "db/catalog_store.h"
#include "db/field_rules.h"
#include "db/write_transaction.h"
#include "tests/db/seeded_db_test.h"

namespace gpuplan::db {
namespace {

TEST(SpotBandLabelTest, ReadsTheFeedsLabels) {
  struct Case {
    const char* label;
    bool ok;
    double low;
    std::optional<double> high;
  };
  for (const Case& c : {Case{"<5%", true, 0, 0.05}, Case{"5-10%", true, 0.05, 0.10},
                        Case{" 10 - 15% ", true, 0.10, 0.15}, Case{">20%", true, 0.20, std::nullopt},
                        Case{"20%", false, 0, 0}, Case{"10-5%", false, 0, 0},
                        Case{"<0%", false, 0, 0}, Case{"5-100%", false, 0, 0},
                        Case{"often", false, 0, 0}, Case{"", false, 0, 0}}) {
    auto range = ParseBandLabel(c.label);
    ASSERT_EQ(range.has_value(), c.ok) << c.label;
    if (!c.ok) continue;
    EXPECT_DOUBLE_EQ(range->low_fraction, c.low) << c.label;
    EXPECT_EQ(range->high_fraction.has_value(), c.high.has_value()) << c.label;
    if (c.high) {
      EXPECT_DOUBLE_EQ(*range->high_fraction, *c.high) << c.label;
    }
  }
}

class SpotBandsDbTest : public SeededDbTest {
 protected:
  std::shared_ptr<const SpotBand> BandOf(const std::string& type, const std::string& region) {
    OfferFilter filter;
    filter.cloud = "aws";
    filter.region = region;
    filter.instance_type = type;
    auto offers = CatalogStore(*db_).ListOffers(filter);
    EXPECT_TRUE(offers.ok());
    return offers.ok() && !offers->empty() ? offers->front().spot_band : nullptr;
  }
};

TEST_F(SpotBandsDbTest, TheSeedHoldsEveryRowAndOffersCarryTheirBand) {
  EXPECT_EQ(Count("SELECT COUNT(*) FROM spot_interruption_bands"), 654);
  EXPECT_EQ(Count("SELECT COUNT(DISTINCT region) FROM spot_interruption_bands"), 27);
  auto band = BandOf("p4d.24xlarge", "us-east-1");
  ASSERT_TRUE(band);
  EXPECT_EQ(band->label, "10-15%");
  EXPECT_EQ(band->band, 2);
  EXPECT_DOUBLE_EQ(band->low_fraction, 0.10);
  EXPECT_DOUBLE_EQ(*band->high_fraction, 0.15);
  EXPECT_EQ(band->observed_at.substr(0, 10), "2025-06-28");
  EXPECT_NE(band->source.find("5eedf20a99614443af215f4aaf09bd10805cac72"), std::string::npos);
  auto open = BandOf("p4d.24xlarge", "us-west-2");
  ASSERT_TRUE(open);
  EXPECT_EQ(open->label, ">20%");
  EXPECT_FALSE(open->high_fraction.has_value());
  // No band data for other clouds.
  OfferFilter gcp;
  gcp.cloud = "gcp";
  auto offers = CatalogStore(*db_).ListOffers(gcp);
  ASSERT_TRUE(offers.ok());
  ASSERT_FALSE(offers->empty());
  for (const Offer& o : *offers) EXPECT_FALSE(o.spot_band) << o.instance.id;
}

TEST_F(SpotBandsDbTest, ACatalogSeededBeforeTheBandsGetsThemOnce) {
  db_->exec("DELETE FROM spot_interruption_bands");
  db_->exec("DELETE FROM catalog_meta WHERE key = 'spot_bands_seeded_at'");
  auto first = SeedIfEmpty(*db_);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->seeded);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM spot_interruption_bands"), 654);
  // Once: bands an operator deleted afterwards stay deleted.
  db_->exec("DELETE FROM spot_interruption_bands WHERE region = 'us-east-1'");
  ASSERT_TRUE(SeedIfEmpty(*db_).ok());
  EXPECT_EQ(Count("SELECT COUNT(*) FROM spot_interruption_bands WHERE region = 'us-east-1'"), 0);
}

TEST_F(SpotBandsDbTest, ABatchReplacesTheBandsOfTheRegionsItNames) {
  long long west = Count("SELECT COUNT(*) FROM spot_interruption_bands WHERE region = 'us-west-2'");
  ASSERT_GT(Count("SELECT COUNT(*) FROM spot_interruption_bands WHERE region = 'us-east-1'"), 1);
  SpotBand band{"aws", "us-east-1", "p4d.24xlarge", 0, "<5%", 0, 0.05, 90, "2026-01-01", "test"};
  {
    WriteTransaction tx(*db_);
    EXPECT_EQ(WriteSpotBands(*db_, {band}), 1);
    tx.commit();
  }
  EXPECT_EQ(Count("SELECT COUNT(*) FROM spot_interruption_bands WHERE region = 'us-east-1'"), 1);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM spot_interruption_bands WHERE region = 'us-west-2'"), west);
  EXPECT_EQ(BandOf("p4d.24xlarge", "us-east-1")->label, "<5%");
  EXPECT_FALSE(BandOf("g5.48xlarge", "us-east-1"));
}

TEST(SpotBandRulesTest, ABatchWithABadBandIsRefusedNamingTheField) {
  CatalogBatch batch;
  batch.spot_bands.push_back(
      SpotBand{"aws", "us-east-1", "p4d.24xlarge", 7, "<5%", 0.3, 0.2, 120, "2026-01-01", ""});
  Status st = rules::CheckBatch(batch, std::time(nullptr));
  ASSERT_FALSE(st.ok());
  std::set<std::string> fields;
  for (const FieldError& f : st.error().fields) fields.insert(f.field);
  EXPECT_TRUE(fields.count("/spot_bands/0/band"));
  EXPECT_TRUE(fields.count("/spot_bands/0/high_fraction"));
  EXPECT_TRUE(fields.count("/spot_bands/0/savings_percent"));
}

}  // namespace
}  // namespace gpuplan::db
