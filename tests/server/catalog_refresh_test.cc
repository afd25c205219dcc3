// `gpuplan catalog refresh`: SkyPilot catalogs of several clouds in one transaction, from a
// directory or over HTTP, with a report of what changed; a bad file changes nothing.
#include "server/catalog_refresh_command.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <thread>

#include "db/sqlite_connection.h"
#include "server/admin_commands.h"
#include "tests/testing/seeded_template.h"
#include "tests/testing/temp_dir.h"

namespace gpuplan::server {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kAwsHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n";
constexpr const char* kA10GInfo =
    "\"{'Gpus': [{'Name': 'A10G', 'Manufacturer': 'NVIDIA', 'Count': 1, 'LogicalGpuCount': 1, "
    "'GpuPartitionSize': 1.0, 'Workloads': ['ml-ai'], 'MemoryInfo': {'SizeInMiB': 22888}}], "
    "'TotalGpuMemoryInMiB': 22888}\"";
constexpr const char* kGcpHeader =
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
    "AvailabilityZone,Price,SpotPrice\n";
// a2-highgpu-1g in us-central1-a: a host price no seed has, so its offer's price moves.
constexpr const char* kGcpRows =
    "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.123456,0.38812\n"
    ",,,A100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},us-central1,us-central1-a,"
    "2.93391,1.5399\n";
constexpr double kOndemandFactor = 0.9, kSpotFactor = 1.2;

std::string Exact(double v) {  // round-trips through the CSV to the same double
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

class CatalogRefreshTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.File("catalog.db");
    ::gpuplan::testing::CopySeededTemplate(db_);  // else OpenPreparedDatabase seeds it
    std::ostringstream err;
    ASSERT_NE(OpenPreparedDatabase(db_, err), nullptr) << err.str();  // seeded
    // The seeded prices the copy below moves or repeats, whatever the seed holds.
    od_use1_ = CurrentPrice("aws", "g5.xlarge", "us-east-1", "", "ondemand");
    spot_use1_ = CurrentPrice("aws", "g5.xlarge", "us-east-1", "use1-az1", "spot");
    od_euw1_ = CurrentPrice("aws", "g5.xlarge", "eu-west-1", "", "ondemand");
    spot_euw1_ = CurrentPrice("aws", "g5.xlarge", "eu-west-1", "euw1-az1", "spot");
    for (double seeded : {od_use1_, spot_use1_, od_euw1_, spot_euw1_}) ASSERT_GT(seeded, 0);
  }

  // A newer copy of AWS: g5.xlarge cheaper on demand and dearer on spot in us-east-1,
  // unchanged in eu-west-1, and an instance type the seed does not have.
  std::string AwsCsv() const {
    const std::string g5 = std::string("g5.xlarge,A10G,1.0,4.0,16.0,") + kA10GInfo + ",";
    return std::string(kAwsHeader) +
           g5 + Exact(od_use1_ * kOndemandFactor) + "," + Exact(spot_use1_ * kSpotFactor) +
           ",us-east-1,use1-az1\n" +
           g5 + Exact(od_euw1_) + "," + Exact(spot_euw1_) + ",eu-west-1,euw1-az1\n" +
           "g5.refresh-test,A10G,8.0,192.0,768.0,,9.5,,us-east-1,use1-az1\n";
  }

  struct Run {
    int status = 0;
    std::string out, err;
    json report;
  };
  Run Refresh(const std::string& from, std::vector<std::string> clouds = {}) const {
    CatalogRefreshCommand c;
    c.db = db_;
    c.from = from;
    c.clouds = std::move(clouds);
    c.json = true;
    std::ostringstream out, err;
    Run run;
    run.status = RunCatalogRefresh(c, out, err);
    run.out = out.str();
    run.err = err.str();
    if (run.status == 0) run.report = json::parse(run.out);
    return run;
  }

