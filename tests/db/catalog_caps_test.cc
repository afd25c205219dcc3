#include "db/catalog_caps.h"

#include <gtest/gtest.h>

#include "db/catalog_writer.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/sql.h"
#include "tests/db/seeded_db_test.h"

namespace gpuplan::db {
namespace {

class CatalogCapsTest : public SeededDbTest {
 protected:
  // `n` new instance types "caps.<first>" on, in cloud "test".
  static CatalogBatch Types(int n, int first = 0) {
    CatalogBatch batch;
    for (int i = first; i < first + n; ++i) {
      batch.instance_types.push_back(TestType("caps." + std::to_string(i), "T4"));
    }
    return batch;
  }
  void Write(const CatalogBatch& batch) {
    gpuplan::db::Transaction tx(*db_);
    WriteCatalogBatch(*db_, batch);
    tx.commit();
  }
};

TEST_F(CatalogCapsTest, PrecheckCountsOnlyTheKeysTheBatchAdds) {
  int room = static_cast<int>(kMaxInstanceTypes - Count("SELECT COUNT(*) FROM instance_types"));
  ASSERT_GT(room, 10);
  Write(Types(room - 1));
  CatalogCount counted;
  // Updates of existing types and one new type (twice in the batch): fits exactly.
  CatalogBatch fits = Types(room);
  fits.instance_types.push_back(fits.instance_types.back());
  EXPECT_TRUE(PrecheckCatalogSize(*db_, fits, counted).ok());
  CatalogBatch over = Types(2, room - 1);
  Status refused = PrecheckCatalogSize(*db_, over, counted);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(refused.error().fields.at(0).field, "instance_types");
}

TEST_F(CatalogCapsTest, TheCheckInTheTransactionCatchesAWriteSinceThePrecheck) {
  int room = static_cast<int>(kMaxInstanceTypes - Count("SELECT COUNT(*) FROM instance_types"));
  CatalogBatch mine = Types(1, room);  // the last type of room
  CatalogCount counted;
  ASSERT_TRUE(PrecheckCatalogSize(*db_, mine, counted).ok());
  EXPECT_TRUE(CheckCatalogSize(*db_, mine, counted).ok());  // nothing changed since
  Write(Types(room));  // another writer took all the room meanwhile
  Status refused = CheckCatalogSize(*db_, mine, counted);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().fields.at(0).field, "instance_types");
}

}  // namespace
}  // namespace gpuplan::db
