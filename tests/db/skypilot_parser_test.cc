#include "db/skypilot_parser.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpuplan::db {
namespace {

GpuResolver TestResolver() {
  GpuResolver r;
  model::GpuSpec a100;
  a100.id = "A100-40GB-SXM4";
  a100.memory_gb = 40;
  a100.bf16_tflops = 312;
  a100.nvlink_bw_gbps = 600;
  a100.form_factor = "SXM4";
  r.AddGpu(a100);
  model::GpuSpec t4;
  t4.id = "T4";
  t4.memory_gb = 16;
  t4.fp16_tflops = 65;
  t4.pcie_gen = 3;
  t4.form_factor = "PCIe";
  r.AddGpu(t4);
  r.AddSynonym({"*", "A100", "A100-40GB-SXM4", ""});
  r.AddSynonym({"*", "Radeon", "", "not a GPU we model"});
  return r;
}

const char* kAwsHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n";

CatalogBatch Parse(const std::string& csv, const GcpAttachRules* rules = nullptr,
                   const std::string& cloud = "aws") {
  auto table = ParseCsv(csv);
  EXPECT_TRUE(table.ok());
  SkypilotOptions options{cloud, "2026-01-01", "test", "USD", rules};
  auto batch = ParseSkypilotCatalog(*table, options, TestResolver());
  EXPECT_TRUE(batch.ok()) << batch.error().message;
  return std::move(batch).value();
}

const PriceObservation* FindPrice(const CatalogBatch& b, const std::string& type,
                                  const std::string& kind, const std::string& zone) {
  for (const auto& p : b.prices) {
    if (p.instance_type == type && p.kind == kind && p.zone == zone) return &p;
  }
  return nullptr;
}

TEST(SkypilotParserTest, KeepsRegionalOnDemandAndPerZoneSpot) {
  auto b = Parse(std::string(kAwsHeader) +
                 "p4d.24xlarge,A100,8.0,96.0,1152.0,,32.77,9.5,us-east-1,use1-az1\n"
                 "p4d.24xlarge,A100,8.0,96.0,1152.0,,32.77,6.5,us-east-1,use1-az2\n"
                 "p4d.24xlarge,A100,8.0,96.0,1152.0,,32.77,,us-east-1,use1-az3\n");
  ASSERT_EQ(b.instance_types.size(), 1u);
  const InstanceType& t = b.instance_types[0];
  EXPECT_EQ(t.gpu_id, "A100-40GB-SXM4");
  EXPECT_EQ(t.gpu_count, 8);
  EXPECT_EQ(t.interconnect, "nvswitch");  // derived: SXM part with NVLink, 8 GPUs
  EXPECT_DOUBLE_EQ(t.interconnect_bw_gbps, 600);
  ASSERT_NE(FindPrice(b, "p4d.24xlarge", "ondemand", ""), nullptr);
  EXPECT_DOUBLE_EQ(FindPrice(b, "p4d.24xlarge", "ondemand", "")->price_per_hour, 32.77);
  EXPECT_DOUBLE_EQ(FindPrice(b, "p4d.24xlarge", "spot", "use1-az2")->price_per_hour, 6.5);
  // An empty SpotPrice is "not offered", never a zero price.
  EXPECT_EQ(FindPrice(b, "p4d.24xlarge", "spot", "use1-az3"), nullptr);
  EXPECT_EQ(b.report.rows_used, 3);
}

TEST(SkypilotParserTest, SkipsUnknownAndUnsupportedAcceleratorsAndCountsThem) {
  auto b = Parse(std::string(kAwsHeader) +
                 "f1.2xlarge,Virtex UltraScale+ (VU9P),1.0,8,122,,1.65,0.5,us-east-1,use1-az1\n"
                 "g4ad.xlarge,Radeon,1.0,4,16,,0.38,0.1,us-east-1,use1-az1\n"
                 "g6f.xlarge,T4,0.25,4,16,,0.2,0.1,us-east-1,use1-az1\n");
  EXPECT_TRUE(b.instance_types.empty());
  EXPECT_EQ(b.report.rows_skipped, 3);
  EXPECT_EQ(b.report.skipped_by_reason["unknown accelerator: Virtex UltraScale+ (VU9P)"], 1);
  EXPECT_EQ(b.report.skipped_by_reason["not a supported GPU: Radeon"], 1);
  EXPECT_EQ(b.report.skipped_by_reason["fractional GPU count (a GPU partition such as AWS g6f/gr6f): not modelled"], 1);
}

TEST(SkypilotParserTest, RejectsMalformedRowsWithTheirLines) {
  auto b = Parse(std::string(kAwsHeader) +
                 "p4d.24xlarge,A100,8.0,96,1152,,abc,1,us-east-1,use1-az1\n"
                 "p4d.24xlarge,A100,8.0,96,1152,,-3,1,us-east-1,use1-az1\n"
                 "p4d.24xlarge,A100,8.0,96,1152,,3,1,,use1-az1\n"
                 "p4d.24xlarge,A100,eight,96,1152,,3,1,us-east-1,use1-az1\n");
  ASSERT_EQ(b.report.rows_rejected, 4);
  EXPECT_EQ(b.report.rejected[0].line, 2);
  EXPECT_NE(b.report.rejected[0].reason.find("Price"), std::string::npos);
  EXPECT_EQ(b.report.rejected[1].line, 3);
  EXPECT_EQ(b.report.rejected[2].line, 4);
  EXPECT_NE(b.report.rejected[2].reason.find("Region"), std::string::npos);
  EXPECT_NE(b.report.rejected[3].reason.find("AcceleratorCount"), std::string::npos);
}

TEST(SkypilotParserTest, CountsSpotAboveOnDemandButKeepsIt) {
  auto b = Parse(std::string(kAwsHeader) +
                 "p4d.24xlarge,A100,8.0,96,1152,,10,12,us-east-1,use1-az1\n");
  EXPECT_EQ(b.report.spot_above_ondemand, 1);
  EXPECT_NE(FindPrice(b, "p4d.24xlarge", "spot", "use1-az1"), nullptr);
}

TEST(SkypilotParserTest, MissingColumnIsAnErrorNamingIt) {
  auto table = ParseCsv("InstanceType,AcceleratorName,Price\nx,A100,1\n");
  ASSERT_TRUE(table.ok());
  auto batch = ParseSkypilotCatalog(*table, SkypilotOptions{"aws", "2026-01-01", "test"}, TestResolver());
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.error().fields.at(0).field, "AcceleratorCount");
}

