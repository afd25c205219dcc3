#include "db/seeder.h"

#include <gtest/gtest.h>

#include <limits>

#include "db/catalog_store.h"
#include "db/csv.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seed_files.h"
#include "db/sql.h"
#include "db/text.h"

namespace gpuplan::db {
namespace {

// Expected values are computed from the embedded seed files themselves, so the tests keep
// holding when the seed is refreshed.
CsvTable SeedCsv(std::string_view name) {
  for (const auto& f : SeedFiles()) {
    if (f.name == name) return std::move(ParseCsv(f.content)).value();
  }
  ADD_FAILURE() << name << " not embedded";
  return CsvTable({}, {});
}

class SeederTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto db = OpenDatabase(":memory:");
    ASSERT_TRUE(db.ok());
    db_ = std::move(db).value().release();
    ASSERT_TRUE(Migrate(*db_).ok());
    auto report = SeedIfEmpty(*db_);
    ASSERT_TRUE(report.ok()) << report.error().message;
    report_ = new SeedReport(std::move(report).value());
  }
  static void TearDownTestSuite() {
    delete db_;
    delete report_;
  }
  static int Count(const std::string& sql) { return db_->execAndGet(sql).getInt(); }

  static gpuplan::db::Connection* db_;
  static SeedReport* report_;
};
gpuplan::db::Connection* SeederTest::db_ = nullptr;
SeedReport* SeederTest::report_ = nullptr;

TEST_F(SeederTest, LoadsEveryGpuRow) {
  EXPECT_TRUE(report_->seeded);
  EXPECT_EQ(report_->gpus, static_cast<int>(SeedCsv("gpus.csv").rows().size()));
  EXPECT_EQ(Count("SELECT COUNT(*) FROM gpus"), report_->gpus);
  CatalogStore store(*db_);
  auto h100 = store.GetGpu("H100-80GB-SXM5");
  ASSERT_TRUE(h100.ok());
  EXPECT_DOUBLE_EQ(h100->memory_gb, 80);
  EXPECT_DOUBLE_EQ(h100->memory_bw_gbps, 3350);
  EXPECT_DOUBLE_EQ(h100->bf16_tflops, 989.5);
  EXPECT_DOUBLE_EQ(h100->nvlink_bw_gbps, 900);
}

// gpus.csv's launch_price_usd: a list price where one is published, none ("" or "n/a") else.
TEST_F(SeederTest, LoadsTheLaunchPriceWherePublished) {
  CatalogStore store(*db_);
  for (auto [id, price] : {std::pair{"RTX-4090", 1599.0}, {"RTX-3090", 1499.0}, {"K80", 5000.0}}) {
    auto gpu = store.GetGpu(id);
    ASSERT_TRUE(gpu.ok()) << id;
    ASSERT_TRUE(gpu->launch_price_usd) << id;
    EXPECT_DOUBLE_EQ(*gpu->launch_price_usd, price) << id;
  }
  for (const char* id : {"H100-80GB-SXM5", "TPU-v4"}) {
    auto gpu = store.GetGpu(id);
    ASSERT_TRUE(gpu.ok()) << id;
    EXPECT_FALSE(gpu->launch_price_usd) << id;
  }
  // K80, A30, RTX-A6000, RTX-3060-12GB, RTX-3090, RTX-4090, Quadro-RTX-8000, Titan-RTX,
  // RTX-2080Ti, RTX-3080.
  EXPECT_EQ(Count("SELECT COUNT(*) FROM gpus WHERE launch_price_usd IS NOT NULL"), 10);
}

TEST_F(SeederTest, SeedsEveryCloudAndRejectsNoRow) {
  for (const char* cloud : {"aws", "gcp", "alibaba", "huawei"}) {
    EXPECT_GT(Count(std::string("SELECT COUNT(*) FROM instance_types WHERE cloud = '") + cloud +
                    "'"),
              0)
        << cloud;
  }
  for (const auto& f : report_->files) {
    EXPECT_EQ(f.report.rows_rejected, 0) << f.file;
    EXPECT_EQ(f.report.rows_used + f.report.rows_skipped, f.report.rows_read) << f.file;
  }
  EXPECT_EQ(Count("SELECT COUNT(*) FROM imports WHERE actor = 'seed'"),
            static_cast<int>(report_->files.size()));
}

TEST_F(SeederTest, SkipsAcceleratorsThatAreNotKnownGpusAndCountsThem) {
  const auto& aws = report_->files.at(0);
  ASSERT_EQ(aws.cloud, "aws");
  int radeon_rows = 0;
  CsvTable csv = SeedCsv("aws_vms_gpu.csv");
  for (const auto& row : csv.rows()) {
    if (CsvTable::Field(row, csv.Column("AcceleratorName")) == "Radeon Pro V520") ++radeon_rows;
  }
  ASSERT_GT(radeon_rows, 0);
  EXPECT_EQ(aws.report.skipped_by_reason.at("not a supported GPU: Radeon Pro V520"), radeon_rows);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM instance_types WHERE id LIKE 'g4ad.%'"), 0);
}

