// Every price shows its date, and a price older than the stale age (serve
// --stale-price-days, default 30) is flagged where users see it: the listing, the instance
// page, an estimate's warnings and a recommendation item. The prices are written relative
// to the real clock, so the test holds on any date.
#include <gtest/gtest.h>

#include <ctime>

#include "db/catalog_admin.h"
#include "db/database.h"
#include "db/text.h"
#include "plan/price_quality.h"
#include "tests/testing/test_server.h"

namespace gpuplan {
namespace {

using nlohmann::json;

constexpr const char* kRegion = "us-east-1";

std::string DaysAgo(int days) { return db::FormatUtc(std::time(nullptr) - days * 86400L); }

// Two A10G instance types in AWS us-east-1, priced on `old_date` and `fresh_date`.
void AddOldAndFreshOffers(const std::string& db_path, const std::string& old_date,
                          const std::string& fresh_date) {
  auto db = db::OpenDatabase(db_path);
  ASSERT_TRUE(db.ok()) << db.error().message;
  db::CatalogAdmin admin(**db);
  for (const char* id : {"old.test", "fresh.test"}) {
    db::InstanceType t;
    t.cloud = "aws";
    t.id = id;
    t.gpu_id = "A10G";
    t.gpu_count = 1;
    t.vcpus = 4;
    t.memory_gib = 16;
    t.source = "test";
    ASSERT_TRUE(admin.CreateInstanceType(t).ok()) << id;
  }
  auto added = admin.AddPrices({{"aws", "old.test", kRegion, "", "ondemand", 2.0, "USD", old_date, "test"},
                                {"aws", "fresh.test", kRegion, "", "ondemand", 1.0, "USD", fresh_date, "test"}});
  ASSERT_TRUE(added.ok()) << added.error().message;
}

bool Says(const json& lines, const std::string& text) {
  for (const json& line : lines) {
    if (line.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

json Estimate(const testing::TestServer& server, const std::string& type) {
  json body = {{"workload", "resnet-50"}, {"dataset", {{"samples", 1e5}}},
               {"global_batch_size", 64},
               {"hardware", {{"cloud", "aws"}, {"instance_type", type}, {"region", kRegion}}},
               {"pricing", {{"kind", "ondemand"}}}};
  auto reply = server.Post("/api/v1/estimates/training", body);
  EXPECT_EQ(reply.status, 200) << reply.body.dump();
  return reply.body;
}

TEST(PriceFreshnessTest, OldPricesAreFlaggedWithTheirDateEverywhere) {
  testing::TestServer server;  // the default stale age
  const std::string old_date = DaysAgo(40), fresh_date = DaysAgo(1);
  AddOldAndFreshOffers(server.db_path(), old_date, fresh_date);

  auto old_page = server.Get("/api/v1/instances/aws/old.test");
  ASSERT_EQ(old_page.status, 200) << old_page.body.dump();
  EXPECT_EQ(old_page.body["stale_after_days"], plan::kDefaultStalePriceDays);
  ASSERT_EQ(old_page.body["regions"].size(), 1u);
  EXPECT_EQ(old_page.body["regions"][0]["observed_at"], old_date);
  EXPECT_EQ(old_page.body["regions"][0]["stale"], true);
  auto fresh_page = server.Get("/api/v1/instances/aws/fresh.test");
  ASSERT_EQ(fresh_page.status, 200);
  EXPECT_EQ(fresh_page.body["regions"][0]["stale"], false);

  auto listing = server.Get("/api/v1/instances?cloud=aws&region=us-east-1&gpu=A10G&limit=500");
  ASSERT_EQ(listing.status, 200) << listing.body.dump();
  EXPECT_EQ(listing.body["stale_after_days"], plan::kDefaultStalePriceDays);
  int seen = 0;
  for (const json& item : listing.body["items"]) {
    if (item["instance_type"] == "old.test") {
      EXPECT_EQ(item["stale"], true) << item.dump();
      EXPECT_EQ(item["observed_at"], old_date);
      ++seen;
    } else if (item["instance_type"] == "fresh.test") {
      EXPECT_EQ(item["stale"], false) << item.dump();
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2) << listing.body.dump();

  json old_estimate = Estimate(server, "old.test");
  EXPECT_EQ(old_estimate["instance"]["observed_at"], old_date) << old_estimate.dump();
  EXPECT_TRUE(Says(old_estimate["warnings"], "price flagged stale: old.test in us-east-1: its "
                                             "on-demand price was observed on " +
                                             old_date.substr(0, 10) +
                                             ", more than 30 days ago"))
      << old_estimate["warnings"].dump();
  json fresh_estimate = Estimate(server, "fresh.test");
  EXPECT_EQ(fresh_estimate["instance"]["observed_at"], fresh_date);
  EXPECT_FALSE(Says(fresh_estimate.value("warnings", json::array()), "price flagged stale"));

  // A recommendation item carries its price's date, and the flag when it is old.
  json ask = {{"workload", "resnet-50"}, {"dataset", {{"samples", 1e5}}},
              {"global_batch_size", 64}, {"limit", 100},
              {"constraints", {{"clouds", {"aws"}}, {"regions", {kRegion}}, {"gpus", {"A10G"}},
                               {"max_nodes", 1}, {"price_kinds", {"ondemand"}}}}};
  auto ranked = server.Post("/api/v1/recommendations", ask);
  ASSERT_EQ(ranked.status, 200) << ranked.body.dump();
  int items = 0;
  for (const json& item : ranked.body["items"]) {
    if (item["instance_type"] != "old.test" && item["instance_type"] != "fresh.test") continue;
    ++items;
    const bool old = item["instance_type"] == "old.test";
    EXPECT_EQ(item["price_observed_at"], old ? old_date : fresh_date) << item.dump();
    EXPECT_EQ(item.value("price_flags", json::array()).dump(), old ? "[\"stale\"]" : "[]");
  }
  EXPECT_EQ(items, 2) << ranked.body.dump();
}

// An old on-demand price beside a fresh spot one: the offer is stale (it lists the old
// price), its on-demand options are flagged and dated by the on-demand price, its spot
// options by the spot price and not flagged.
TEST(PriceFreshnessTest, EachOptionIsJudgedByThePriceItIsCostedOn) {
  testing::TestServer server;
  const std::string old_date = DaysAgo(40), fresh_date = DaysAgo(1);
  AddOldAndFreshOffers(server.db_path(), old_date, fresh_date);
  {
    auto db = db::OpenDatabase(server.db_path());
    ASSERT_TRUE(db.ok()) << db.error().message;
    db::CatalogAdmin admin(**db);
    auto added = admin.AddPrices(
        {{"aws", "old.test", kRegion, "", "spot", 0.5, "USD", fresh_date, "test"}});
    ASSERT_TRUE(added.ok()) << added.error().message;
  }
  auto page = server.Get("/api/v1/instances/aws/old.test");
  ASSERT_EQ(page.status, 200) << page.body.dump();
  EXPECT_EQ(page.body["regions"][0]["observed_at"], fresh_date);  // the latest of its prices
  EXPECT_EQ(page.body["regions"][0]["stale"], true);              // but one of them is old

  json ask = {{"workload", "resnet-50"}, {"dataset", {{"samples", 1e5}}},
              {"global_batch_size", 64}, {"limit", 100},
              {"constraints", {{"clouds", {"aws"}}, {"regions", {kRegion}}, {"gpus", {"A10G"}},
                               {"max_nodes", 1}, {"price_kinds", {"ondemand", "spot"}}}}};
  auto ranked = server.Post("/api/v1/recommendations", ask);
  ASSERT_EQ(ranked.status, 200) << ranked.body.dump();
  int seen = 0;
  for (const json& item : ranked.body["items"]) {
    if (item["instance_type"] != "old.test") continue;
    const bool spot = item["price_kind"] == "spot";
    EXPECT_EQ(item["price_observed_at"], spot ? fresh_date : old_date) << item.dump();
    EXPECT_EQ(item.value("price_flags", json::array()).dump(), spot ? "[]" : "[\"stale\"]")
        << item.dump();
    seen += spot ? 1 : 10;
  }
  EXPECT_EQ(seen, 11) << ranked.body.dump();  // one on-demand and one spot option
}

TEST(PriceFreshnessTest, TheStaleAgeIsTheServersSetting) {
  struct Restore {
    ~Restore() { plan::SetStalePriceDays(plan::kDefaultStalePriceDays); }
  } restore;  // the age is per process: leave the default to the next test
  testing::TestServer server(std::function<void(server::ServeConfig&)>(
      [](server::ServeConfig& c) { c.stale_price_days = 60; }));
  AddOldAndFreshOffers(server.db_path(), DaysAgo(40), DaysAgo(1));
  auto old_page = server.Get("/api/v1/instances/aws/old.test");
  ASSERT_EQ(old_page.status, 200);
  EXPECT_EQ(old_page.body["stale_after_days"], 60);
  EXPECT_EQ(old_page.body["regions"][0]["stale"], false);
  EXPECT_FALSE(Says(Estimate(server, "old.test").value("warnings", json::array()),
                    "price flagged stale"));
}

}  // namespace
}  // namespace gpuplan
