// The rows of an upstream SkyPilot file that a refresh parses (db/catalog_refresh.h).
#include "db/catalog_refresh.h"

#include <gtest/gtest.h>

#include "db/seeder.h"

namespace gpuplan::db {
namespace {

std::vector<std::string> Kept(const CsvTable& table) {
  std::vector<std::string> out;
  for (const CsvRow& row : table.rows()) {
    out.push_back(std::to_string(row.line) + ":" + std::string(CsvTable::Field(row, table.Column("InstanceType"))) +
                  "/" + std::string(CsvTable::Field(row, table.Column("AcceleratorName"))));
  }
  return out;
}

TEST(SkypilotGpuRowsTest, KeepsGpuRowsAndTheHostsGcpAttachesGpusTo) {
  auto table = ParseCsv(
      "InstanceType,AcceleratorName,AcceleratorCount,Region,Price,SpotPrice\n"
      "a2-highgpu-1g,,,us-central1,0.7,0.3\n"   // line 2: GCP machine that carries an A100
      "e2-standard-4,,,us-central1,0.1,0.05\n"  // line 3: no GPU
      ",A100,1,us-central1,2.9,1.5\n"           // line 4: a GPU bundle
      "n1-standard-8,,,us-central1,0.38,0.1\n"  // line 5: an N1 host of T4/V100 bundles
      "g5.xlarge,A10G,1,us-east-1,1.0,0.4\n");  // line 6
  ASSERT_TRUE(table.ok());
  auto rules = LoadGcpAttachRules();
  ASSERT_TRUE(rules.ok());
  ASSERT_TRUE(rules->machine_gpus.count("a2-highgpu-1g"));

  int left_out = -1;
  CsvTable gcp = SkypilotGpuRows(*table, &*rules, left_out);
  EXPECT_EQ(Kept(gcp), (std::vector<std::string>{"2:a2-highgpu-1g/", "4:/A100", "5:n1-standard-8/",
                                                 "6:g5.xlarge/A10G"}));
  EXPECT_EQ(left_out, 1);

  CsvTable other = SkypilotGpuRows(*table, nullptr, left_out);  // not GCP: hosts make nothing
  EXPECT_EQ(Kept(other), (std::vector<std::string>{"4:/A100", "6:g5.xlarge/A10G"}));
  EXPECT_EQ(left_out, 3);
  EXPECT_EQ(other.header(), table->header());
}

TEST(SkypilotGpuRowsTest, ATableWithoutTheAcceleratorColumnIsLeftWhole) {
  auto table = ParseCsv("InstanceType,Region\nx,us-east-1\n");
  ASSERT_TRUE(table.ok());
  int left_out = -1;
  EXPECT_EQ(SkypilotGpuRows(*table, nullptr, left_out).rows().size(), 1u);
  EXPECT_EQ(left_out, 0);
}

}  // namespace
}  // namespace gpuplan::db