TEST_F(SeederTest, AwsSpotIsTheCheapestZoneAndOnDemandTheRegionPrice) {
  CsvTable csv = SeedCsv("aws_vms_gpu.csv");
  double cheapest = std::numeric_limits<double>::infinity(), ondemand = 0;
  std::string zone;
  for (const auto& row : csv.rows()) {
    auto f = [&](const char* c) { return std::string(CsvTable::Field(row, csv.Column(c))); };
    if (f("InstanceType") != "p4d.24xlarge" || f("Region") != "us-east-1") continue;
    ondemand = *ParseDouble(f("Price"));
    if (auto spot = ParseDouble(f("SpotPrice")); spot && *spot < cheapest) {
      cheapest = *spot;
      zone = f("AvailabilityZone");
    }
  }
  ASSERT_FALSE(zone.empty());
  OfferFilter filter;
  filter.cloud = "aws";
  filter.region = "us-east-1";
  filter.instance_type = "p4d.24xlarge";
  auto offers = CatalogStore(*db_).ListOffers(filter);
  ASSERT_TRUE(offers.ok());
  ASSERT_EQ(offers->size(), 1u);
  const Offer& o = offers->front();
  EXPECT_DOUBLE_EQ(*o.price_ondemand_per_hour, ondemand);
  EXPECT_DOUBLE_EQ(*o.price_spot_per_hour, cheapest);
  EXPECT_EQ(o.spot_zone, zone);
  EXPECT_EQ(o.currency, "USD");
  EXPECT_EQ(o.instance.gpu_id, "A100-40GB-SXM4");
  EXPECT_EQ(o.instance.gpu_count, 8);
  EXPECT_EQ(o.instance.interconnect, "nvswitch");
  // Every AWS spot price is kept per zone.
  EXPECT_GT(Count("SELECT COUNT(DISTINCT zone) FROM prices WHERE cloud = 'aws' AND "
                  "instance_type = 'p4d.24xlarge' AND region = 'us-east-1' AND kind = 'spot'"),
            1);
}

TEST_F(SeederTest, GcpInstancePriceIsHostPlusGpuOfTheSameZone) {
  CsvTable csv = SeedCsv("gcp_vms_gpu.csv");
  double host = -1, gpu = -1;
  for (const auto& row : csv.rows()) {
    auto f = [&](const char* c) { return std::string(CsvTable::Field(row, csv.Column(c))); };
    if (f("AvailabilityZone") != "us-central1-a") continue;
    if (f("InstanceType") == "a2-highgpu-8g") host = *ParseDouble(f("Price"));
    if (f("InstanceType").empty() && f("AcceleratorName") == "A100" &&
        f("AcceleratorCount") == "8") {
      gpu = *ParseDouble(f("Price"));
    }
  }
  ASSERT_GT(host, 0);
  ASSERT_GT(gpu, 0);
  OfferFilter filter;
  filter.cloud = "gcp";
  filter.region = "us-central1";
  filter.instance_type = "a2-highgpu-8g";
  auto offers = CatalogStore(*db_).ListOffers(filter);
  ASSERT_TRUE(offers.ok());
  ASSERT_EQ(offers->size(), 1u);
  EXPECT_NEAR(*offers->front().price_ondemand_per_hour, host + gpu, 1e-9);
  EXPECT_EQ(offers->front().instance.gpu_count, 8);
}

TEST_F(SeederTest, GcpN1HostsCarryTheirGpuCombinationsInTheName) {
  CatalogStore store(*db_);
  auto found = store.GetInstanceType("gcp", "n1-standard-8+1xT4");
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->first.gpu_id, "T4");
  EXPECT_EQ(found->first.host_instance_type, "n1-standard-8");
  EXPECT_EQ(found->first.vcpus, 8);
  EXPECT_FALSE(found->second.empty());
}

TEST_F(SeederTest, AlibabaPricesStayInYuan) {
  OfferFilter filter;
  filter.cloud = "alibaba";
  filter.region = "cn-hangzhou";
  filter.instance_type = "ecs.gn7i-c8g1.2xlarge";
  auto offers = CatalogStore(*db_).ListOffers(filter);
  ASSERT_TRUE(offers.ok());
  ASSERT_EQ(offers->size(), 1u);
  EXPECT_DOUBLE_EQ(*offers->front().price_ondemand_per_hour, 9.5326);
  EXPECT_EQ(offers->front().currency, "CNY");
  EXPECT_FALSE(offers->front().price_spot_per_hour.has_value());
  EXPECT_EQ(offers->front().instance.gpu_id, "A10");
  // Spec-only rows become instance types without prices.
  EXPECT_EQ(Count("SELECT COUNT(*) FROM instance_types WHERE id = 'ecs.gn6e-c12g1.6xlarge'"), 1);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM prices WHERE instance_type = 'ecs.gn6e-c12g1.6xlarge'"),
            0);
}

