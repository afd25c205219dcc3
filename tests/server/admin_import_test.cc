// `gpuplan import --format aws-spot-advisor FILE`: the CLI imports the public Spot Instance
// Advisor document like the API, in one transaction, and prints how many bands it wrote.
#include "server/admin_commands.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "db/sqlite_connection.h"
#include "tests/testing/temp_dir.h"

namespace gpuplan::server {
namespace {

std::string BandOf(const std::string& db_path, const std::string& region, const std::string& type) {
  gpuplan::db::SqliteConnection db(db_path, SQLite::OPEN_READONLY);
  gpuplan::db::Statement s(db, "SELECT label FROM spot_interruption_bands WHERE cloud = 'aws' AND "
                          "region = ? AND instance_type = ?");
  s.bind(1, region);
  s.bind(2, type);
  return s.executeStep() ? s.getColumn(0).getString() : "";
}

TEST(AdminImportTest, TheCliImportsTheSpotAdvisorDocument) {
  testing::TempDir dir;
  const std::string db = dir.File("catalog.db");
  const std::string file = dir.File("spot-advisor-data.json");
  nlohmann::json feed = {
      {"ranges", {{{"index", 0}, {"label", "<5%"}}, {{"index", 4}, {"label", ">20%"}}}},
      {"spot_advisor",
       {{"us-east-1", {{"Linux", {{"p4d.24xlarge", {{"s", 70}, {"r", 4}}}}}}}}}};
  std::ofstream(file) << feed.dump();
  std::ostringstream out, err;
  // A document whose entry names no range: refused, nothing written (the seed's band stays).
  nlohmann::json bad = feed;
  bad["spot_advisor"]["us-east-1"]["Linux"]["p4d.24xlarge"]["r"] = 3;
  std::ofstream(dir.File("bad.json")) << bad.dump();
  EXPECT_NE(RunImport({db, "aws-spot-advisor", "", dir.File("bad.json")}, out, err), 0);
  EXPECT_NE(err.str().find("/spot_advisor/us-east-1/Linux/p4d.24xlarge/r"), std::string::npos)
      << err.str();
  EXPECT_EQ(BandOf(db, "us-east-1", "p4d.24xlarge"), "10-15%");
  ASSERT_EQ(RunImport({db, "aws-spot-advisor", "", file}, out, err), 0) << err.str();
  auto report = nlohmann::json::parse(out.str());
  EXPECT_EQ(report["spot_bands"], 1) << out.str();
  EXPECT_EQ(BandOf(db, "us-east-1", "p4d.24xlarge"), ">20%");
  EXPECT_EQ(BandOf(db, "us-east-1", "g5.48xlarge"), "");  // the region's bands replaced
  EXPECT_EQ(BandOf(db, "us-west-2", "p4d.24xlarge"), ">20%");  // another region kept
}

}  // namespace
}  // namespace gpuplan::server
