// The seeded catalog's coverage (issue 27) over real HTTP, on a fresh server: every cloud of
// the embedded seed, enough regions of each, metadata for every region, and the data-error
// rules visible on the offers. Thresholds, not counts: they survive a catalog refresh.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using testing::TestServer;

class CatalogCoverageApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() { delete server_; }
  static TestServer::Reply Get(const std::string& target) { return server_->Get(target); }
  // Calls fn(offer) for every offer of `cloud`, page by page.
  template <typename Fn>
  static void ForEachOffer(const std::string& cloud, Fn fn) {
    std::string cursor;
    do {
      auto page = Get("/api/v1/instances?cloud=" + cloud + "&limit=500" +
                      (cursor.empty() ? "" : "&cursor=" + cursor));
      ASSERT_EQ(page.status, 200);
      for (const auto& o : page.body["items"]) fn(o);
      cursor = page.body["next_cursor"].is_string() ? page.body["next_cursor"].get<std::string>()
                                                    : "";
    } while (!cursor.empty());
  }
  static TestServer* server_;
};
TestServer* CatalogCoverageApiTest::server_ = nullptr;

TEST_F(CatalogCoverageApiTest, ListsEveryCloudOfTheSeed) {
  auto clouds = Get("/api/v1/clouds");
  ASSERT_EQ(clouds.status, 200);
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& c : clouds.body["items"]) by_id[c["id"].get<std::string>()] = c;
  for (const char* id : {"aws", "gcp", "azure", "oci", "lambda", "nebius", "vast", "cudo",
                         "shadeform", "fluidstack", "alibaba", "huawei"}) {
    ASSERT_TRUE(by_id.count(id)) << id;
    EXPECT_GT(by_id[id]["instance_type_count"].get<int>(), 0) << id;
  }
  // Lambda and OCI list one price in every region; AWS prices per region.
  EXPECT_EQ(by_id["lambda"]["price_scope"], "cloud");
  EXPECT_EQ(by_id["oci"]["price_scope"], "cloud");
  EXPECT_EQ(by_id["aws"]["price_scope"], "region");
}

TEST_F(CatalogCoverageApiTest, ListsEnoughRegionsOfEachCloudWithTheirMetadata) {
  const std::map<std::string, size_t> at_least{
      {"aws", 20}, {"gcp", 25}, {"azure", 30}, {"oci", 30}, {"lambda", 10}, {"vast", 10}};
  for (const auto& [cloud, minimum] : at_least) {
    auto regions = Get("/api/v1/regions?cloud=" + cloud);
    ASSERT_EQ(regions.status, 200);
    EXPECT_GE(regions.body["items"].size(), minimum) << cloud;
  }
  auto all = Get("/api/v1/regions");
  ASSERT_EQ(all.status, 200);
  for (const auto& r : all.body["items"]) {
    std::string where = r["cloud"].get<std::string>() + "/" + r["id"].get<std::string>();
    EXPECT_FALSE(r["display_name"].get<std::string>().empty()) << where;
    EXPECT_NE(r["display_name"], r["id"]) << where << ": a region without metadata";
    EXPECT_FALSE(r["continent"].get<std::string>().empty()) << where;
  }
}

TEST_F(CatalogCoverageApiTest, OffersCarryTheirPriceScope) {
  auto lambda = Get("/api/v1/instances?cloud=lambda&limit=5");
  ASSERT_EQ(lambda.status, 200);
  ASSERT_FALSE(lambda.body["items"].empty());
  for (const auto& o : lambda.body["items"]) EXPECT_EQ(o["price_scope"], "cloud");
  auto aws = Get("/api/v1/instances?cloud=aws&limit=5");
  ASSERT_FALSE(aws.body["items"].empty());
  for (const auto& o : aws.body["items"]) EXPECT_EQ(o["price_scope"], "region");
}

TEST_F(CatalogCoverageApiTest, NoOfferIsFree) {
  int spot_only = 0;
  for (const char* cloud : {"aws", "gcp", "vast", "azure"}) {
    ForEachOffer(cloud, [&](const nlohmann::json& o) {
      for (const char* price : {"price_ondemand_per_hour", "price_spot_per_hour"}) {
        if (!o[price].is_null()) {
          EXPECT_GT(o[price].get<double>(), 0) << cloud << " " << o["instance_type"];
        }
      }
      spot_only += o["price_ondemand_per_hour"].is_null();
    });
  }
  EXPECT_GT(spot_only, 0);  // AWS p5e.48xlarge: no on-demand price, spot only
}

TEST_F(CatalogCoverageApiTest, SpotAboveOnDemandIsFlaggedOnTheOffer) {
  int flagged = 0;
  for (const char* cloud : {"gcp", "aws"}) {
    ForEachOffer(cloud, [&](const nlohmann::json& o) {
      bool priced = !o["price_spot_per_hour"].is_null() && !o["price_ondemand_per_hour"].is_null();
      double gap = priced ? o["price_spot_per_hour"].get<double>() -
                                o["price_ondemand_per_hour"].get<double>()
                          : -1;
      bool flag = o["spot_above_ondemand"].get<bool>();
      // Prices are shown rounded to 1e-6: the flag (from the stored prices) agrees up to that.
      if (flag) {
        EXPECT_GE(gap, -1e-6) << o["instance_type"];
      } else {
        EXPECT_LE(gap, 1e-6) << o["instance_type"];
      }
      flagged += flag;
    });
  }
  EXPECT_GT(flagged, 0);  // the seed has AWS g5.24xlarge/48xlarge spot a hair above on-demand
}

}  // namespace
}  // namespace gpuplan::api
