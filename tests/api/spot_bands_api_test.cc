// Spot risk from data (issue 27, point 3) over real HTTP against the seeded catalog: an AWS
// spot estimate takes its interruption rate from the offer's Spot Instance Advisor band and
// says so; two offers in different bands cost the same job differently; the instance
// listing shows the band; operators refresh the bands with format=aws-spot-advisor.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::CreateApiKey;
using testing::TestServer;

class SpotBandsApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<TestServer>();
    key_ = CreateApiKey(*server_, "platform", "write");
  }
  TestServer::Reply Import(const std::string& query, const std::string& body) {
    return server_->Send("POST", "/api/v1/catalog/import?" + query, body, "application/json",
                         {{"Authorization", "Bearer " + key_}});
  }
  // Every AWS offer with a spot price, by (instance type, region).
  std::map<std::pair<std::string, std::string>, json> AwsSpotOffers() {
    std::map<std::pair<std::string, std::string>, json> out;
    std::string target = "/api/v1/instances?cloud=aws&limit=500";
    for (int pages = 0; pages < 100; ++pages) {
      auto page = server_->Get(target);
      EXPECT_EQ(page.status, 200) << page.body.dump();
      for (const json& item : page.body["items"]) {
        if (item["price_spot_per_hour"].is_null()) continue;
        out[{item["instance_type"], item["region"]}] = item;
      }
      if (page.body["next_cursor"].is_null()) break;
      target = "/api/v1/instances?cloud=aws&limit=500&cursor=" +
               page.body["next_cursor"].get<std::string>();
    }
    return out;
  }
  using Offers = std::map<std::pair<std::string, std::string>, json>;
  // The spot_interruption of (type, region) among `offers` (null when absent).
  static json Band(const Offers& offers, const std::string& type, const std::string& region) {
    auto it = offers.find({type, region});
    return it == offers.end() ? json() : it->second["spot_interruption"];
  }
  json SpotEstimate(const std::string& type, const std::string& region,
                    const json& pricing = {{"kind", "spot"}}) {
    json body = {{"workload", "bert-large"},
                 {"dataset", {{"samples", 300000000}}},
                 {"global_batch_size", 256},
                 {"hardware", {{"cloud", "aws"}, {"instance_type", type}, {"region", region}}},
                 {"pricing", pricing}};
    auto reply = server_->Post("/api/v1/estimates/training", body);
    EXPECT_EQ(reply.status, 200) << reply.body.dump();
    return reply.body;
  }
  static bool Says(const json& list, const std::string& words) {
    for (const json& line : list) {
      if (line.get<std::string>().find(words) != std::string::npos) return true;
    }
    return false;
  }
  std::unique_ptr<TestServer> server_;
  std::string key_;
};

