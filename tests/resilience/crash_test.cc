// kill -9 in the middle of imports: each import is wholly present with its audit row or
// wholly absent after every kill, and the database serves again (on SQLite it also passes
// the file's integrity check). On the backend the run tests (tests/testing/test_database.h);
// on PostgreSQL another replica serves throughout.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "db/api_keys.h"
#include "db/database.h"
#include "server/app.h"
#include "tests/testing/server_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_database.h"

namespace gpuplan {
namespace {

using testing::ServerProcess;
using testing::TempDir;

// A SkyPilot catalog of `rows` distinct 8x A100 instance types in one region.
std::string BigCatalog(int rows) {
  std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
      "Region,AvailabilityZone\n";
  for (int i = 0; i < rows; ++i) {
    csv += "crash" + std::to_string(i) + ".x,A100,8,96,1152,," +
           std::to_string(20 + (i % 100) * 0.01) + ",9.5,r1,\n";
  }
  return csv;
}

TEST(CrashTest, KillNineMidImportLeavesEachImportWholeOrAbsent) {
  TempDir dir;
  testing::TestDatabase database(dir, testing::TestDatabase::Start::kEmpty);
  const std::string db_path = database.url();
  ASSERT_TRUE(server::PrepareDatabase(db_path).ok());
  std::string key;
  {
    auto db = db::OpenDatabase(db_path);
    ASSERT_TRUE(db.ok());
    key = db::ApiKeyStore(**db).Create("crash", "write")->key;
  }
  // Within the catalog caps (db/catalog_caps.h); each round's import is removed after it is
  // checked, so the rounds never add up past them.
  const int rows = 4000;
  const std::string csv = BigCatalog(rows);
  // Time one whole import first, then kill at fractions of that time (so the rounds land
  // before, during and after the transaction on fast and slow - sanitized - builds alike).
  double full_ms = 0;
  {
    ServerProcess server(db_path, dir.File("log-timing"));
    httplib::Client client("127.0.0.1", server.port());
    client.set_read_timeout(120, 0);
    auto started = std::chrono::steady_clock::now();
    auto res = client.Post("/api/v1/catalog/import?format=skypilot&cloud=timing",
                           {{"Authorization", "Bearer " + key}}, csv, "text/csv");
    full_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                  .count();
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 201) << res->body.substr(0, 300);
  }
  auto remove_cloud = [&](const std::string& cloud) {
    auto db = db::OpenDatabase(db_path);
    ASSERT_TRUE(db.ok()) << db.error().message;
    for (const char* table : {"prices", "instance_types"}) {
      gpuplan::db::Statement s(**db, std::string("DELETE FROM ") + table + " WHERE cloud = ?");
      s.bind(1, cloud);
      s.exec();
    }
  };
  remove_cloud("timing");
  std::printf("a whole %d-row import takes %.0f ms\n", rows, full_ms);
  // The last round kills only after its import has answered: under load an import may take
  // more than twice the timed one, and a run must still see an import that finished.
  const double fractions[] = {0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 2.0};
  std::vector<int> delays_ms;
  for (double f : fractions) delays_ms.push_back(static_cast<int>(f * full_ms));
  const int after_answer = static_cast<int>(delays_ms.size()) - 1;
  int present = 0, absent = 0;
  // On a shared database (PostgreSQL), another replica serves beside the one killed.
  std::unique_ptr<ServerProcess> bystander;
  if (testing::OnPostgres()) {
    bystander = std::make_unique<ServerProcess>(db_path, dir.File("log-bystander"));
  }
  for (int round = 0; round < static_cast<int>(delays_ms.size()); ++round) {
    std::string cloud = "crash" + std::to_string(round);
    ServerProcess server(db_path, dir.File("log" + std::to_string(round)));
    std::thread import([&] {
      httplib::Client client("127.0.0.1", server.port());
      client.set_read_timeout(30, 0);
      client.Post("/api/v1/catalog/import?format=skypilot&cloud=" + cloud,
                  {{"Authorization", "Bearer " + key}}, csv, "text/csv");
    });
    if (round == after_answer) {
      import.join();
      server.Stop(SIGKILL);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(delays_ms[round]));
      server.Stop(SIGKILL);
      import.join();
    }

    auto opened = db::OpenDatabase(db_path);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    db::Connection& db = **opened;
    if (db.dialect() == db::SqlDialect::kSqlite) {
      EXPECT_EQ(db.execAndGet("PRAGMA integrity_check").getString(), "ok") << "round " << round;
    }
    int audits = db.execAndGet("SELECT count(*) FROM imports WHERE cloud = '" + cloud + "'").getInt();
    int types = db.execAndGet("SELECT count(*) FROM instance_types WHERE cloud = '" + cloud + "'").getInt();
    int prices = db.execAndGet("SELECT count(*) FROM prices WHERE cloud = '" + cloud + "'").getInt();
    EXPECT_LE(audits, 1);
    std::printf("round %d: killed %s: %s\n", round,
                round == after_answer ? "after the answer"
                                      : ("after " + std::to_string(delays_ms[round]) + " ms").c_str(),
                audits ? "import present with its audit row" : "import absent");
    if (audits == 1) {
      ++present;
      EXPECT_EQ(types, rows) << "round " << round;
      EXPECT_EQ(prices, 2 * rows) << "round " << round;
    } else {
      ++absent;
      EXPECT_EQ(types, 0) << "round " << round << ": data without its audit row";
      EXPECT_EQ(prices, 0) << "round " << round;
    }
    remove_cloud(cloud);
    if (bystander) {
      httplib::Client other("127.0.0.1", bystander->port());
      other.set_read_timeout(30, 0);
      auto served = other.Get("/api/v1/instances?limit=1");
      ASSERT_TRUE(served) << "round " << round << ": the other replica did not answer";
      EXPECT_EQ(served->status, 200) << "round " << round << ": the other replica";
    }
  }
  // The rounds must have covered both outcomes, or the test proved nothing.
  EXPECT_GT(absent, 0);
  EXPECT_GT(present, 0) << "no import finished within twice the time of a whole one";
  // And the database still serves.
  ServerProcess server(db_path, dir.File("log-final"));
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(120, 0);
  auto res = client.Get("/api/v1/instances?limit=1");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

}  // namespace
}  // namespace gpuplan
