// The hostile suite, issue 22 round 2: time, CSV export and storage health. Over real HTTP
// to the real server and its real database file:
//   - timestamps written with UTC offsets are instants, not strings (finding 6);
//   - the CSV export never hands a spreadsheet a formula (finding 9);
//   - a deleted or damaged database file is reported, never written into or leaked as
//     SQLite's text (finding 10);
//   - a revoked key's 403 says nothing about the key (finding 11).
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "db/api_keys.h"
#include "db/csv.h"
#include "db/database.h"
#include "db/sqlite_connection.h"
#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::CreateApiKey;
using testing::TestServer;

httplib::Headers Auth(const std::string& key) { return {{"Authorization", "Bearer " + key}}; }

// `t` as local time at `offset_minutes` east of UTC, written with that offset.
std::string WithOffset(std::time_t t, int offset_minutes) {
  std::time_t local = t + offset_minutes * 60;
  std::tm tm{};
  gmtime_r(&local, &tm);
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M", &tm);
  int m = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  char zone[8];
  std::snprintf(zone, sizeof(zone), "%c%02d:%02d", offset_minutes < 0 ? '-' : '+', m / 60, m % 60);
  return std::string(text) + zone;
}

std::string Utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

json InstanceType(const std::string& id) {
  return {{"cloud", "aws"}, {"instance_type", id}, {"gpu", "H100-80GB-SXM5"},
          {"gpu_count", 8}, {"vcpus", 96}, {"memory_gib", 1024}, {"source", "test"}};
}

json OnDemandPrice(const std::string& type, double price, const std::string& observed_at,
                   const std::string& source = "test") {
  return {{"cloud", "aws"}, {"instance_type", type}, {"region", "us-east-1"},
          {"kind", "ondemand"}, {"price_per_hour", price}, {"currency", "USD"},
          {"observed_at", observed_at}, {"source", source}};
}

// Words of SQLite's own error texts that must never reach an answer.
void ExpectNoSqliteText(const std::string& body, const std::string& what) {
  for (const char* word : {"SQLite", "sqlite", "database disk image", "malformed",
                           "no such table", "file is not a database", "disk I/O"}) {
    EXPECT_EQ(body.find(word), std::string::npos) << what << " leaks '" << word << "': " << body;
  }
}

class HostileTchTest : public ::testing::Test {
 protected:
  TestServer server_;
  std::string key_ = CreateApiKey(server_, "tch-writer", "write");

  TestServer::Reply Write(const std::string& method, const std::string& target, const json& body) {
    return server_.Send(method, target, body.dump(), "application/json", Auth(key_));
  }
};

// Finding 6: one hour old at +14:00 reads as 14 h newer than five minutes old in 'Z' when
// compared as text. The listing and an estimate must take the newer price.
TEST_F(HostileTchTest, OffsetTimestampsAreComparedAsInstants) {
  ASSERT_EQ(Write("POST", "/api/v1/instances", InstanceType("tch.offset")).status, 201);
  std::time_t now = std::time(nullptr);
  std::string hour_ago_east = WithOffset(now - 3600, 14 * 60);
  std::string five_min_ago_z = Utc(now - 300);
  json prices = {{"prices", {OnDemandPrice("tch.offset", 10, hour_ago_east),
                             OnDemandPrice("tch.offset", 20, five_min_ago_z)}}};
  auto posted = Write("POST", "/api/v1/prices", prices);
  ASSERT_EQ(posted.status, 201) << posted.body.dump();

  auto listed = server_.Get("/api/v1/instances?cloud=aws&region=us-east-1&gpu=H100&limit=500");
  ASSERT_EQ(listed.status, 200) << listed.body.dump();
  bool found = false;
  for (const json& item : listed.body["items"]) {
    if (item["instance_type"] != "tch.offset") continue;
    found = true;
    EXPECT_EQ(item["price_ondemand_per_hour"], 20) << item.dump();
  }
  EXPECT_TRUE(found) << listed.body.dump();

  json est = {{"workload", "llama-2-7b"}, {"dataset", {{"tokens", 1e9}}},
              {"global_batch_size", 512}, {"framework", "optimized"},
              {"hardware", {{"cloud", "aws"}, {"region", "us-east-1"}, {"instance_type", "tch.offset"}}},
              {"pricing", {{"kind", "ondemand"}}}};
  auto e = server_.Post("/api/v1/estimates/training", est);
  ASSERT_EQ(e.status, 200) << e.body.dump();
  EXPECT_EQ(e.body["cost"]["ondemand"]["price_per_hour"], 20) << e.body["cost"].dump();

  // The stored stamp is the one canonical UTC form, whatever offset it was written with.
  auto history = server_.Get("/api/v1/prices/spot-history?cloud=aws&instance_type=tch.offset");
  ASSERT_EQ(history.status, 200);
  auto exported = server_.Client().Get("/api/v1/catalog/export?format=csv");
  ASSERT_TRUE(exported && exported->status == 200);
  EXPECT_NE(exported->body.find(Utc(now - 3600 - (now - 3600) % 60)), std::string::npos);
  EXPECT_EQ(exported->body.find("+14:00"), std::string::npos);
}

