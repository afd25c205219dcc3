// An offer as the listing writes it (api::WriteOffer) and as a tree (OfferJson, which the CSV,
// the CLI and the instance page read): every member with its JSON type, empty values as null,
// and text that is not valid UTF-8 written with replacement characters instead of failing.
#include "api/catalog_json.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "api/catalog_export_writer.h"
#include "api/json_writer.h"

namespace gpuplan::api {
namespace {

db::Offer BareOffer() {
  db::Offer o;
  o.instance.cloud = "aws";
  o.instance.id = "p4d.24xlarge";
  o.instance.gpu_id = "A100-40GB-SXM4";
  o.instance.gpu_count = 8;
  o.instance.interconnect = "nvswitch";
  o.instance.interconnect_bw_gbps = 600;
  o.instance.arch = "x86_64";
  o.region = "us-east-1";
  o.gpu_memory_gb = 40;
  o.currency = "USD";
  o.observed_at = "2026-11-01T00:00:00Z";
  o.source = "test";
  return o;
}

TEST(CatalogJsonTest, AnOfferWithoutOptionalValuesHasNullsOfTheRightMembers) {
  const nlohmann::json j = OfferJson(BareOffer(), 0);
  for (const char* key : {"vcpus", "memory_gib", "network_gbps", "host_instance_type",
                          "price_ondemand_per_hour", "price_spot_per_hour", "spot_zone",
                          "price_per_gpu_hour", "price_spot_per_gpu_hour", "spot_interruption"}) {
    ASSERT_TRUE(j.contains(key)) << key;
    EXPECT_TRUE(j[key].is_null()) << key << ": " << j[key].dump();
  }
  EXPECT_TRUE(j["gpu_count"].is_number_integer());
  EXPECT_EQ(j["gpu_count"], 8);
  EXPECT_DOUBLE_EQ(j["total_gpu_memory_gb"].get<double>(), 320);
  EXPECT_EQ(j["instance_type"], "p4d.24xlarge");
  EXPECT_EQ(j["spot_above_ondemand"], false);
  EXPECT_TRUE(j["stale"].is_boolean());
  EXPECT_EQ(j.size(), 27u);  // every member, each once
}

TEST(CatalogJsonTest, PricesAreRoundedAndTheSpotBandIsAnObject) {
  db::Offer o = BareOffer();
  o.price_ondemand_per_hour = 32.77261234;
  o.price_spot_per_hour = 9.5;
  o.spot_zone = "us-east-1a";
  o.instance.vcpus = 96;
  auto band = std::make_shared<db::SpotBand>();
  band->band = 1;
  band->label = "5-10%";
  band->low_fraction = 0.05;
  band->high_fraction = 0.10;
  o.spot_band = band;
  const nlohmann::json j = OfferJson(o, 0);
  EXPECT_DOUBLE_EQ(j["price_ondemand_per_hour"].get<double>(), RoundMoney(32.77261234));
  EXPECT_DOUBLE_EQ(j["price_spot_per_gpu_hour"].get<double>(), RoundMoney(9.5 / 8));
  EXPECT_EQ(j["spot_zone"], "us-east-1a");
  EXPECT_DOUBLE_EQ(j["vcpus"].get<double>(), 96);
  ASSERT_TRUE(j["spot_interruption"].is_object());
  EXPECT_EQ(j["spot_interruption"]["band_index"], 1);
  EXPECT_TRUE(j["spot_interruption"]["savings_percent"].is_null());
  EXPECT_GT(j["spot_interruption"]["rate_per_hour"].get<double>(), 0);
}

// A CSV row holds each named member as the JSON item has it: text through CsvTextCell,
// numbers and booleans as JSON spells them, null and objects empty.
TEST(CatalogJsonTest, ACsvRowHoldsTheItemsMembersByName) {
  static constexpr const char* kColumns[] = {"cloud", "gpu_count", "vcpus", "total_gpu_memory_gb",
                                             "price_ondemand_per_hour", "spot_zone", "stale",
                                             "source", "spot_interruption"};
  db::Offer o = BareOffer();
  o.price_ondemand_per_hour = 32.77261234;
  o.source = "=HYPERLINK(\"x\")";  // a formula: CsvTextCell quotes it
  auto band = std::make_shared<db::SpotBand>();
  band->source = "nested";
  o.spot_band = band;
  std::string row;
  AppendOfferCsvRow(row, kColumns, o, 0);
  const nlohmann::json item = OfferJson(o, 0);
  std::string expected;
  for (const char* column : kColumns) {
    if (!expected.empty() || column != kColumns[0]) expected += ',';
    const nlohmann::json& v = item[column];
    if (v.is_null() || v.is_object()) continue;
    expected += v.is_string() ? CsvTextCell(v.get<std::string>()) : v.dump();
  }
  EXPECT_EQ(row, expected);
  EXPECT_EQ(row, "aws,8,,320.0," + nlohmann::json(RoundMoney(32.77261234)).dump() + ",,false," +
                     CsvTextCell(o.source) + ",");
}

TEST(CatalogJsonTest, TextThatIsNotUtf8IsReplacedNotAnError) {
  db::Offer o = BareOffer();
  o.source = std::string("feed \xff\xfe end");
  o.region = std::string("us-\x01-1");
  JsonWriter out;
  WriteOffer(out, o, 0);
  const std::string text = out.Take();
  nlohmann::json parsed;
  ASSERT_NO_THROW(parsed = nlohmann::json::parse(text)) << text;
  EXPECT_EQ(parsed["source"], "feed \xEF\xBF\xBD\xEF\xBF\xBD end");
  EXPECT_EQ(parsed["region"], std::string("us-\x01-1"));
  EXPECT_NO_THROW(OfferJson(o, 0).dump());
}

}  // namespace
}  // namespace gpuplan::api
