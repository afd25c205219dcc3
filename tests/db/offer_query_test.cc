#include "db/offer_query.h"

#include <gtest/gtest.h>

#include <set>

namespace gpuplan::db {
namespace {

Offer MakeOffer(std::string cloud, std::string region, std::string id, int gpus,
                std::optional<double> ondemand, std::optional<double> spot,
                std::string currency = "USD") {
  Offer o;
  o.instance.cloud = std::move(cloud);
  o.instance.id = std::move(id);
  o.instance.gpu_count = gpus;
  o.region = std::move(region);
  o.gpu_memory_gb = 24;
  o.price_ondemand_per_hour = ondemand;
  o.price_spot_per_hour = spot;
  o.currency = std::move(currency);
  return o;
}

std::map<std::string, FxRate> Rates() {
  return {{"USD", {"USD", 1, "2024-12-31", ""}}, {"CNY", {"CNY", 7.0, "2024-12-31", ""}}};
}

std::vector<Offer> Sample() {
  return {MakeOffer("aws", "us-east-1", "a", 1, 1.0, 0.3),
          MakeOffer("aws", "us-east-1", "b", 4, 4.0, std::nullopt),
          MakeOffer("gcp", "us-central1", "c", 8, 8.0, 2.0),
          MakeOffer("alibaba", "cn-hangzhou", "d", 1, 14.0, std::nullopt, "CNY"),
          MakeOffer("aws", "us-west-2", "e", 1, 1.0, 0.4)};
}

// PageOffers over the sample, by pointer (it copies only the page).
Result<OfferPage> PageOfSample(const OfferQuery& q) {
  static const std::vector<Offer> sample = Sample();
  std::vector<const Offer*> listed;
  for (const Offer& o : sample) listed.push_back(&o);
  return PageOffers(listed, q, Rates());
}

std::vector<std::string> Ids(const OfferPage& page) {
  std::vector<std::string> ids;
  for (const auto& o : page.items) ids.push_back(o.instance.id);
  return ids;
}

TEST(OfferQueryTest, SortsByPriceInACommonCurrencyWithTiesBrokenByKey) {
  OfferQuery q;
  auto page = PageOfSample(q);
  ASSERT_TRUE(page.ok());
  // d is 14 CNY = 2 USD; a and e tie at 1 USD and break on region.
  EXPECT_EQ(Ids(*page), (std::vector<std::string>{"a", "e", "d", "b", "c"}));
  EXPECT_EQ(page->items[2].currency, "CNY");  // listed in its own currency
}

TEST(OfferQueryTest, PutsOffersWithoutTheSortedPriceLastInBothOrders) {
  OfferQuery q;
  q.price_kind = model::PriceKind::kSpot;
  auto asc = PageOfSample(q);
  ASSERT_TRUE(asc.ok());
  EXPECT_EQ(Ids(*asc), (std::vector<std::string>{"a", "e", "c", "d", "b"}));
  q.descending = true;
  auto desc = PageOfSample(q);
  EXPECT_EQ(Ids(*desc), (std::vector<std::string>{"c", "e", "a", "d", "b"}));
}

TEST(OfferQueryTest, MaxPriceUsesTheRequestedCurrencyAndDropsUnpricedOffers) {
  OfferQuery q;
  q.currency = "CNY";
  q.max_price_per_hour = 14.0;
  auto page = PageOfSample(q);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(Ids(*page), (std::vector<std::string>{"a", "e", "d"}));
  EXPECT_EQ(page->items[0].currency, "CNY");
  EXPECT_DOUBLE_EQ(*page->items[0].price_ondemand_per_hour, 7.0);
  q.price_kind = model::PriceKind::kSpot;
  auto spot = PageOfSample(q);
  EXPECT_EQ(Ids(*spot), (std::vector<std::string>{"a", "e", "c"}));
}

TEST(OfferQueryTest, CursorWalkReturnsEveryItemExactlyOnce) {
  for (OfferSort sort : {OfferSort::kPrice, OfferSort::kPricePerGpu, OfferSort::kGpuCount,
                         OfferSort::kGpuMemory}) {
    for (bool descending : {false, true}) {
      OfferQuery q;
      q.sort = sort;
      q.descending = descending;
      q.limit = 2;
      std::multiset<std::string> seen;
      int pages = 0;
      while (true) {
        auto page = PageOfSample(q);
        ASSERT_TRUE(page.ok());
        for (const auto& o : page->items) seen.insert(o.instance.id);
        ++pages;
        if (!page->next) break;
        q.after = page->next;
        ASSERT_LT(pages, 10);
      }
      EXPECT_EQ(seen, (std::multiset<std::string>{"a", "b", "c", "d", "e"}));
      EXPECT_EQ(pages, 3);
    }
  }
}

TEST(OfferQueryTest, UnknownCurrencyIsAnErrorNamingCurrency) {
  OfferQuery q;
  q.currency = "JPY";
  auto page = PageOfSample(q);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().fields.at(0).field, "currency");
}


// One parser of AWS zones: the spot-history importer's region of a zone and the listing's
// zone kind agree.
TEST(OfferQueryTest, AwsZonesAreParsedOnce) {
  EXPECT_EQ(AwsRegionOfZone("us-east-1a"), "us-east-1");
  EXPECT_EQ(AwsRegionOfZone("us-west-2-lax-1a"), "us-west-2");
  EXPECT_EQ(AwsRegionOfZone("us-gov-west-1b"), "us-gov-west-1");
  EXPECT_EQ(AwsRegionOfZone("us-central1-a"), "");  // a GCP zone
  EXPECT_EQ(AwsRegionOfZone("use1-az1"), "");
  EXPECT_EQ(AwsZoneKind("use1-az1"), "id");
  EXPECT_EQ(AwsZoneKind("apne1-az4"), "id");
  EXPECT_EQ(AwsZoneKind("us-east-1a"), "name");
  EXPECT_EQ(AwsZoneKind("us-west-2-lax-1a"), "name");
  EXPECT_EQ(AwsZoneKind("us-central1-a"), "");
  EXPECT_EQ(AwsZoneKind(""), "");
}

}  // namespace
}  // namespace gpuplan::db