// Finding 6: the spot history's since/until bounds are instants too.
TEST_F(HostileTchTest, SpotHistoryBoundsWithOffsetsAreInstants) {
  ASSERT_EQ(Write("POST", "/api/v1/instances", InstanceType("tch.spot")).status, 201);
  json spot = OnDemandPrice("tch.spot", 5, "2026-01-01T10:00:00Z");
  spot["kind"] = "spot";
  spot["zone"] = "us-east-1a";
  ASSERT_EQ(Write("POST", "/api/v1/prices", json{{"prices", {spot}}}).status, 201);
  // 2026-01-01T12:00+05:00 is 07:00Z: before the observation, so it is in [since, ...).
  auto in = server_.Get("/api/v1/prices/spot-history?cloud=aws&instance_type=tch.spot"
                        "&since=2026-01-01T12:00%2B05:00");
  ASSERT_EQ(in.status, 200) << in.body.dump();
  EXPECT_EQ(in.body["items"].size(), 1u) << in.body.dump();
  // until 2026-01-01T05:00-04:00 is 09:00Z: before the observation, so nothing.
  auto out = server_.Get("/api/v1/prices/spot-history?cloud=aws&instance_type=tch.spot"
                         "&until=2026-01-01T05:00-04:00");
  ASSERT_EQ(out.status, 200) << out.body.dump();
  EXPECT_EQ(out.body["items"].size(), 0u) << out.body.dump();
}

// Finding 9: text a spreadsheet would run comes back as text, prefixed with "'".
TEST_F(HostileTchTest, CsvExportEscapesFormulaCells) {
  const std::string source = "=cmd|' /C calc'!A0";
  for (const std::string id : {"=hx(1)", "@SUM(1+1)", "+1", "-2"}) {
    ASSERT_EQ(Write("POST", "/api/v1/instances", InstanceType(id)).status, 201) << id;
    auto posted = Write("POST", "/api/v1/prices",
                        json{{"prices", {OnDemandPrice(id, 3.5, "2026-01-02", source)}}});
    ASSERT_EQ(posted.status, 201) << posted.body.dump();
  }
  auto res = server_.Client().Get("/api/v1/catalog/export?format=csv");
  ASSERT_TRUE(res && res->status == 200);
  auto table = db::ParseCsv(res->body);
  ASSERT_TRUE(table.ok()) << table.error().message;
  auto type_column = table->Column("instance_type");
  auto source_column = table->Column("source");
  auto price_column = table->Column("price_per_hour");
  ASSERT_TRUE(type_column && source_column && price_column);
  int escaped = 0;
  for (const db::CsvRow& row : table->rows()) {
    for (const std::string& cell : row.fields) {
      ASSERT_FALSE(!cell.empty() && std::string("=+-@\t\r").find(cell[0]) != std::string::npos)
          << "line " << row.line << " cell " << cell;
    }
    std::string type(db::CsvTable::Field(row, type_column));
    if (type == "'=hx(1)" || type == "'@SUM(1+1)" || type == "'+1" || type == "'-2") {
      ++escaped;
      EXPECT_EQ(db::CsvTable::Field(row, source_column), "'" + source);
      EXPECT_EQ(db::CsvTable::Field(row, price_column), "3.5");  // numbers stay numbers
    }
  }
  EXPECT_EQ(escaped, 4) << res->body.substr(0, 2000);
}

