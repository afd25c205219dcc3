// The dense ids a recommendation walk groups offers by (plan/offer_index.h): each id names
// exactly the offers that share what it stands for, on hand-made offers and on the whole
// seeded catalog; the index is kept per catalog generation where the reader keeps one.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <typeindex>
#include <vector>

#include "db/cached_catalog.h"
#include "db/catalog_store.h"
#include "db/catalog_writer.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/sql.h"
#include "plan/offer_index.h"
#include "tests/plan/memory_catalog.h"
#include "tests/testing/temp_dir.h"

namespace gpuplan::plan {
namespace {

using Offers = std::shared_ptr<const std::vector<db::Offer>>;

// What each id stands for, written out here rather than taken from the index.
using TypeText = std::tuple<std::string, std::string>;
TypeText TypeTextOf(const db::Offer& o) { return {o.instance.cloud, o.instance.id}; }

using HardwareText = std::tuple<std::string, int, std::string, double, double, double>;
HardwareText HardwareTextOf(const db::Offer& o, KeyFor use, bool several_nodes) {
  const db::InstanceType& t = o.instance;
  const double network = use != KeyFor::kServing && several_nodes ? t.network_gbps.value_or(0) : 0;
  const double vcpus = use == KeyFor::kImageTraining ? t.vcpus.value_or(0) : 0;
  return {t.gpu_id, t.gpu_count, t.interconnect, t.interconnect_bw_gbps, network, vcpus};
}

// Offers repeat each other's options only with a cloud-wide price list, no spot history and
// the same prices, times, currency, source and band; any other offer is its own group (its
// position in the list names it).
using RepeatText =
    std::tuple<size_t, std::string, std::string, std::optional<double>, std::optional<double>,
               std::string, std::string, std::string, std::string, std::string, const void*>;
RepeatText RepeatTextOf(const db::Offer& o, size_t position) {
  const bool may_repeat = o.price_scope == "cloud" && o.spot_observation_times < 3;
  return {may_repeat ? SIZE_MAX : position,
          o.instance.cloud,
          o.instance.id,
          o.price_ondemand_per_hour,
          o.price_spot_per_hour,
          o.currency,
          o.ondemand_observed_at,
          o.spot_observed_at,
          o.observed_at,
          o.source,
          o.spot_band.get()};
}

// Checks that `id_of` numbers the offers by `text_of` one to one, with every id below
// `count` used; answers how many distinct ids it saw.
template <typename Text, typename IdOf, typename TextOf>
size_t ExpectOneToOne(const std::vector<db::Offer>& offers, uint32_t count, IdOf id_of,
                      TextOf text_of) {
  std::map<Text, uint32_t> id_by_text;
  std::map<uint32_t, Text> text_by_id;
  for (size_t i = 0; i < offers.size(); ++i) {
    const uint32_t id = id_of(offers[i]);
    const Text text = text_of(offers[i], i);
    EXPECT_LT(id, count) << "offer " << i;
    auto [by_text, new_text] = id_by_text.emplace(text, id);
    EXPECT_EQ(by_text->second, id) << "offer " << i << ": one text, two ids";
    auto [by_id, new_id] = text_by_id.emplace(id, text);
    EXPECT_TRUE(by_id->second == text) << "offer " << i << ": one id, two texts";
  }
  EXPECT_EQ(text_by_id.size(), count) << "an id numbers no offer";
  return text_by_id.size();
}

// Every grouping of `offers` checked; answers the number of ids of each (types, hardware of
// the four uses, repeat groups).
std::vector<size_t> CheckIndex(const Offers& offers) {
  OfferIndex index(offers);
  EXPECT_TRUE(index.Indexes(offers));
  std::vector<size_t> sizes;
  sizes.push_back(ExpectOneToOne<TypeText>(
      *offers, index.types(), [&](const db::Offer& o) { return index.TypeOf(o); },
      [](const db::Offer& o, size_t) { return TypeTextOf(o); }));
  for (KeyFor use : {KeyFor::kTraining, KeyFor::kImageTraining, KeyFor::kServing}) {
    for (bool several : {false, true}) {
      // HardwareOf's ids are shared by the uses: within one use, one to one.
      std::map<HardwareText, uint32_t> id_by_text;
      std::map<uint32_t, HardwareText> text_by_id;
      for (const db::Offer& o : *offers) {
        const uint32_t id = index.HardwareOf(index.TypeOf(o), use, several);
        const HardwareText text = HardwareTextOf(o, use, several);
        EXPECT_LT(id, index.hardware());
        EXPECT_EQ(id_by_text.emplace(text, id).first->second, id) << o.instance.id;
        EXPECT_TRUE(text_by_id.emplace(id, text).first->second == text) << o.instance.id;
      }
      sizes.push_back(id_by_text.size());
    }
  }
  sizes.push_back(ExpectOneToOne<RepeatText>(
      *offers, index.repeat_groups(), [&](const db::Offer& o) { return index.RepeatGroupOf(o); },
      RepeatTextOf));
  return sizes;
}

TEST(OfferIndexTest, EachIdNamesExactlyTheOffersThatShareWhatItStandsFor) {
  testing::MemoryCatalog catalog;
  // Two clouds with a type of one name; equal hardware under other names and clouds; a type
  // differing only in bandwidth, network or vCPUs; cloud-wide prices with and without equal
  // prices, bands and spot history.
  catalog.AddOffer("a", "x8", "A100", 8, "r1", 20, 8);
  catalog.AddOffer("a", "x8", "A100", 8, "r2", 21, 8);
  catalog.AddOffer("b", "x8", "A100", 8, "r1", 20, 8);
  catalog.AddOffer("b", "y8", "A100", 8, "r1", 20, 8);
  catalog.AddOffer("b", "z8", "A100", 8, "r1", 20, 8);
  catalog.AddOffer("b", "w8", "A100", 8, "r1", 20, 8);
  catalog.AddOffer("b", "v8", "A100", 8, "r1", 20, 8);
  catalog.AddOffer("c", "h1", "H100", 1, "r1", 3, std::nullopt);
  catalog.AddOffer("c", "h1", "H100", 1, "r2", 3, std::nullopt);
  catalog.AddOffer("c", "h1", "H100", 1, "r3", 4, std::nullopt);
  catalog.AddOffer("c", "h1", "H100", 1, "r4", 3, std::nullopt);
  catalog.AddOffer("c", "h1", "H100", 1, "r5", 3, std::nullopt);
  catalog.AddOffer("c", "h1", "H100", 1, "r6", 3, std::nullopt);
  catalog.AddOffer("c", "h2", "H100", 1, "r1", 3, std::nullopt);
  auto& o = catalog.offers;
  o[3].instance.interconnect_bw_gbps = 300;  // y8: other bandwidth
  o[4].instance.network_gbps = 400;          // z8: other network
  o[5].instance.vcpus = 96;                  // w8: other vCPUs
  o[6].instance.vcpus = 48;                  // v8: other vCPUs again
  for (size_t i = 7; i < o.size(); ++i) o[i].price_scope = "cloud";
  o[11].spot_band = std::make_shared<const db::SpotBand>();  // a band of its own
  o[12].spot_observation_times = 3;                          // spot history: walks
  catalog.AddOffer("c", "h1", "H100", 1, "r7", 3, std::nullopt);
  o.back().price_scope = "cloud";
  o.back().source = "another list";  // another source
  auto offers = std::make_shared<const std::vector<db::Offer>>(catalog.offers);
  auto sizes = CheckIndex(offers);
  // Types a/x8, b/x8, y8, z8, w8, v8, c/h1, c/h2.
  EXPECT_EQ(sizes[0], 8u);
  // Training on one node: x8 (a and b, z8), y8, w8 and v8 differ only in vCPUs (read by
  // image training only), H100; on several nodes z8's network too.
  EXPECT_EQ(sizes[1], 3u);  // training, one node: A100 x8, y8's bandwidth, H100
  EXPECT_EQ(sizes[2], 4u);  // training, several nodes: and z8's network
  EXPECT_EQ(sizes[3], 5u);  // image training, one node: and w8's, v8's vCPUs
  EXPECT_EQ(sizes[4], 6u);  // image training, several nodes: both
  EXPECT_EQ(sizes[5], 3u);  // serving: as training on one node
  EXPECT_EQ(sizes[6], 3u);
  // Repeat groups: the seven region-priced offers alone; h1 in r1, r2 and r4 together; h1
  // in r3 (its price), r5 (its band), r6 (spot history) and r7 (its source) alone; h2 alone.
  EXPECT_EQ(sizes[7], 7u + 1 + 4 + 1);
}

TEST(OfferIndexTest, NumbersTheWholeSeededCatalog) {
  ::gpuplan::testing::TempDir dir;
  auto db = db::OpenDatabase(dir.File("index.db"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db::Migrate(**db).ok());
  ASSERT_TRUE(db::SeedIfEmpty(**db).ok());
  db::CachedCatalog catalog(**db);
  auto offers = catalog.AllOffers();
  ASSERT_TRUE(offers.ok());
  auto sizes = CheckIndex(*offers);
  // Far fewer types and hardware than offers: what the walks gain by the ids.
  EXPECT_GT((*offers)->size(), 1000u);
  EXPECT_LT(sizes[0] * 4, (*offers)->size());
  EXPECT_LT(sizes[1], sizes[0]);
  EXPECT_LT(sizes[7], (*offers)->size());  // some offers repeat others (Lambda, OCI)
}

TEST(OfferIndexTest, KeptPerGenerationWhereTheReaderKeepsTheCatalog) {
  ::gpuplan::testing::TempDir dir;
  const std::string path = dir.File("kept.db");
  auto writer = db::OpenDatabase(path);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(db::Migrate(**writer).ok());
  ASSERT_TRUE(db::SeedIfEmpty(**writer).ok());
  auto reader = db::OpenDatabase(path);
  ASSERT_TRUE(reader.ok());
  // One request's offers and their index.
  auto index_of = [&](Offers* offers, std::shared_ptr<const OfferIndex>* index) {
    db::CachedCatalog catalog(**reader);
    auto listed = catalog.AllOffers();
    ASSERT_TRUE(listed.ok());
    auto got = IndexOfOffers(catalog, *listed);
    ASSERT_TRUE(got.ok());
    ASSERT_TRUE((*got)->Indexes(*listed));
    *offers = *listed;
    *index = *got;
  };
  Offers offers, newer, again;
  std::shared_ptr<const OfferIndex> first, second, third, fourth;
  index_of(&offers, &first);
  index_of(&again, &second);
  EXPECT_EQ(again, offers);
  EXPECT_EQ(first, second);  // one generation: one index
  {
    auto gpu = db::CatalogStore(**writer).GetGpu("T4");
    ASSERT_TRUE(gpu.ok());
    db::Transaction tx(**writer);
    db::UpsertGpu(**writer, *gpu);  // a new generation
    tx.commit();
  }
  index_of(&newer, &third);
  EXPECT_NE(newer, offers);
  EXPECT_NE(third, first);
  EXPECT_FALSE(first->Indexes(newer));
  index_of(&again, &fourth);
  EXPECT_EQ(fourth, third);  // the new generation's, kept

  // A reader that keeps nothing (CatalogReader's default) gets an index built per call.
  testing::MemoryCatalog memory;
  memory.AddOffer("a", "x8", "A100", 8, "r1", 20, 8);
  auto listed = memory.AllOffers();
  ASSERT_TRUE(listed.ok());
  auto a = IndexOfOffers(memory, *listed), b = IndexOfOffers(memory, *listed);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_TRUE((*a)->Indexes(*listed) && (*b)->Indexes(*listed));
}

// A reader that hands over an index of other offers (another request still updating the
// value, or the previous generation's): IndexOfOffers answers one of the request's own.
class HandsOverAnIndex : public testing::MemoryCatalog {
 public:
  std::shared_ptr<const void> handed;
  int updates = 0;

 protected:
  Result<std::shared_ptr<const void>> DerivedValue(std::type_index, const ErasedUpdate&) override {
    ++updates;
    return handed;
  }
};

TEST(OfferIndexTest, AnIndexOfOtherOffersIsNeverAnswered) {
  HandsOverAnIndex catalog;
  catalog.AddOffer("a", "x8", "A100", 8, "r1", 20, 8);
  catalog.AddOffer("b", "y8", "A100", 8, "r1", 20, 8);
  auto other = catalog.AllOffers();  // an equal list, not this request's
  auto listed = catalog.AllOffers();
  ASSERT_TRUE(other.ok() && listed.ok());
  auto stale = std::make_shared<const OfferIndex>(*other);
  catalog.handed = stale;
  auto got = IndexOfOffers(catalog, *listed);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(catalog.updates, 1);
  EXPECT_NE(*got, stale);
  EXPECT_TRUE((*got)->Indexes(*listed));
  EXPECT_FALSE(stale->Indexes(*listed));

  // The same on an in-memory database, whose CachedCatalog keeps the first index it built
  // while every AllOffers is a new list.
  auto memory = db::OpenDatabase(":memory:");
  ASSERT_TRUE(memory.ok());
  ASSERT_TRUE(db::Migrate(**memory).ok());
  ASSERT_TRUE(db::SeedIfEmpty(**memory).ok());
  db::CachedCatalog request(**memory);
  auto first = request.AllOffers(), second = request.AllOffers();
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_NE(*first, *second);
  auto first_index = IndexOfOffers(request, *first), second_index = IndexOfOffers(request, *second);
  ASSERT_TRUE(first_index.ok() && second_index.ok());
  EXPECT_TRUE((*first_index)->Indexes(*first));
  EXPECT_TRUE((*second_index)->Indexes(*second));
}

}  // namespace
}  // namespace gpuplan::plan