// Acceptance: the estimate names the band and its hourly rate, and two offers of one
// instance type in different bands get different expected spot costs for the same job
// (the same estimate, so only the interruption rate can tell their billable hours apart).
TEST_F(SpotBandsApiTest, AnAwsSpotEstimateTakesItsRateFromTheBand) {
  auto offers = AwsSpotOffers();
  std::pair<std::string, std::string> low, high;
  for (const auto& [key, a] : offers) {
    if (a["spot_interruption"].is_null()) continue;
    for (const auto& [other, b] : offers) {
      if (other.first != key.first || b["spot_interruption"].is_null()) continue;
      if (a["spot_interruption"]["band_index"].get<int>() <
          b["spot_interruption"]["band_index"].get<int>()) {
        low = key;
        high = other;
      }
    }
    if (!low.first.empty()) break;
  }
  ASSERT_FALSE(low.first.empty()) << "no instance type has spot offers in two bands";
  const json& low_band = offers[low]["spot_interruption"];
  const json& high_band = offers[high]["spot_interruption"];
  EXPECT_LT(low_band["rate_per_hour"].get<double>(), high_band["rate_per_hour"].get<double>());
  // The documented conversion: -ln(1 - p) / 730 h at the band's midpoint.
  double mid = (low_band["low_fraction"].get<double>() +
                (low_band["high_fraction"].is_null() ? 1 - std::exp(-1.0)
                                                     : low_band["high_fraction"].get<double>())) /
               2;
  EXPECT_NEAR(low_band["rate_per_hour"].get<double>(), -std::log(1 - mid) / 730, 1e-12);

  json a = SpotEstimate(low.first, low.second);
  json b = SpotEstimate(high.first, high.second);
  for (const auto& [answer, band, where] :
       {std::tuple{&a, &low_band, low}, std::tuple{&b, &high_band, high}}) {
    const json& spot = (*answer)["cost"]["spot"];
    ASSERT_TRUE(spot.is_object()) << answer->dump();
    EXPECT_DOUBLE_EQ(spot["interruption_rate_per_hour"].get<double>(),
                     (*band)["rate_per_hour"].get<double>());
    EXPECT_EQ(spot["interruption"]["source"], "aws-spot-advisor");
    EXPECT_EQ(spot["interruption"]["band"], (*band)["band"]);
    EXPECT_TRUE(Says((*answer)["assumptions"],
                     "from the AWS Spot Instance Advisor band " +
                         (*band)["band"].get<std::string>() + " of aws " + where.second + " " +
                         where.first))
        << (*answer)["assumptions"].dump();
    EXPECT_FALSE(Says((*answer)["assumptions"], "the default (no per-offer"));
    // The band's range feeds the cost range.
    EXPECT_LT(spot["interruption"]["low_per_hour"].get<double>(),
              spot["interruption"]["high_per_hour"].get<double>());
    EXPECT_LE(spot["p10_total"].get<double>(), spot["expected_total"].get<double>());
    EXPECT_GE(spot["p90_total"].get<double>(), spot["expected_total"].get<double>());
    EXPECT_GE(spot["p90_wall_hours"].get<double>(), spot["wall_hours"].get<double>());
  }
  const json& sa = a["cost"]["spot"];
  const json& sb = b["cost"]["spot"];
  EXPECT_NE(sa["expected_total"].get<double>(), sb["expected_total"].get<double>());
  auto billable = [](const json& s) {
    return s["expected_total"].get<double>() /
           (s["price_per_hour"].get<double>() * s["instances"].get<int>());
  };
  EXPECT_LT(billable(sa), billable(sb)) << sa.dump() << "\n" << sb.dump();
  EXPECT_LT(sa["expected_interruptions"].get<double>(), sb["expected_interruptions"].get<double>());

  // A request that gives its own rate keeps it, in both regions.
  json own = SpotEstimate(low.first, low.second,
                          {{"kind", "spot"}, {"interruption_rate_per_hour", 0.05}});
  EXPECT_EQ(own["cost"]["spot"]["interruption_rate_per_hour"], 0.05);
  EXPECT_EQ(own["cost"]["spot"]["interruption"]["source"], "request");
  EXPECT_FALSE(Says(own["assumptions"], "Spot Instance Advisor"));
}

// A recommendation's spot options name their own rate: AWS offers their band's, offers
// without a band (other clouds) the documented default; the assumptions say which.
TEST_F(SpotBandsApiTest, RecommendedSpotOptionsNameTheirRateAndSource) {
  auto ranked = [&](const char* cloud) {
    json body = {{"workload", "bert-large"},
                 {"dataset", {{"samples", 10000000}}},
                 {"global_batch_size", 256},
                 {"constraints", {{"clouds", {cloud}}, {"price_kinds", {"spot"}}}},
                 {"limit", 100}};
    auto reply = server_->Post("/api/v1/recommendations", body);
    EXPECT_EQ(reply.status, 200) << reply.body.dump();
    EXPECT_FALSE(reply.body["items"].empty()) << cloud;
    return reply.body;
  };
  json aws = ranked("aws");
  EXPECT_TRUE(Says(aws["assumptions"], "from their AWS Spot Instance Advisor band"))
      << aws["assumptions"].dump();
  int banded = 0;
  for (const json& item : aws["items"]) {
    const json& risk = item["interruption"];
    ASSERT_TRUE(risk.is_object()) << item.dump();
    if (risk["source"] != "aws-spot-advisor") continue;
    ++banded;
    EXPECT_LT(risk["rate_per_hour"].get<double>(), 0.01);
    EXPECT_NE(item["why"].get<std::string>().find("AWS Spot Advisor band " +
                                                  risk["band"].get<std::string>()),
              std::string::npos)
        << item["why"];
  }
  EXPECT_GT(banded, 0);
  json gcp = ranked("gcp");
  EXPECT_TRUE(Says(gcp["assumptions"], "interruption rate 0.1 per node-hour: the default"));
  EXPECT_FALSE(Says(gcp["assumptions"], "Spot Instance Advisor"));
  for (const json& item : gcp["items"]) {
    EXPECT_EQ(item["interruption"]["source"], "default") << item.dump();
    EXPECT_EQ(item["interruption"]["rate_per_hour"], 0.1);
  }
}

