// BulkInsert and ExistingKeys give what one statement per row gives, on the backend this run
// tests (SQLite, or PostgreSQL under make test-postgres): chunk edges, a key repeated within
// a batch (the later row wins), NULLs, reals and integers.
#include "db/bulk_rows.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "db/catalog_batch.h"
#include "db/catalog_writer.h"
#include "db/database.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_database.h"

namespace gpuplan::db {
namespace {

using ::gpuplan::testing::TempDir;
using ::gpuplan::testing::TestDatabase;

class BulkRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = OpenDatabase(database_.url());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    db_ = std::move(opened).value();
    db_->exec("CREATE TABLE bulk_t (a TEXT NOT NULL, b TEXT NOT NULL, v DOUBLE PRECISION, "
              "n INTEGER, UNIQUE (a, b))");
  }
  long long Count(const std::string& where) {
    return db_->execAndGet("SELECT COUNT(*) FROM bulk_t WHERE " + where).getInt64();
  }
  BulkInsert Upsert() {
    return BulkInsert(*db_, "INSERT INTO bulk_t (a, b, v, n)", 4,
                      "ON CONFLICT (a, b) DO UPDATE SET v = excluded.v, n = excluded.n");
  }

  TempDir dir_;
  TestDatabase database_{dir_, TestDatabase::Start::kEmpty};
  std::unique_ptr<Connection> db_;
};

TEST_F(BulkRowsTest, WritesEveryRowAcrossChunkEdges) {
  for (int rows : {1, kBulkRows - 1, kBulkRows, kBulkRows + 1, 2 * kBulkRows + 7}) {
    db_->exec("DELETE FROM bulk_t");
    BulkInsert upsert = Upsert();
    for (int i = 0; i < rows; ++i) {
      upsert.Add("k" + std::to_string(i),
                 {std::string("x"), "k" + std::to_string(i), 0.5 * i,
                  i % 3 ? SqlValue(static_cast<long long>(i)) : SqlValue()});
    }
    upsert.Flush();
    EXPECT_EQ(Count("1 = 1"), rows) << rows << " rows";
    EXPECT_EQ(Count("n IS NULL"), (rows + 2) / 3) << rows << " rows";
    const int last = rows - 1;
    EXPECT_EQ(db_->execAndGet("SELECT v FROM bulk_t WHERE b = 'k" + std::to_string(last) + "'")
                  .getDouble(),
              0.5 * last);
  }
}

TEST_F(BulkRowsTest, ARepeatedKeyIsWrittenInOrderSoTheLaterRowWins) {
  BulkInsert upsert = Upsert();
  upsert.Add("same", {std::string("x"), std::string("same"), 1.0, 1LL});
  upsert.Add("other", {std::string("x"), std::string("other"), 2.0, 2LL});
  upsert.Add("same", {std::string("x"), std::string("same"), 3.0, 3LL});  // PostgreSQL would
  upsert.Flush();  // refuse one statement that updates a row twice
  EXPECT_EQ(Count("1 = 1"), 2);
  EXPECT_EQ(db_->execAndGet("SELECT n FROM bulk_t WHERE b = 'same'").getInt64(), 3);
}

TEST_F(BulkRowsTest, UnflushedRowsAreNotWritten) {
  {
    BulkInsert upsert = Upsert();
    upsert.Add("a", {std::string("x"), std::string("a"), 1.0, 1LL});
  }
  EXPECT_EQ(Count("1 = 1"), 0);
}

TEST_F(BulkRowsTest, ARowOfTheWrongWidthIsRefused) {
  BulkInsert upsert = Upsert();
  EXPECT_THROW(upsert.Add("a", {std::string("x")}), SqlError);
}