  // Everything a refresh could change, in one line.
  std::string Fingerprint() const {
    gpuplan::db::SqliteConnection db(db_, SQLite::OPEN_READONLY);
    gpuplan::db::Statement s(db, R"SQL(SELECT
      (SELECT COUNT(*) FROM prices) || '|' || (SELECT TOTAL(price_per_hour) FROM prices) || '|' ||
      (SELECT MAX(observed_at) FROM prices) || '|' || (SELECT COUNT(*) FROM instance_types) ||
      '|' || (SELECT COUNT(*) FROM imports))SQL");
    s.executeStep();
    return s.getColumn(0).getString();
  }

  double CurrentPrice(const std::string& cloud, const std::string& type, const std::string& region,
                      const std::string& zone, const std::string& kind) const {
    gpuplan::db::SqliteConnection db(db_, SQLite::OPEN_READONLY);
    gpuplan::db::Statement s(db, "SELECT price_per_hour FROM current_prices WHERE cloud = ? AND "
                            "instance_type = ? AND region = ? AND zone = ? AND kind = ?");
    s.bind(1, cloud);
    s.bind(2, type);
    s.bind(3, region);
    s.bind(4, zone);
    s.bind(5, kind);
    return s.executeStep() ? s.getColumn(0).getDouble() : -1;
  }

  static const json& Cloud(const json& report, const std::string& cloud) {
    for (const json& c : report["clouds"]) {
      if (c["cloud"] == cloud) return c;
    }
    static const json none;
    ADD_FAILURE() << "no cloud " << cloud << " in " << report.dump();
    return none;
  }

  testing::TempDir dir_;
  std::string db_;
  double od_use1_ = 0, spot_use1_ = 0, od_euw1_ = 0, spot_euw1_ = 0;
};

TEST_F(CatalogRefreshTest, ANewerCopyUpdatesPricesAndSaysWhatChanged) {
  const fs::path src = dir_.path() / "src";
  Write(src / "aws" / "vms.csv", AwsCsv());       // upstream layout
  Write(src / "gcp_vms_gpu.csv", std::string(kGcpHeader) + kGcpRows);        // seed layout
  Write(src / "runpod" / "vms.csv", AwsCsv());    // not in the catalog

  Run run = Refresh(src.string());
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(run.report["written"].get<bool>());
  ASSERT_EQ(run.report["clouds"].size(), 2u) << run.out;

  const json& aws = Cloud(run.report, "aws");
  EXPECT_EQ(aws["prices"]["listed"], 5) << aws.dump();
  EXPECT_EQ(aws["prices"]["changed"], 2) << aws.dump();
  EXPECT_EQ(aws["prices"]["added"], 1) << aws.dump();
  EXPECT_EQ(aws["prices"]["unchanged"], 2) << aws.dump();
  EXPECT_GT(aws["prices"]["not_seen"].get<int>(), 100) << "the rest of the seeded AWS catalog";
  EXPECT_EQ(aws["instance_types_added"], json::array({"g5.refresh-test"}));
  // Largest move first: spot +20 %, then on-demand -10 %.
  ASSERT_EQ(aws["largest_moves"].size(), 2u) << aws.dump();
  EXPECT_EQ(aws["largest_moves"][0]["kind"], "spot");
  EXPECT_EQ(aws["largest_moves"][0]["zone"], "use1-az1");
  EXPECT_DOUBLE_EQ(aws["largest_moves"][0]["before_per_hour"].get<double>(), spot_use1_);
  EXPECT_DOUBLE_EQ(aws["largest_moves"][0]["after_per_hour"].get<double>(), spot_use1_ * kSpotFactor);
  EXPECT_EQ(aws["largest_moves"][1]["kind"], "ondemand");
  EXPECT_NEAR(aws["largest_moves"][1]["relative_change"].get<double>(), kOndemandFactor - 1, 1e-9);

  const json& gcp = Cloud(run.report, "gcp");
  EXPECT_GT(gcp["prices"]["changed"].get<int>(), 0) << gcp.dump();
  EXPECT_EQ(gcp["instance_types_added"], json::array());

  // What was not refreshed, and why: a cloud the catalog lacks, and the catalog's clouds
  // the directory has no file of.
  std::map<std::string, std::string> left_out;
  for (const json& n : run.report["not_refreshed"]) left_out[n["cloud"]] = n["reason"];
  EXPECT_EQ(left_out["runpod"], "not in the catalog (name it with --cloud to add it)") << run.out;
  EXPECT_EQ(left_out["alibaba"], "not published: no " + src.string() + "/alibaba/vms.csv or " +
                                     src.string() + "/alibaba_vms_gpu.csv")
      << run.out;
  EXPECT_FALSE(left_out.count("aws") || left_out.count("gcp")) << run.out;

  // The catalog's current prices are the refreshed ones, dated by the refresh.
  EXPECT_DOUBLE_EQ(CurrentPrice("aws", "g5.xlarge", "us-east-1", "", "ondemand"),
                   od_use1_ * kOndemandFactor);
  EXPECT_DOUBLE_EQ(CurrentPrice("aws", "g5.xlarge", "us-east-1", "use1-az1", "spot"),
                   spot_use1_ * kSpotFactor);
  EXPECT_NEAR(CurrentPrice("aws", "g5.refresh-test", "us-east-1", "", "ondemand"), 9.5, 1e-9);

  // The same copy again: nothing moves.
  Run again = Refresh(src.string());
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(Cloud(again.report, "aws")["prices"]["changed"], 0) << again.out;
  EXPECT_EQ(Cloud(again.report, "aws")["prices"]["unchanged"], 5) << again.out;
}

