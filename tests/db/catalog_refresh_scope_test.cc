// A refresh writes what the SkyPilot parser found besides prices: a cloud's price scope (one
// price in every region, or per region) moves with the refreshed file, and the data-error
// corrections are counted in the refresh's report.
#include <gtest/gtest.h>

#include "db/catalog_refresh.h"
#include "db/text.h"
#include "tests/db/seeded_db_test.h"

namespace gpuplan::db {
namespace {

class CatalogRefreshScopeTest : public SeededDbTest {
 protected:
  std::string Scope(const std::string& cloud) {
    gpuplan::db::Statement s(*db_, "SELECT price_scope FROM clouds WHERE id = ?");
    s.bind(1, cloud);
    return s.executeStep() ? s.getColumn(0).getString() : "";
  }
};

TEST_F(CatalogRefreshScopeTest, ARefreshMovesTheCloudsPriceScopeAndCountsCorrections) {
  ASSERT_EQ(Scope("lambda"), "cloud");  // the seeded file lists one price everywhere
  gpuplan::db::Statement any(*db_,
                        "SELECT instance_type, region, price_per_hour, currency FROM current_prices "
                        "WHERE cloud = 'lambda' AND kind = 'ondemand' LIMIT 1");
  ASSERT_TRUE(any.executeStep());
  CloudCatalog lambda;
  lambda.cloud = "lambda";
  lambda.origin = "test";
  PriceObservation p;
  p.cloud = "lambda";
  p.instance_type = any.getColumn(0).getString();
  p.region = any.getColumn(1).getString();
  p.kind = "ondemand";
  p.price_per_hour = any.getColumn(2).getDouble() * 1.5;
  p.currency = any.getColumn(3).getString();
  p.observed_at = UtcNow();  // newer than the seed's date: the current price
  p.source = "refresh test";
  lambda.batch.prices.push_back(p);
  lambda.batch.price_scopes["lambda"] = "region";  // the newer file prices per region
  lambda.batch.report.rows_read = 1;
  lambda.batch.report.rows_used = 1;
  lambda.batch.report.Correct("price 0.0 read as missing, not free");

  auto done = RefreshCatalog(*db_, {lambda}, "test");
  ASSERT_TRUE(done.ok()) << done.error().message << " " << (done.error().fields.empty() ? "" : done.error().fields[0].field + ": " + done.error().fields[0].detail);
  EXPECT_EQ(Scope("lambda"), "region");
  EXPECT_EQ(done->import.report.corrected_by_reason.at("lambda: price 0.0 read as missing, not free"), 1)
      << "the refresh's report keeps the parser's corrections";
}

}  // namespace
}  // namespace gpuplan::db