TEST_F(BulkRowsTest, ExistingKeysFindsExactlyTheHeldKeysAcrossChunks) {
  BulkInsert upsert = Upsert();
  for (int i = 0; i < 3 * kBulkRows; i += 2) {  // the even keys
    upsert.Add(std::to_string(i), {std::string("x"), std::to_string(i), 1.0, SqlValue()});
  }
  upsert.Flush();
  std::vector<std::vector<std::string>> keys;
  for (int i = 0; i < 3 * kBulkRows + 5; ++i) keys.push_back({"x", std::to_string(i)});
  keys.push_back({"y", "0"});         // the right id in another "a"
  keys.push_back({"x", "0"});         // asked twice: found once
  keys.push_back({"x", "1' OR '1"});  // a value, never SQL
  auto held = ExistingKeys(*db_, "bulk_t", {"a", "b"}, keys);
  EXPECT_EQ(held.size(), static_cast<size_t>(3 * kBulkRows / 2));
  for (int i = 0; i < 3 * kBulkRows + 5; ++i) {
    EXPECT_EQ(held.count({"x", std::to_string(i)}), i % 2 == 0 && i < 3 * kBulkRows ? 1u : 0u) << i;
  }
  EXPECT_TRUE(ExistingKeys(*db_, "bulk_t", {"a", "b"}, {}).empty());
  EXPECT_THROW(ExistingKeys(*db_, "bulk_t", {"a", "b"}, {{"x"}}), SqlError);
}

// WriteCatalogBatch counts a row as updated when the catalog held its key before the write
// or an earlier row of the same batch wrote it, across chunk edges, and the later of two
// rows with one key is what the catalog keeps.
TEST(CatalogWriterBulkTest, CountsAndLaterRowsHoldAcrossChunksAndRepeatedKeys) {
  TempDir dir;
  TestDatabase database(dir, TestDatabase::Start::kSeeded);
  auto opened = OpenDatabase(database.url());
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  Connection& db = **opened;
  const std::string gpu = db.execAndGet("SELECT id FROM gpus ORDER BY id LIMIT 1").getString();
  ASSERT_FALSE(gpu.empty());
  db.exec("INSERT INTO clouds (id, name, default_currency) VALUES ('bulk', 'bulk', 'USD')");
  db.exec("INSERT INTO instance_types (cloud, id, gpu_id, gpu_count, interconnect) "
          "VALUES ('bulk', 'b.0', '" + gpu + "', 1, 'none')");  // held before the write

  CatalogBatch batch;
  const int types = 2 * kBulkRows + 50;
  for (int i = 0; i < types; ++i) {
    InstanceType t;
    t.cloud = "bulk";
    t.id = "b." + std::to_string(i);
    t.gpu_id = gpu;
    t.gpu_count = 1 + i % 4;
    if (i % 3) t.vcpus = 8.0 * t.gpu_count;  // NULL for every third
    batch.instance_types.push_back(t);
    PriceObservation p;
    p.cloud = "bulk";
    p.instance_type = t.id;
    p.region = "r1";
    p.kind = "ondemand";
    p.price_per_hour = 1.0 + i;
    p.currency = "USD";
    p.observed_at = "2026-11-01T00:00:00Z";
    batch.prices.push_back(p);
  }
  // Repeats, one of them in the next chunk: the later row wins and counts as updated.
  InstanceType again = batch.instance_types[7];
  again.gpu_count = 8;
  batch.instance_types.push_back(again);
  PriceObservation repriced = batch.prices[kBulkRows + 3];
  repriced.price_per_hour = 99.5;
  batch.prices.push_back(repriced);

  Transaction tx(db, TransactionKind::kWrite);
  BatchCounts counts = WriteCatalogBatch(db, batch);
  tx.commit();
  EXPECT_EQ(counts.instance_types.inserted, types - 1);
  EXPECT_EQ(counts.instance_types.updated, 2);  // b.0 held before; b.7 written twice
  EXPECT_EQ(counts.prices.inserted, types);
  EXPECT_EQ(counts.prices.updated, 1);
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM instance_types WHERE cloud = 'bulk'").getInt64(),
            types);
  EXPECT_EQ(db.execAndGet("SELECT gpu_count FROM instance_types WHERE id = 'b.7'").getInt64(), 8);
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM instance_types WHERE cloud = 'bulk' AND "
                          "vcpus IS NULL").getInt64(),
            (types + 2) / 3);
  EXPECT_EQ(db.execAndGet("SELECT price_per_hour FROM prices WHERE instance_type = 'b." +
                          std::to_string(kBulkRows + 3) + "'").getDouble(),
            99.5);

  Transaction again_tx(db, TransactionKind::kWrite);
  BatchCounts second = WriteCatalogBatch(db, batch);  // the same batch: every row is held
  again_tx.commit();
  EXPECT_EQ(second.instance_types.inserted, 0);
  EXPECT_EQ(second.instance_types.updated, types + 1);
  EXPECT_EQ(second.prices.inserted, 0);
  EXPECT_EQ(second.prices.updated, types + 1);
}

}  // namespace
}  // namespace gpuplan::db
