// The data-error rules of the SkyPilot importer (issue 27, db/skypilot_parser.h), one test
// per rule, on rows shaped like the ones db/seed/skypilot_catalog.md lists as errors.
#include <gtest/gtest.h>

#include "db/gpu_info.h"
#include "db/location_region.h"
#include "db/skypilot_parser.h"

namespace gpuplan::db {
namespace {

GpuResolver Resolver() {
  GpuResolver r;
  auto add = [&](const char* id, double memory_gb, const char* form) {
    model::GpuSpec g;
    g.id = id;
    g.memory_gb = memory_gb;
    g.bf16_tflops = 100;
    g.form_factor = form;
    r.AddGpu(g);
  };
  add("L4", 24, "PCIe");
  add("H100-80GB-SXM5", 80, "SXM5");
  add("H200-141GB-SXM", 141, "SXM");
  add("B200-180GB-SXM", 180, "SXM");
  add("RTX-A6000", 48, "PCIe");
  add("RTX-3060-12GB", 12, "PCIe");
  r.AddSynonym({"*", "H100", "H100-80GB-SXM5", ""});
  r.AddSynonym({"*", "H200", "H200-141GB-SXM", ""});
  r.AddSynonym({"*", "B200", "B200-180GB-SXM", ""});
  r.AddSynonym({"*", "A6000", "RTX-A6000", ""});
  r.AddSynonym({"*", "RTX3060", "RTX-3060-12GB", ""});
  return r;
}

CatalogBatch Parse(const std::string& csv, const std::string& cloud,
                   const GcpAttachRules* attach = nullptr,
                   const PublishedSizes* sizes = nullptr) {
  auto table = ParseCsv(csv);
  EXPECT_TRUE(table.ok());
  SkypilotOptions options{cloud, "2026-01-01", "test", "USD", attach, sizes};
  auto batch = ParseSkypilotCatalog(*table, options, Resolver());
  EXPECT_TRUE(batch.ok()) << batch.error().message;
  return std::move(batch).value();
}

int CountPrices(const CatalogBatch& b, const std::string& type, const std::string& kind) {
  int n = 0;
  for (const auto& p : b.prices) n += p.instance_type == type && p.kind == kind;
  return n;
}

const char* kAws =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone,Arch\n";
const char* kGcp =
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
    "AvailabilityZone,Price,SpotPrice\n";
const char* kVast =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region\n";
const char* kLambda =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
    "SpotPrice\n";

// AWS p5e.48xlarge: Price empty in every row, SpotPrice present in some.
TEST(SkypilotDataRulesTest, NoOnDemandPriceIsASpotOnlyOfferNotAFreeOne) {
  auto b = Parse(std::string(kAws) +
                     "p5e.48xlarge,H200,8,192,2048,,,25.5,us-east-2,use2-az1,x86_64\n"
                     "p5e.48xlarge,H200,8,192,2048,,,,us-east-2,use2-az2,x86_64\n",
                 "aws");
  EXPECT_EQ(CountPrices(b, "p5e.48xlarge", "ondemand"), 0);
  EXPECT_EQ(CountPrices(b, "p5e.48xlarge", "spot"), 1);
  for (const auto& p : b.prices) EXPECT_GT(p.price_per_hour, 0);
  EXPECT_EQ(b.report.skipped_by_reason["no on-demand or spot price (empty or 0.0)"], 1);
}

// AWS g6f / gr6f: AcceleratorCount 0.125..0.5 of an L4.
TEST(SkypilotDataRulesTest, FractionalGpuIsSkippedWithItsReason) {
  auto b = Parse(std::string(kAws) +
                     "g6f.large,L4,0.125,2,8,,0.2,0.1,us-east-1,use1-az1,x86_64\n"
                     "g6f.2xlarge,L4,0.25,8,32,,0.5,0.2,us-east-1,use1-az1,x86_64\n",
                 "aws");
  EXPECT_TRUE(b.instance_types.empty());
  EXPECT_EQ(b.report.rows_skipped, 2);
  EXPECT_EQ(b.report.skipped_by_reason
                ["fractional GPU count (a GPU partition such as AWS g6f/gr6f): not modelled"],
            2);
}

// GCP a4-highgpu-8g: host Price and SpotPrice 0.0. The B200 bundle alone is not its price.
TEST(SkypilotDataRulesTest, ZeroPriceIsMissingNotFree) {
  GcpAttachRules rules;
  rules.machine_gpus["a4-highgpu-8g"] = {"B200", 8};
  auto b = Parse(std::string(kGcp) +
                     "a4-highgpu-8g,224,3968,,,,us-central1,us-central1-b,0.0,0.0\n"
                     ",,,B200,8,,us-central1,us-central1-b,80.0,30.0\n",
                 "gcp", &rules);
  EXPECT_TRUE(b.prices.empty());
  EXPECT_TRUE(b.instance_types.empty());
  EXPECT_EQ(b.report.rows_rejected, 0);
  EXPECT_EQ(b.report.corrected_by_reason["price 0.0 read as missing, not free"], 2);
  EXPECT_EQ(b.report.skipped_by_reason["no on-demand or spot price (empty or 0.0)"], 1);
}

// Vast: SpotPrice "0.00" on every row is a placeholder, as are 32 vCPUs / 64 GiB.
TEST(SkypilotDataRulesTest, VastPlaceholderSpotAndSizeAreNotUsed) {
  auto b = Parse(std::string(kVast) +
                     "1x-H200-32-65536,H200,1,32,64.0,\"{'Gpus': [{'Name': 'H200', 'Count': 1, "
                     "'MemoryInfo': {'SizeInMiB': 143771}}], 'TotalGpuMemoryInMiB': 143771}\","
                     "2.65,0.00,\"France, FR, EU\"\n",
                 "vast");
  ASSERT_EQ(b.instance_types.size(), 1u);
  EXPECT_FALSE(b.instance_types[0].vcpus.has_value());
  EXPECT_FALSE(b.instance_types[0].memory_gib.has_value());
  EXPECT_EQ(CountPrices(b, "1x-H200-32-65536", "spot"), 0);
  EXPECT_EQ(CountPrices(b, "1x-H200-32-65536", "ondemand"), 1);
}

// Vast: a region is a location "State, CC, CONT"; it becomes a region with its metadata.
TEST(SkypilotDataRulesTest, VastLocationBecomesARegionWithCountryAndContinent) {
  auto b = Parse(std::string(kVast) +
                     "1x-H200-32-65536,H200,1,32,64.0,,2.65,,\"Texas, US, NA\"\n"
                     "2x-H200-32-65536,H200,2,32,64.0,,5.3,,\", US, NA\"\n",
                 "vast");
  ASSERT_EQ(b.report.rows_rejected, 0);
  ASSERT_EQ(b.regions.size(), 2u);
  EXPECT_EQ(b.regions[0].id, "us");
  EXPECT_EQ(b.regions[1].id, "us-texas");
  EXPECT_EQ(b.regions[1].display_name, "Texas, US");
  EXPECT_EQ(b.regions[1].country, "US");
  EXPECT_EQ(b.regions[1].continent, "North America");
  auto accented = LocationRegion("vast", "Bács-Kiskun, HU, EU");
  ASSERT_TRUE(accented.has_value());
  EXPECT_EQ(accented->id, "hu-bacs-kiskun");
  EXPECT_FALSE(LocationRegion("vast", "us-east-1").has_value());
}

// Azure v6 lists Standard_ND96isr_H100_v5 with 12 GPUs; its published size is 8.
TEST(SkypilotDataRulesTest, GpuCountContradictingThePublishedSizeIsCorrected) {
  PublishedSizes sizes;
  sizes[{"azure", "Standard_ND96isr_H100_v5"}] = {"H100-80GB-SXM5", 8, "Microsoft Learn"};
  auto b = Parse("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
                 "SpotPrice,Region,Generation\n"
                 "Standard_ND96isr_H100_v5,H100,12,96,1900,H100,98.32,,eastus,V2\n",
                 "azure", nullptr, &sizes);
  ASSERT_EQ(b.instance_types.size(), 1u);
  EXPECT_EQ(b.instance_types[0].gpu_count, 8);
  ASSERT_EQ(b.report.corrected_by_reason.size(), 1u);
  EXPECT_NE(b.report.corrected_by_reason.begin()->first.find("12 -> 8"), std::string::npos);
}

// Lambda (and OCI) list every type at one price in every region.
TEST(SkypilotDataRulesTest, OnePriceInEveryRegionIsACloudWidePriceScope) {
  std::string rows = std::string(kLambda) +
                     "gpu_1x_h100_sxm5,H100,1.0,26,200,2.49,us-east-1,,\n"
                     "gpu_1x_h100_sxm5,H100,1.0,26,200,2.49,europe-central-1,,\n"
                     "gpu_8x_b200_sxm6,B200,8.0,208,2900,39.92,us-east-1,,\n"
                     "gpu_8x_b200_sxm6,B200,8.0,208,2900,39.92,europe-central-1,,\n";
  EXPECT_EQ(Parse(rows, "lambda").price_scopes.at("lambda"), "cloud");
  auto regional = Parse(rows + "gpu_8x_b200_sxm6,B200,8.0,208,2900,41.0,asia-south-1,,\n",
                        "lambda");
  EXPECT_EQ(regional.price_scopes.at("lambda"), "region");
}

// Shadeform writes GB in SizeInMiB; Lambda's total repeats the per-GPU figure; Vast's
// SizeInMiB is the total over the row's GPUs. All read as the same per-GPU GiB.
TEST(SkypilotDataRulesTest, GpuInfoMemoryIsNormalisedPerGpu) {
  EXPECT_NEAR(*GpuInfoMemoryPerGpuGib("{'Gpus': [{'MemoryInfo': {'SizeInMiB': 48}, "
                                      "'TotalGpuMemoryInMiB': 384}]}", 8, 48),
              48, 1e-9);  // Shadeform A6000x8
  EXPECT_NEAR(*GpuInfoMemoryPerGpuGib("{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}], "
                                      "'TotalGpuMemoryInMiB': 40960}", 8, 40),
              40, 1e-9);  // Lambda gpu_8x_a100
  EXPECT_NEAR(*GpuInfoMemoryPerGpuGib("{'Gpus': [{'MemoryInfo': {'SizeInMiB': 287542}}]}", 2,
                                      141),
              140.4, 0.1);  // Vast 2x-H200
  EXPECT_FALSE(GpuInfoMemoryPerGpuGib("H100", 8, 80).has_value());  // Azure: a name only
  // A Shadeform row in GB resolves and is kept; a card whose memory is not the GPU's is not.
  auto b = Parse(std::string(kLambda) +
                     "massedcompute_A6000x8,A6000,8.0,62.0,384,4.56,kansascity-usa-1,\"{'Gpus': "
                     "[{'Name': 'A6000', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 48}, "
                     "'TotalGpuMemoryInMiB': 384}]}\",\n"
                     "2x-RTX_3060_Ti,RTX3060,2,8,16,0.1,us-east-1,\"{'Gpus': [{'MemoryInfo': "
                     "{'SizeInMiB': 16384}}]}\",\n",
                 "shadeform");
  ASSERT_EQ(b.instance_types.size(), 1u);
  EXPECT_EQ(b.instance_types[0].gpu_id, "RTX-A6000");
  EXPECT_EQ(b.report.skipped_by_reason
                ["GpuInfo memory contradicts the GPU the name resolves to: RTX3060 -> "
                 "RTX-3060-12GB"],
            1);
}

// GCP spot above on-demand stays and is counted, also when it is the GPU part's own and the
// composed offer's host discount hides it (the offer's own flag: CatalogCoverageApiTest).
TEST(SkypilotDataRulesTest, GcpSpotAboveOnDemandIsCountedAndKept) {
  GcpAttachRules rules;
  rules.machine_gpus["a3-ultragpu-8g"] = {"H200", 8};
  auto composed_above = Parse(std::string(kGcp) +
                                  "a3-ultragpu-8g,224,2952,,,,us-south1,us-south1-b,10.0,4.0\n"
                                  ",,,H200,8,,us-south1,us-south1-b,36.60258,43.9512\n",
                              "gcp", &rules);
  EXPECT_EQ(composed_above.report.spot_above_ondemand, 2);  // the GPU part and the offer
  EXPECT_EQ(CountPrices(composed_above, "a3-ultragpu-8g", "spot"), 1);
  auto part_above = Parse(std::string(kGcp) +
                              "a3-ultragpu-8g,224,2952,,,,us-south1,us-south1-b,30.0,4.0\n"
                              ",,,H200,8,,us-south1,us-south1-b,36.60258,43.9512\n",
                          "gcp", &rules);
  EXPECT_EQ(part_above.report.spot_above_ondemand, 1);
}

}  // namespace
}  // namespace gpuplan::db