// Upstream files list every instance type of a cloud: rows without a GPU are left out
// before parsing, so a file far over the import's row cap refreshes.
TEST_F(CatalogRefreshTest, RowsWithoutAGpuAreLeftOutBeforeTheRowCap) {
  std::string text = AwsCsv();
  const int cpu_rows = 60000;  // over db::kMaxImportRows (50,000)
  for (int i = 0; i < cpu_rows; ++i) {
    text += "m5.large,,,2.0,8.0,,0.096,0.03,us-east-1,use1-az" + std::to_string(i % 6 + 1) + "\n";
  }
  Write(dir_.path() / "src" / "aws" / "vms.csv", text);
  Run run = Refresh((dir_.path() / "src").string());
  ASSERT_EQ(run.status, 0) << run.err;
  const json& aws = Cloud(run.report, "aws");
  EXPECT_EQ(aws["rows"]["without_gpu"], cpu_rows) << aws.dump();
  EXPECT_EQ(aws["rows"]["read"], 3) << aws.dump();
  EXPECT_EQ(aws["prices"]["changed"], 2) << aws.dump();
  EXPECT_DOUBLE_EQ(CurrentPrice("aws", "g5.xlarge", "us-east-1", "", "ondemand"),
                   od_use1_ * kOndemandFactor);
}

