// Several replicas on one shared PostgreSQL database (issue 29): three `gpuplan serve`
// processes, readers spread across them while imports and price writes go through different
// replicas. No answer is a 5xx; every read sees every write committed before it was sent but
// at most the last one (the catalog-recheck bound); at the end every replica exports the same
// catalog byte for byte. Runs under `make test-postgres` (skipped on SQLite, whose replicas
// share a file on one host: docs/operations.md).
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "db/api_keys.h"
#include "db/database.h"
#include "server/app.h"
#include "tests/testing/env.h"
#include "tests/testing/server_process.h"
#include "tests/testing/status_counts.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_database.h"

namespace gpuplan {
namespace {

using nlohmann::json;
using testing::ServerProcess;
using Clock = std::chrono::steady_clock;

// A SkyPilot catalog of cloud "repl" holding instance types repl.0 .. repl.(n-1).
std::string ReplicaCatalog(int n) {
  std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
      "Region,AvailabilityZone\n";
  for (int i = 0; i < n; ++i) csv += "repl." + std::to_string(i) + ",L4,1,8,32,,0.8,0.3,r1,\n";
  return csv;
}

// How many of repl.0, repl.1, ... an instance listing holds, counted from repl.0 without a
// gap (-1 when it holds a later one without an earlier: an impossible catalog).
int ContiguousTypes(const json& listing) {
  std::set<int> seen;
  for (const json& item : listing["items"]) {
    const std::string id = item.value("instance_type", "");
    if (id.rfind("repl.", 0) == 0) seen.insert(std::atoi(id.c_str() + 5));
  }
  int n = 0;
  while (seen.count(n)) ++n;
  return n == static_cast<int>(seen.size()) ? n : -1;
}

TEST(ReplicasTest, ThreeReplicasOnOnePostgresAgreeUnderReadsAndWrites) {
  if (!testing::OnPostgres()) {
    GTEST_SKIP() << "replicas share a PostgreSQL database: make test-postgres";
  }
  testing::TempDir dir;
  testing::TestDatabase database(dir);
  ASSERT_TRUE(server::PrepareDatabase(database.url()).ok());
  std::string key;
  {
    auto db = db::OpenDatabase(database.url());
    ASSERT_TRUE(db.ok()) << db.error().message;
    key = db::ApiKeyStore(**db).Create("replicas", "write")->key;
  }
  const httplib::Headers auth = {{"Authorization", "Bearer " + key}};
  std::vector<std::unique_ptr<ServerProcess>> replicas;
  for (int r = 0; r < 3; ++r) {
    replicas.push_back(std::make_unique<ServerProcess>(
        database.url(), dir.File("replica" + std::to_string(r) + ".log"),
        std::vector<std::string>{"--db-connections", "4"}));
  }
  auto client = [&](int r) {
    httplib::Client c("127.0.0.1", replicas[r % 3]->port());
    c.set_read_timeout(30, 0);
    return c;
  };

  const auto until = Clock::now() + std::chrono::seconds(testing::EnvSeconds("GPUPLAN_REPLICAS_SECONDS", 30));
  std::atomic<int> committed{0};  // instance types repl.0 .. committed-1 are in the catalog
  std::atomic<bool> writing{true};
  std::mutex mutex;
  testing::StatusCounts statuses;
  std::vector<std::string> stale;                       // reads more than one write old
  auto record = [&](const std::string& kind, int status) {
    std::lock_guard lock(mutex);
    ++statuses[kind][status];
  };

  std::vector<std::thread> threads;
  // The writer: each round imports one more instance type through one replica and then
  // writes a price through the next; `committed` counts the imports that answered 201.
  threads.emplace_back([&] {
    for (int n = 1; Clock::now() < until && n < 400; ++n) {  // one listing page holds them
      auto res = client(n).Post("/api/v1/catalog/import?format=skypilot&cloud=repl", auth,
                                ReplicaCatalog(n), "text/csv");
      record("import", res ? res->status : 0);
      if (res && res->status == 201) committed = n;
      json prices = {{"prices",
                      {{{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"}, {"region", "us-east-1"},
                        {"kind", "ondemand"}, {"price_per_hour", 30 + n * 0.001},
                        {"currency", "USD"}}}}};
      auto price = client(n + 1).Post("/api/v1/prices", auth, prices.dump(), "application/json");
      record("POST /prices", price ? price->status : 0);
    }
    writing = false;
  });
  // Readers, each going round the replicas: the listing of cloud "repl" (checked against
  // the imports committed before it was sent), an estimate and a recommendation.
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; writing; ++i) {
        int before = committed.load();
        auto list = client(i).Get("/api/v1/instances?cloud=repl&limit=500");
        record("GET /instances", list ? list->status : 0);
        if (list && list->status == 200) {
          int seen = ContiguousTypes(json::parse(list->body, nullptr, false));
          if (seen < 0 || seen < before - 1) {
            std::lock_guard lock(mutex);
            stale.push_back("replica " + std::to_string(i % 3) + " listed " +
                            std::to_string(seen) + " types after " + std::to_string(before) +
                            " had committed");
          }
        }
        auto est = client(i + 1).Post(
            "/api/v1/estimates/training",
            R"({"workload":"resnet-50","dataset":{"samples":100000},"global_batch_size":256,)"
            R"("hardware":{"cloud":"aws","region":"us-east-1","instance_type":"p4d.24xlarge"}})",
            "application/json");
        record("POST /estimates/training", est ? est->status : 0);
        auto rec = client(i + 2).Post(
            "/api/v1/recommendations",
            R"({"workload":"resnet-50","dataset":{"samples":1000000},"global_batch_size":256,)"
            R"("constraints":{"clouds":["aws"]}})",
            "application/json");
        record("POST /recommendations", rec ? rec->status : 0);
      }
    });
  }
  for (auto& thread : threads) thread.join();

  testing::ExpectOnlySuccess(statuses);
  EXPECT_GT(statuses["import"][201], 3);
  EXPECT_GT(statuses["POST /prices"][201], 3);
  EXPECT_GT(statuses["GET /instances"][200], 10);
  EXPECT_TRUE(stale.empty()) << stale.size() << " reads more than one write old, first: "
                             << stale.front();
  std::printf("%d imports committed; %zu stale reads\n", committed.load(), stale.size());

  // Past the recheck bound, every replica's cached catalog (a listing and an estimate,
  // answered from its snapshot) is the same, and has every import.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::string listing;
  for (int r = 0; r < 3; ++r) {
    auto list = client(r).Get("/api/v1/instances?cloud=repl&limit=500");
    ASSERT_TRUE(list);
    EXPECT_EQ(ContiguousTypes(json::parse(list->body, nullptr, false)), committed.load())
        << "replica " << r;
    if (r == 0) listing = list->body;
    EXPECT_TRUE(list->body == listing) << "replica " << r << " lists another catalog";
  }
  // Every replica serves the same final catalog: the CSV export byte for byte, and the JSON
  // export byte for byte but for its own exported_at time.
  for (const char* format : {"csv", "json"}) {
    std::string first;
    for (int r = 0; r < 3; ++r) {
      auto res = client(r).Get(std::string("/api/v1/catalog/export?format=") + format);
      ASSERT_TRUE(res);
      ASSERT_EQ(res->status, 200);
      std::string body = std::regex_replace(res->body, std::regex(R"("exported_at":"[^"]*")"), "");
      if (r == 0) {
        first = body;
        EXPECT_NE(first.find("repl." + std::to_string(committed.load() - 1)), std::string::npos);
      } else {
        EXPECT_TRUE(body == first) << "replica " << r << " exports another catalog (" << format << ")";
      }
    }
  }
}

}  // namespace
}  // namespace gpuplan
