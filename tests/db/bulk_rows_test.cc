// BulkInsert and ExistingKeys give what one statement per row gives, on the backend this run
// tests (SQLite, or PostgreSQL under make test-postgres): chunk edges, a key repeated within
// a batch (the later row wins), NULLs, reals and integers.
#include "db/bulk_rows.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace gpuplan::db