// Serving prices spot hours only: with a band, the answer still names it beside the caveat.
TEST_F(SpotBandsApiTest, AServingEstimateOnSpotNamesTheBand) {
  json body = {{"workload", "llama-2-7b"}, {"input_tokens", 200}, {"output_tokens", 300},
               {"target_requests_per_s", 5},
               {"hardware", {{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"},
                             {"region", "us-east-1"}}},
               {"pricing", {{"kind", "spot"}}}};
  auto reply = server_->Post("/api/v1/estimates/inference", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  std::string band = Band(AwsSpotOffers(), "p4d.24xlarge", "us-east-1")["band"];
  EXPECT_TRUE(Says(reply.body["assumptions"], "(AWS Spot Advisor band " + band +
                                                  ") for aws us-east-1 p4d.24xlarge"))
      << reply.body["assumptions"].dump();
}

// The public spot-advisor-data.json shape: Linux entries replace the region's bands; the
// others stay; Windows entries and unknown types are not written.
TEST_F(SpotBandsApiTest, TheAdvisorFeedImportsAndReplacesARegionsBands) {
  auto before = AwsSpotOffers();
  ASSERT_FALSE(Band(before, "p4d.24xlarge", "us-east-1").is_null());
  ASSERT_FALSE(Band(before, "g5.48xlarge", "us-east-1").is_null());
  ASSERT_FALSE(Band(before, "p4d.24xlarge", "us-west-2").is_null());
  json feed = {
      {"ranges",
       {{{"index", 0}, {"label", "<5%"}, {"dots", 0}, {"max", 5}},
        {{"index", 1}, {"label", "5-10%"}, {"dots", 1}, {"max", 11}},
        {{"index", 2}, {"label", "10-15%"}, {"dots", 2}, {"max", 16}},
        {{"index", 3}, {"label", "15-20%"}, {"dots", 3}, {"max", 22}},
        {{"index", 4}, {"label", ">20%"}, {"dots", 4}, {"max", 100}}}},
      {"instance_types", {{"p4d.24xlarge", {{"emr", true}, {"cores", 96}, {"ram_gb", 1152}}}}},
      {"spot_advisor",
       {{"us-east-1",
         {{"Linux", {{"p4d.24xlarge", {{"s", 70}, {"r", 3}}}, {"m9.unknown", {{"s", 10}, {"r", 0}}}}},
          {"Windows", {{"p4d.24xlarge", {{"s", 10}, {"r", 0}}}}}}}}}};
  auto dry = Import("format=aws-spot-advisor&dry_run=true", feed.dump());
  ASSERT_EQ(dry.status, 200) << dry.body.dump();
  EXPECT_EQ(Band(AwsSpotOffers(), "p4d.24xlarge", "us-east-1"),
            Band(before, "p4d.24xlarge", "us-east-1"));
  auto reply = Import("format=aws-spot-advisor&observed_at=2026-01-02", feed.dump());
  ASSERT_EQ(reply.status, 201) << reply.body.dump();
  EXPECT_EQ(reply.body["cloud"], "aws");
  EXPECT_EQ(reply.body["spot_bands"], 1);
  EXPECT_EQ(reply.body["rows"]["read"], 2);
  EXPECT_EQ(reply.body["rows"]["skipped"], 1);
  auto after = AwsSpotOffers();
  const json& band = Band(after, "p4d.24xlarge", "us-east-1");
  ASSERT_TRUE(band.is_object());
  EXPECT_EQ(band["band"], "15-20%");
  EXPECT_EQ(band["band_index"], 3);
  EXPECT_EQ(band["savings_percent"], 70);
  EXPECT_EQ(band["observed_at"].get<std::string>().substr(0, 10), "2026-01-02");
  EXPECT_TRUE(Band(after, "g5.48xlarge", "us-east-1").is_null());
  EXPECT_EQ(Band(after, "p4d.24xlarge", "us-west-2"),
            Band(before, "p4d.24xlarge", "us-west-2"));
  // The next estimate is costed at the imported band (a new catalog generation).
  json estimate = SpotEstimate("p4d.24xlarge", "us-east-1");
  EXPECT_EQ(estimate["cost"]["spot"]["interruption"]["band"], "15-20%");
  // The gpuplan export carries the bands, and importing it reproduces them.
  json exported = server_->Get("/api/v1/catalog/export?format=json").body;
  ASSERT_TRUE(exported["spot_bands"].is_array());
  TestServer fresh;
  std::string admin = CreateApiKey(fresh, "ops", "admin");
  auto imported = fresh.Send("POST", "/api/v1/catalog/import?format=gpuplan", exported.dump(),
                             "application/json", {{"Authorization", "Bearer " + admin}});
  ASSERT_EQ(imported.status, 201) << imported.body.dump();
  EXPECT_EQ(imported.body["spot_bands"], exported["spot_bands"].size());
  auto listed = fresh.Get("/api/v1/instances/aws/p4d.24xlarge");
  ASSERT_EQ(listed.status, 200);
  for (const json& region : listed.body["regions"]) {
    if (region["region"] == "us-east-1") {
      EXPECT_EQ(region["spot_interruption"], band);
    }
  }
  json again = fresh.Get("/api/v1/catalog/export?format=json").body;
  EXPECT_EQ(again["spot_bands"], exported["spot_bands"]);
}

TEST_F(SpotBandsApiTest, BadAdvisorDocumentsAre4xxNamingTheFieldAndWriteNothing) {
  auto before = AwsSpotOffers();
  auto pointer_of = [](const TestServer::Reply& r) {
    return r.body.contains("errors") && !r.body["errors"].empty()
               ? r.body["errors"][0]["pointer"].get<std::string>()
               : std::string();
  };
  auto not_json = Import("format=aws-spot-advisor", "{not json");
  // As every import format answers a body that is not JSON: 422 naming the body.
  EXPECT_EQ(not_json.status, 422) << not_json.body.dump();
  EXPECT_EQ(not_json.content_type, "application/problem+json");
  EXPECT_EQ(not_json.body["errors"][0]["parameter"], "body") << not_json.body.dump();
  json no_ranges = {{"spot_advisor", json::object()}};
  auto r1 = Import("format=aws-spot-advisor", no_ranges.dump());
  EXPECT_EQ(r1.status, 422) << r1.body.dump();
  EXPECT_EQ(pointer_of(r1), "/ranges") << r1.body.dump();
  json bad_label = {{"ranges", {{{"index", 0}, {"label", "rarely"}}}},
                    {"spot_advisor", json::object()}};
  auto r2 = Import("format=aws-spot-advisor", bad_label.dump());
  EXPECT_EQ(r2.status, 422) << r2.body.dump();
  EXPECT_EQ(pointer_of(r2), "/ranges/0/label") << r2.body.dump();
  json no_advisor = {{"ranges", {{{"index", 0}, {"label", "<5%"}}}}};
  auto r3 = Import("format=aws-spot-advisor", no_advisor.dump());
  EXPECT_EQ(r3.status, 422) << r3.body.dump();
  EXPECT_EQ(pointer_of(r3), "/spot_advisor") << r3.body.dump();
  json bad_entry = {{"ranges", {{{"index", 0}, {"label", "<5%"}}}},
                    {"spot_advisor",
                     {{"us-east-1", {{"Linux", {{"p4d.24xlarge", {{"s", 70}, {"r", 0}}},
                                                {"g5.48xlarge", {{"s", 70}, {"r", 7}}}}}}}}}};
  auto r4 = Import("format=aws-spot-advisor", bad_entry.dump());
  EXPECT_EQ(r4.status, 422) << r4.body.dump();
  EXPECT_NE(r4.body.dump().find("/spot_advisor/us-east-1/Linux/g5.48xlarge/r"), std::string::npos)
      << r4.body.dump();
  // Nothing was written: not even the valid entry of the refused document.
  EXPECT_EQ(Band(AwsSpotOffers(), "p4d.24xlarge", "us-east-1"),
            Band(before, "p4d.24xlarge", "us-east-1"));
}

}  // namespace
}  // namespace gpuplan::api
