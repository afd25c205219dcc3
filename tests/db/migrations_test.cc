#include "db/migrations.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "db/database.h"
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
    EXPECT_TRUE((*db)->tableExists(table)) << table;
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
    SQLite::Statement s(**db, "SELECT 1 FROM pragma_table_info('gpus') WHERE name = 'launch_price_usd'");
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
               SQLite::Exception);
}

TEST(DatabaseTest, OpensFilesInWalModeWithForeignKeys) {
  testing::TempDir dir;
  auto db = OpenDatabase(dir.File("x.db"));
  ASSERT_TRUE(db.ok());
  EXPECT_EQ((*db)->execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ((*db)->execAndGet("PRAGMA foreign_keys").getInt(), 1);
  EXPECT_GT((*db)->execAndGet("PRAGMA busy_timeout").getInt(), 0);
}

TEST(DatabaseTest, ForeignKeysRejectAnInstanceOfAnUnknownGpu) {
  auto db = OpenDatabase(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(Migrate(**db).ok());
  (*db)->exec("INSERT INTO clouds (id, name, default_currency) VALUES ('x', 'X', 'USD')");
  EXPECT_THROW((*db)->exec("INSERT INTO instance_types (cloud, id, gpu_id, gpu_count) "
                           "VALUES ('x', 'big', 'NO-SUCH-GPU', 8)"),
               SQLite::Exception);
}

TEST(ConnectionPoolTest, HandsOutEachConnectionToOneHolderAtATime) {
  testing::TempDir dir;
  auto pool = ConnectionPool::Open(dir.File("p.db"), 2);
  ASSERT_TRUE(pool.ok());
  auto a = (*pool)->Acquire();
  auto b = (*pool)->Acquire();
  EXPECT_NE(&*a, &*b);
  SQLite::Database* first = &*a;
  { auto moved = std::move(a); }  // released
  auto c = (*pool)->Acquire();
  EXPECT_EQ(&*c, first);
}

}  // namespace
}  // namespace gpuplan::db
