#include "db/catalog_import.h"

#include <gtest/gtest.h>

#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/sql.h"
#include "tests/db/seeded_db_test.h"

namespace gpuplan::db {
namespace {

using CatalogImportTest = SeededDbTest;

TEST_F(CatalogImportTest, AFailingRowRollsBackTheWholeImport) {
  CatalogBatch batch;
  batch.instance_types = {TestType("ok", "T4"), TestType("broken", "NO-SUCH-GPU")};
  batch.prices.push_back({"test", "ok", "r1", "", "ondemand", 1.0, "USD", "2026-01-01", ""});
  int prices = Count("SELECT COUNT(*) FROM prices");
  auto result = ImportCatalog(*db_, batch, ImportOptions{"test", "skypilot", "test"});
  ASSERT_FALSE(result.ok());
  // The foreign-key violation names the import and leaks no SQLite text.
  EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(result.error().message.find("refers to a record that does not exist"), std::string::npos)
      << result.error().message;
  EXPECT_EQ(result.error().message.find("constraint"), std::string::npos) << result.error().message;
  EXPECT_EQ(Count("SELECT COUNT(*) FROM instance_types WHERE cloud = 'test'"), 0);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM prices"), prices);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM clouds WHERE id = 'test'"), 0);
}

TEST_F(CatalogImportTest, RejectedRowsRefuseTheImportUnlessPartial) {
  CatalogBatch batch;
  batch.instance_types = {TestType("ok", "T4")};
  batch.report.Reject(3, "Price 'x' is not a number");
  auto refused = ImportCatalog(*db_, batch, ImportOptions{"test", "skypilot", "test"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().fields.at(0).field, "line 3");
  EXPECT_EQ(Count("SELECT COUNT(*) FROM instance_types WHERE cloud = 'test'"), 0);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM imports WHERE actor = 'test'"), 1);  // audited anyway
  auto partial = ImportCatalog(*db_, batch, ImportOptions{"test", "skypilot", "test", false, true});
  ASSERT_TRUE(partial.ok());
  EXPECT_TRUE(partial->written);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM instance_types WHERE cloud = 'test'"), 1);
}

TEST_F(CatalogImportTest, DryRunWritesNothingButCounts) {
  CatalogBatch batch;
  batch.instance_types = {TestType("a", "T4"), TestType("b", "L4")};
  auto dry = ImportCatalog(*db_, batch, ImportOptions{"test", "skypilot", "test", true, false});
  ASSERT_TRUE(dry.ok());
  EXPECT_FALSE(dry->written);
  EXPECT_EQ(dry->counts.instance_types.inserted, 2);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM instance_types WHERE cloud = 'test'"), 0);
}

}  // namespace
}  // namespace gpuplan::db
