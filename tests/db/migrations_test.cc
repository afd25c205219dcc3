#include "db/migrations.h"

#include <gtest/gtest.h>

#include "db/database.h"
#include "db/sql.h"
#include "tests/testing/temp_dir.h"

namespace gpuplan::db {
namespace {

TEST(MigrationsTest, CreatesTheSchemaOnAnEmptyDatabase) {
  auto db = OpenDatabase(":memory:");
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(SchemaVersion(**db), 0);
  ASSERT_TRUE(Migrate(**db).ok());
  EXPECT_EQ(SchemaVersion(**db), LatestSchemaVersion());
  for (const char* table : {"gpus", "gpu_synonyms", "clouds", "regions", "instance_types",
                            "prices", "workloads", "api_keys", "imports", "fx_rates"}) {
    gpuplan::db::Statement exists(**db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    exists.bind(1, table);
    EXPECT_TRUE(exists.executeStep()) << table;
  }
}

TEST(MigrationsTest, IsIdempotent) {
  auto db = OpenDatabase(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(Migrate(**db).ok());
  ASSERT_TRUE(Migrate(**db).ok());
  EXPECT_EQ(SchemaVersion(**db), LatestSchemaVersion());
}

TEST(MigrationsTest, RefusesADatabaseNewerThanTheBuild) {
  auto db = OpenDatabase(":memory:");
  ASSERT_TRUE(db.ok());
  (*db)->exec("PRAGMA user_version = " + std::to_string(LatestSchemaVersion() + 1));
  Status s = Migrate(**db);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kUnavailable);
}

// Migration 5 adds the launch price to a database a version-4 build made: its GPUs keep
// their rows with no price, and the CHECK refuses a price that is not positive.
TEST(MigrationsTest, Version5AddsTheLaunchPriceToAVersion4Database) {
  auto db = OpenDatabase(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(MigrateTo(**db, 4).ok());
  EXPECT_EQ(SchemaVersion(**db), 4);
  auto has_column = [&] {
    gpuplan::db::Statement s(**db, "SELECT 1 FROM pragma_table_info('gpus') WHERE name = 'launch_price_usd'");
    return s.executeStep();
  };
  EXPECT_FALSE(has_column());
  (*db)->exec("INSERT INTO gpus (id, name, vendor, memory_gb) VALUES ('OLD', 'Old', 'NVIDIA', 24)");
  ASSERT_TRUE(Migrate(**db).ok());
  EXPECT_GE(SchemaVersion(**db), 5);
  EXPECT_TRUE(has_column());
  EXPECT_TRUE((*db)->execAndGet("SELECT launch_price_usd FROM gpus WHERE id = 'OLD'").isNull());
  (*db)->exec("UPDATE gpus SET launch_price_usd = 1599 WHERE id = 'OLD'");
  EXPECT_EQ((*db)->execAndGet("SELECT launch_price_usd FROM gpus WHERE id = 'OLD'").getDouble(), 1599);
  EXPECT_THROW((*db)->exec("UPDATE gpus SET launch_price_usd = 0 WHERE id = 'OLD'"),
               gpuplan::db::SqlError);
}

TEST(DatabaseTest, OpensFilesInWalModeWithForeignKeys) {
  testing::TempDir dir;
  auto db = OpenDatabase(dir.File("x.db"));
  ASSERT_TRUE(db.ok());
  EXPECT_EQ((*db)->execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ((*db)->execAndGet("PRAGMA foreign_keys").getInt(), 1);
  EXPECT_GT((*db)->execAndGet("PRAGMA busy_timeout").getInt(), 0);
}

// Migration 7: stamps that older builds stored with UTC offsets or fractions become the
// one canonical UTC form, so that SQL's MAX/ORDER BY over them is time order.
TEST(MigrationsTest, SevenRewritesStampsToCanonicalUtc) {
  auto db = OpenDatabase(":memory:");
  ASSERT_TRUE(db.ok());
  gpuplan::db::Connection& d = **db;
  ASSERT_TRUE(MigrateTo(d, 6).ok());
  d.exec("INSERT INTO clouds (id, name, default_currency) VALUES ('x', 'X', 'USD')");
  d.exec("INSERT INTO regions (cloud, id, display_name) VALUES ('x', 'r', 'R')");
  d.exec("INSERT INTO gpus (id, name, vendor, memory_gb) VALUES ('G', 'G', 'V', 80)");
  d.exec("INSERT INTO instance_types (cloud, id, gpu_id, gpu_count) VALUES ('x', 't', 'G', 1)");
  auto price = [&](const char* kind, double p, const char* at) {
    gpuplan::db::Statement s(d, "INSERT INTO prices (cloud, instance_type, region, kind, "
                           "price_per_hour, currency, observed_at) VALUES ('x','t','r',?,?,'USD',?)");
    s.bind(1, kind);
    s.bind(2, p);
    s.bind(3, at);
    s.exec();
  };
  price("ondemand", 10, "2026-11-02T06:28+14:00");      // 2026-11-01T16:28:00Z, 1 h ago
  price("ondemand", 20, "2026-11-01T17:23:00Z");        // 5 min ago: the current one
  price("spot", 1, "2026-11-01T10:00:00.250-0530");     // 15:30:00Z
  price("spot", 2, "2026-11-01T15:30:00Z");             // the same instant: one row stays
  price("reserved_1y", 3, "2026-11-01");                // already canonical
  price("reserved_3y", 4, "2026-11-01T00:00:00Z");      // midnight: the date form
  d.exec("INSERT INTO fx_rates (currency, units_per_usd, as_of) VALUES ('EUR', 0.9, '2026-11-01T01:00+01:00')");
  d.exec("INSERT INTO measurements (family, workload_id, gpu_id, gpus_per_node, nodes, global_batch, "
         "precision, framework, samples_per_s, measured_as, measured_value, measured_on, created_at, request) "
         "VALUES ('f', 'w', 'G', 1, 1, 1, 'bf16', 'x', 1, 'samples_per_s', 1, '2026-11-01T23:00-02:00', '', '{}')");
  ASSERT_TRUE(Migrate(d).ok());
  auto at = [&](const char* kind) {
    gpuplan::db::Statement s(d, "SELECT group_concat(observed_at, '|') FROM prices WHERE kind = ?");
    s.bind(1, kind);
    s.executeStep();
    return s.getColumn(0).getString();
  };
  EXPECT_EQ(at("ondemand"), "2026-11-01T16:28:00Z|2026-11-01T17:23:00Z");
  EXPECT_EQ(at("spot"), "2026-11-01T15:30:00Z");
  EXPECT_EQ(at("reserved_1y"), "2026-11-01");
  EXPECT_EQ(at("reserved_3y"), "2026-11-01");
  EXPECT_EQ(d.execAndGet("SELECT price_per_hour FROM current_prices WHERE kind = 'ondemand'").getDouble(), 20);
  EXPECT_EQ(d.execAndGet("SELECT as_of FROM fx_rates").getString(), "2026-11-01");
  EXPECT_EQ(d.execAndGet("SELECT measured_on FROM measurements").getString(), "2026-11-02T01:00:00Z");
}

TEST(DatabaseTest, ForeignKeysRejectAnInstanceOfAnUnknownGpu) {
  auto db = OpenDatabase(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(Migrate(**db).ok());
  (*db)->exec("INSERT INTO clouds (id, name, default_currency) VALUES ('x', 'X', 'USD')");
  EXPECT_THROW((*db)->exec("INSERT INTO instance_types (cloud, id, gpu_id, gpu_count) "
                           "VALUES ('x', 'big', 'NO-SUCH-GPU', 8)"),
               gpuplan::db::SqlError);
}

TEST(ConnectionPoolTest, HandsOutEachConnectionToOneHolderAtATime) {
  testing::TempDir dir;
  auto pool = ConnectionPool::Open(dir.File("p.db"), 2);
  ASSERT_TRUE(pool.ok());
  auto a = (*pool)->Acquire();
  auto b = (*pool)->Acquire();
  EXPECT_NE(&*a, &*b);
  gpuplan::db::Connection* first = &*a;
  { auto moved = std::move(a); }  // released
  auto c = (*pool)->Acquire();
  EXPECT_EQ(&*c, first);
}

}  // namespace
}  // namespace gpuplan::db