TEST_F(SeederTest, SeedingTwiceChangesNothing) {
  int prices = Count("SELECT COUNT(*) FROM prices");
  auto again = SeedIfEmpty(*db_);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->seeded);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM prices"), prices);
}

TEST_F(SeederTest, NoPriceIsZeroOrNegative) {
  EXPECT_EQ(Count("SELECT COUNT(*) FROM prices WHERE price_per_hour <= 0 AND "
                  "NOT (cloud = 'gcp' AND instance_type LIKE 'a4-%')"),
            0);
}

// A catalog seeded by a build before the Kubernetes GPU labels were seed rows (issue 26)
// gets them at the next start, without a new generation when nothing was missing; a GPU's
// label row an operator changed is kept.
TEST(SeederUpgradeTest, ACatalogSeededBeforeTheKubernetesLabelsGetsThem) {
  auto opened = OpenDatabase(":memory:");
  ASSERT_TRUE(opened.ok());
  gpuplan::db::Connection& db = **opened;
  ASSERT_TRUE(Migrate(db).ok());
  ASSERT_TRUE(SeedIfEmpty(db).ok());
  auto count = [&](const std::string& sql) { return db.execAndGet(sql).getInt(); };
  const std::string labels = "SELECT COUNT(*) FROM gpu_synonyms WHERE cloud = 'kubernetes'";
  const int seeded = count(labels);
  ASSERT_GT(seeded, 20);
  auto generation = [&] {
    return db.execAndGet("SELECT value FROM catalog_meta WHERE key = 'generation'").getString();
  };
  // As an older build left it: no label rows, no mark; and one row changed by hand.
  db.exec("DELETE FROM catalog_meta WHERE key = 'kubernetes_labels_seeded_at'");
  db.exec("DELETE FROM gpu_synonyms WHERE cloud = 'kubernetes' AND gpu_id <> 'T4'");
  db.exec("UPDATE gpu_synonyms SET accelerator_name = 'My-T4', note = 'sourced: our nodes' "
          "WHERE cloud = 'kubernetes' AND gpu_id = 'T4'");
  const std::string before = generation();
  auto again = SeedIfEmpty(db);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->seeded);
  // Every seed row back but T4's, whose changed row is kept.
  EXPECT_EQ(count(labels), seeded);
  EXPECT_EQ(count("SELECT COUNT(*) FROM gpu_synonyms WHERE cloud = 'kubernetes' AND "
                  "accelerator_name = 'My-T4'"),
            1);
  EXPECT_EQ(again->kubernetes_labels_added, seeded - 1);
  EXPECT_NE(generation(), before);
  // Once only: a label row the operator deletes now stays deleted.
  db.exec("DELETE FROM gpu_synonyms WHERE cloud = 'kubernetes' AND gpu_id = 'A10G'");
  const std::string after = generation();
  auto third = SeedIfEmpty(db);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->kubernetes_labels_added, 0);
  EXPECT_EQ(count(labels), seeded - 1);
  EXPECT_EQ(generation(), after);
}

// A catalog seeded before the fp4_tflops column (migration 10 adds it as 0 everywhere) gets
// the seed's Blackwell FP4 rates once; a rate an operator set is kept.
TEST(SeederUpgradeTest, ACatalogSeededBeforeFp4RatesGetsThemOnce) {
  auto opened = OpenDatabase(":memory:");
  ASSERT_TRUE(opened.ok());
  gpuplan::db::Connection& db = **opened;
  ASSERT_TRUE(Migrate(db).ok());
  ASSERT_TRUE(SeedIfEmpty(db).ok());
  auto rate = [&](const char* id) {
    Statement s(db, "SELECT fp4_tflops FROM gpus WHERE id = ?");
    s.bind(1, id);
    return s.executeStep() ? s.getColumn(0).getDouble() : -1;
  };
  EXPECT_EQ(rate("B200-180GB-SXM"), 9000);
  EXPECT_EQ(rate("H100-80GB-SXM5"), 0);
  // As an older build left it: no FP4 rates, no mark; and one rate set by hand.
  db.exec("DELETE FROM catalog_meta WHERE key = 'fp4_rates_seeded_at'");
  db.exec("UPDATE gpus SET fp4_tflops = 0");
  db.exec("UPDATE gpus SET fp4_tflops = 7628 WHERE id = 'GB200-186GB'");
  auto again = SeedIfEmpty(db);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->seeded);
  EXPECT_EQ(again->fp4_rates_added, 3);  // B200, B300, GB300
  EXPECT_EQ(rate("B200-180GB-SXM"), 9000);
  EXPECT_EQ(rate("GB300-288GB"), 15000);
  EXPECT_EQ(rate("GB200-186GB"), 7628);
  EXPECT_EQ(rate("H100-80GB-SXM5"), 0);
  // Once only.
  db.exec("UPDATE gpus SET fp4_tflops = 0 WHERE id = 'B200-180GB-SXM'");
  auto third = SeedIfEmpty(db);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->fp4_rates_added, 0);
  EXPECT_EQ(rate("B200-180GB-SXM"), 0);
}

}  // namespace
}  // namespace gpuplan::db