TEST(SkypilotParserTest, ComposesGcpHostAndGpuPricesPerZone) {
  GcpAttachRules rules;
  rules.machine_gpus["a2-highgpu-8g"] = {"A100", 8};
  rules.n1_hosts.insert({{"T4", 1}, "n1-standard-8"});
  const char* csv =
      "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
      "AvailabilityZone,Price,SpotPrice\n"
      "a2-highgpu-8g,96,680,,,,us-central1,us-central1-a,5.9,2.0\n"
      ",,,A100,8,,us-central1,us-central1-a,23.4,10.0\n"
      "a2-highgpu-8g,96,680,,,,us-central1,us-central1-b,5.9,2.5\n"
      "n1-standard-8,8,30,,,,us-central1,us-central1-a,0.38,0.08\n"
      "n1-standard-1,1,3.75,,,,us-central1,us-central1-a,0.05,0.01\n"
      ",,,T4,1,,us-central1,us-central1-a,0.35,\n";
  auto b = Parse(csv, &rules, "gcp");
  auto od = FindPrice(b, "a2-highgpu-8g", "ondemand", "");
  ASSERT_NE(od, nullptr);
  EXPECT_NEAR(od->price_per_hour, 5.9 + 23.4, 1e-9);
  auto spot = FindPrice(b, "a2-highgpu-8g", "spot", "us-central1-a");
  ASSERT_NE(spot, nullptr);
  EXPECT_NEAR(spot->price_per_hour, 12.0, 1e-9);
  // Zone b has no A100 bundle row: no offer there.
  EXPECT_EQ(FindPrice(b, "a2-highgpu-8g", "spot", "us-central1-b"), nullptr);

  const std::string n1 = AttachedOfferName("n1-standard-8", 1, "T4");
  EXPECT_EQ(n1, "n1-standard-8+1xT4");
  auto n1_od = FindPrice(b, n1, "ondemand", "");
  ASSERT_NE(n1_od, nullptr);
  EXPECT_NEAR(n1_od->price_per_hour, 0.38 + 0.35, 1e-9);
  // The T4 bundle has no spot price, so the combination has none either.
  EXPECT_EQ(FindPrice(b, n1, "spot", "us-central1-a"), nullptr);
  auto type = std::find_if(b.instance_types.begin(), b.instance_types.end(),
                           [&](const InstanceType& t) { return t.id == n1; });
  ASSERT_NE(type, b.instance_types.end());
  EXPECT_EQ(type->host_instance_type, "n1-standard-8");
  EXPECT_EQ(type->gpu_id, "T4");
  EXPECT_EQ(type->vcpus, 8);
  // The unused hosts (zone b's a2 and n1-standard-1) are skipped and counted.
  EXPECT_EQ(b.report.skipped_by_reason["host VM with no GPU combination"], 2);
}

}  // namespace
}  // namespace gpuplan::db