TEST_F(CatalogRefreshTest, TextReportNamesEachCloudAndItsMoves) {
  const fs::path src = dir_.path() / "src";
  Write(src / "aws" / "vms.csv", AwsCsv());
  CatalogRefreshCommand c;
  c.db = db_;
  c.from = src.string();
  std::ostringstream out, err;
  ASSERT_EQ(RunCatalogRefresh(c, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("refreshed 1 cloud(s) in one transaction"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("2 changed"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("moved g5.xlarge us-east-1 use1-az1 spot: " +
                           fmt::format("{:.6g} -> {:.6g}", spot_use1_, spot_use1_ * kSpotFactor) +
                           " USD/h (+20.0 %)"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("added g5.refresh-test"), std::string::npos) << out.str();
}

TEST_F(CatalogRefreshTest, ABadFileLeavesTheCatalogUntouched) {
  const fs::path src = dir_.path() / "src";
  Write(src / "aws" / "vms.csv", AwsCsv());  // good
  Write(src / "gcp" / "vms.csv", std::string(kGcpHeader) +
                                     "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,"
                                     "abc,0.38812\n");  // a price that is not a number
  const std::string before = Fingerprint();
  Run run = Refresh(src.string());
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_NE(run.err.find((src / "gcp" / "vms.csv").string()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("line 2"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("nothing was refreshed"), std::string::npos) << run.err;
  EXPECT_EQ(Fingerprint(), before) << "the good AWS file is not written either";
  EXPECT_DOUBLE_EQ(CurrentPrice("aws", "g5.xlarge", "us-east-1", "", "ondemand"), od_use1_);

  // A file without a required column is refused the same way.
  Write(src / "gcp" / "vms.csv",
        "InstanceType,AcceleratorName,AcceleratorCount,Region,SpotPrice\nx,A100,1,us-central1,1\n");
  Run missing = Refresh(src.string());
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find((src / "gcp" / "vms.csv").string() + ": missing column 'Price'"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(Fingerprint(), before);
}

TEST_F(CatalogRefreshTest, WrongSourcesAreClearErrors) {
  const fs::path src = dir_.path() / "src";
  Write(src / "aws" / "vms.csv", AwsCsv());
  const std::string before = Fingerprint();

  Run unknown = Refresh(src.string(), {"azure"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("cloud 'azure': no "), std::string::npos) << unknown.err;

  Run nowhere = Refresh((dir_.path() / "absent").string());
  EXPECT_EQ(nowhere.status, 2);
  EXPECT_NE(nowhere.err.find("is not a directory"), std::string::npos) << nowhere.err;

  Write(src / "aws_vms_gpu.csv", AwsCsv());  // the other layout too
  Run twice = Refresh(src.string());
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("has two files"), std::string::npos) << twice.err;
  EXPECT_EQ(Fingerprint(), before);
}

TEST_F(CatalogRefreshTest, DownloadsFromAUrlLaidOutAsUpstream) {
  httplib::Server upstream;
  const std::string aws_csv = AwsCsv();
  upstream.Get("/catalogs/v8/aws/vms.csv", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(aws_csv, "text/csv");
  });
  const int port = upstream.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { upstream.listen_after_bind(); });  // bound: connections queue
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/catalogs/v8/";

  std::set<std::string> unpublished;  // every catalog cloud but aws answers 404
  {
    gpuplan::db::SqliteConnection db(db_, SQLite::OPEN_READONLY);
    gpuplan::db::Statement s(db, "SELECT id FROM clouds WHERE id <> 'aws'");
    while (s.executeStep()) unpublished.insert(s.getColumn(0).getString());
  }
  ASSERT_TRUE(unpublished.count("gcp"));
  Run run = Refresh(url);
  Run named = Refresh(url, {"gcp"});
  upstream.stop();
  serving.join();

  ASSERT_EQ(run.status, 0) << run.err;
  ASSERT_EQ(run.report["clouds"].size(), 1u) << run.out;
  EXPECT_EQ(Cloud(run.report, "aws")["origin"], url.substr(0, url.size() - 1) + "/aws/vms.csv");
  EXPECT_EQ(Cloud(run.report, "aws")["prices"]["changed"], 2) << run.out;
  std::set<std::string> left_out;
  for (const json& n : run.report["not_refreshed"]) {
    left_out.insert(n["cloud"].get<std::string>());
    EXPECT_NE(n["reason"].get<std::string>().find("not published"), std::string::npos) << n.dump();
  }
  EXPECT_EQ(left_out, unpublished);
  EXPECT_DOUBLE_EQ(CurrentPrice("aws", "g5.xlarge", "us-east-1", "", "ondemand"),
                   od_use1_ * kOndemandFactor);

  EXPECT_EQ(named.status, 2) << "a cloud asked by name must be published";
  EXPECT_NE(named.err.find("cloud 'gcp': no "), std::string::npos) << named.err;
}

}  // namespace
}  // namespace gpuplan::server
