// Every seeded price carries the date of its source snapshot, as db/seed/seed_sources.csv
// gives it (computed from the embedded files, so it holds when the seed grows).
#include <gtest/gtest.h>

#include "db/csv.h"
#include "db/database.h"
#include "db/field_rules.h"
#include "db/migrations.h"
#include "db/seed_files.h"
#include "db/seeder.h"
#include "db/sql.h"

namespace gpuplan::db {
namespace {

TEST(SeedDatesTest, EverySeededSkypilotPriceHasItsSourcesDate) {
  auto db = OpenDatabase(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(Migrate(**db).ok());
  ASSERT_TRUE(SeedIfEmpty(**db).ok());
  std::string sources_text;
  for (const auto& f : SeedFiles()) {
    if (f.name == "seed_sources.csv") sources_text = std::string(f.content);
  }
  auto sources = ParseCsv(sources_text);
  ASSERT_TRUE(sources.ok());
  int checked = 0;
  for (const CsvRow& row : sources->rows()) {
    auto field = [&](const char* name) {
      return std::string(CsvTable::Field(row, sources->Column(name)));
    };
    if (field("format") != "skypilot") continue;
    gpuplan::db::Statement s(**db, "SELECT COUNT(*), MIN(observed_at), MAX(observed_at) FROM prices "
                              "WHERE source = ?");
    s.bind(1, field("source"));
    ASSERT_TRUE(s.executeStep());
    EXPECT_GT(s.getColumn(0).getInt(), 0) << field("file");
    const std::string dated = rules::CanonicalOrSame(field("observed_at"));
    EXPECT_EQ(s.getColumn(1).getString(), dated) << field("file");
    EXPECT_EQ(s.getColumn(2).getString(), dated) << field("file");
    ++checked;
  }
  EXPECT_GE(checked, 2) << "AWS and GCP at least";
}

}  // namespace
}  // namespace gpuplan::db
