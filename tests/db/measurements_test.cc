#include "db/measurements.h"

#include <gtest/gtest.h>

#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"

namespace gpuplan::db {
namespace {

TEST(MeasurementStoreTest, AfterNewestReadsOnlyTheNewestRuns) {
  auto opened = OpenDatabase(":memory:");
  ASSERT_TRUE(opened.ok());
  auto db = std::move(opened).value();
  ASSERT_TRUE(Migrate(*db).ok());
  ASSERT_TRUE(SeedIfEmpty(*db).ok());
  MeasurementStore store(*db);
  EXPECT_EQ(store.AfterNewest(1).value(), 0);  // none stored
  Measurement run;
  run.family = "encoder";
  run.workload_id = "bert-large";
  run.gpu_id = "T4";
  run.global_batch = 32;
  run.precision = "fp16";
  run.framework = "pytorch";
  run.samples_per_s = run.measured_value = 10;
  run.measured_as = "samples_per_s";
  run.measured_on = "2026-01-01";
  run.request = "{}";
  auto added = store.Add(std::vector<Measurement>(5, run), "/runs/");
  ASSERT_TRUE(added.ok());
  ASSERT_EQ(added->size(), 5u);
  EXPECT_EQ(store.AfterNewest(2).value(), (*added)[3].id - 1);
  EXPECT_EQ(store.AfterNewest(5).value(), (*added)[0].id - 1);
  EXPECT_EQ(store.AfterNewest(db::kMaxIndexedRuns).value(), 0);
  MeasurementQuery q;
  q.every_owner = true;
  q.after_id = store.AfterNewest(2).value();
  EXPECT_EQ(store.List(q)->size(), 2u);
}

}  // namespace
}  // namespace gpuplan::db