// Finding 11: a revoked key's 403 does not echo the key, its id or its name.
TEST_F(HostileTchTest, RevokedKeyAnswerNamesNothingOfTheKey) {
  std::string secret = CreateApiKey(server_, "tch-revoked-name", "write");
  {
    auto db = db::OpenDatabase(server_.db_path());
    ASSERT_TRUE(db.ok());
    auto revoked = db::ApiKeyStore(**db).Revoke("tch-revoked-name");
    ASSERT_TRUE(revoked.ok());
  }
  auto res = server_.Send("POST", "/api/v1/prices", "{\"prices\":[]}", "application/json",
                          Auth(secret));
  EXPECT_EQ(res.status, 403);
  std::string body = res.body.dump();
  EXPECT_EQ(body.find("tch-revoked-name"), std::string::npos) << body;
  EXPECT_EQ(body.find(secret), std::string::npos) << body;
  EXPECT_EQ(body.find(secret.substr(0, 8)), std::string::npos) << body;
}

// Finding 10: the database file deleted under the running service.
TEST_F(HostileTchTest, DeletedDatabaseFileIsNotReadyAndRefusesWrites) {
  if (testing::OnPostgres()) GTEST_SKIP() << "a SQLite file's fault; PostgreSQL has no file";
  ASSERT_EQ(server_.Get("/readyz").status, 200);
  std::filesystem::remove(server_.db_path());
  auto ready = server_.Get("/readyz");
  EXPECT_EQ(ready.status, 503) << ready.body.dump();
  EXPECT_EQ(ready.content_type, "application/problem+json");
  ExpectNoSqliteText(ready.body.dump(), "/readyz");
  auto write = Write("POST", "/api/v1/instances", InstanceType("tch.lost"));
  EXPECT_EQ(write.status, 503) << write.body.dump();
  ExpectNoSqliteText(write.body.dump(), "POST /instances");
  auto prices = Write("POST", "/api/v1/prices",
                      json{{"prices", {OnDemandPrice("p4d.24xlarge", 9, "2026-01-03")}}});
  EXPECT_EQ(prices.status, 503) << prices.body.dump();
}

// Finding 10: zeroed pages. /readyz says so; no answer carries SQLite's text.
TEST_F(HostileTchTest, ZeroedPagesAreNotReadyAndLeakNoSqliteText) {
  if (testing::OnPostgres()) GTEST_SKIP() << "a SQLite file's fault; PostgreSQL has no file";
  ASSERT_EQ(server_.Get("/readyz").status, 200);
  long long page_size = 0;
  {
    gpuplan::db::SqliteConnection db(server_.db_path(), SQLite::OPEN_READWRITE);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");  // every page in the main file
    page_size = db.execAndGet("PRAGMA page_size").getInt64();
  }
  auto size = static_cast<long long>(std::filesystem::file_size(server_.db_path()));
  ASSERT_GT(size, 2 * page_size);
  {
    std::fstream file(server_.db_path(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(page_size);
    std::string zeros(static_cast<size_t>(size - page_size), '\0');
    file.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  auto ready = server_.Get("/readyz");
  EXPECT_EQ(ready.status, 503) << ready.body.dump();
  ExpectNoSqliteText(ready.body.dump(), "/readyz");
  for (const char* target : {"/api/v1/gpus", "/api/v1/gpus/H100-80GB-SXM5",
                             "/api/v1/instances?cloud=aws&limit=5", "/api/v1/fx-rates",
                             "/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge"}) {
    auto res = server_.Client().Get(target);
    ASSERT_TRUE(res) << target;
    EXPECT_NE(res->status, 500) << target << " " << res->body;
    ExpectNoSqliteText(res->body, target);
  }
  auto write = Write("POST", "/api/v1/instances", InstanceType("tch.zeroed"));
  ExpectNoSqliteText(write.body.dump(), "POST /instances");
  auto exported = server_.Client().Get("/api/v1/catalog/export?format=csv");
  if (exported) ExpectNoSqliteText(exported->body, "export");
}

}  // namespace
}  // namespace gpuplan::api
