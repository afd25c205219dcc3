// A test fixture for db/ tests that need the catalog a fresh `make run` serves: an
// in-memory database, migrated and seeded, one per test.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "db/catalog_types.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/sql.h"
#include "tests/testing/seeded_template.h"

namespace gpuplan::db {

class SeededDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = OpenDatabase(":memory:");
    ASSERT_TRUE(opened.ok());
    db_ = std::move(opened).value();
    if (::gpuplan::testing::CopySeededTemplate(*db_)) return;  // what the next two write
    ASSERT_TRUE(Migrate(*db_).ok());
    ASSERT_TRUE(SeedIfEmpty(*db_).ok());
  }
  // The one value `sql` selects.
  long long Count(const std::string& sql) { return db_->execAndGet(sql).getInt64(); }
  // An instance type `id` of one `gpu` in cloud "test".
  static InstanceType TestType(const std::string& id, const std::string& gpu) {
    InstanceType t;
    t.cloud = "test";
    t.id = id;
    t.gpu_id = gpu;
    t.gpu_count = 1;
    t.interconnect = "none";
    return t;
  }

  std::unique_ptr<gpuplan::db::Connection> db_;
};

}  // namespace gpuplan::db
