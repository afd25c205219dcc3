// Values derived from a catalog generation (CachedCatalog::Derived): one request updates
// them while the others go on with the value kept, never waiting on the update while they
// hold a pooled connection (issue 22: a rebuild of the measured-run index after a catalog
// write held every other training estimate).
#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "db/cached_catalog.h"
#include "db/catalog_writer.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/sql.h"
#include "tests/testing/temp_dir.h"

namespace gpuplan::db {
namespace {

struct Probe {
  int value = 0;
};

using ProbePtr = std::shared_ptr<const Probe>;

class CachedCatalogDerivedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("derived.db");
    auto db = OpenDatabase(path_);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(Migrate(**db).ok());
    ASSERT_TRUE(SeedIfEmpty(**db).ok());
    writer_ = std::move(db).value();
  }
  std::unique_ptr<gpuplan::db::Connection> Connect() {
    auto db = OpenDatabase(path_);
    EXPECT_TRUE(db.ok());
    return std::move(db).value();
  }
  void WriteCatalog() {
    auto gpu = CatalogStore(*writer_).GetGpu("T4");
    ASSERT_TRUE(gpu.ok());
    gpuplan::db::Transaction tx(*writer_);
    UpsertGpu(*writer_, *gpu);  // bumps the generation
    tx.commit();
  }
  // The value a request gets when its update (if called) answers `fresh`.
  int Get(gpuplan::db::Connection& db, int fresh) {
    CachedCatalog catalog(db);
    auto v = catalog.Derived<Probe>([&](ProbePtr kept) -> Result<ProbePtr> {
      if (kept && kept->value >= fresh) return kept;
      return std::make_shared<const Probe>(Probe{fresh});
    });
    EXPECT_TRUE(v.ok());
    return v.ok() ? (*v)->value : -1;
  }

  // Starts a request whose update blocks until `release`; returns once it is updating.
  std::future<int> BlockedUpdate(gpuplan::db::Connection& db, std::shared_future<void> release,
                                 int fresh) {
    auto updating = std::make_shared<std::promise<void>>();
    auto started = updating->get_future();
    auto result = std::async(std::launch::async, [&db, release, updating, fresh] {
      CachedCatalog catalog(db);
      auto v = catalog.Derived<Probe>([&](ProbePtr) -> Result<ProbePtr> {
        updating->set_value();
        release.wait();
        return std::make_shared<const Probe>(Probe{fresh});
      });
      return v.ok() ? (*v)->value : -1;
    });
    started.wait();
    return result;
  }

  testing::TempDir dir_;
  std::string path_;
  std::unique_ptr<gpuplan::db::Connection> writer_;
};

TEST_F(CachedCatalogDerivedTest, OthersUseTheKeptValueWhileOneUpdates) {
  auto a = Connect(), b = Connect();
  ASSERT_EQ(Get(*b, 1), 1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto updater = BlockedUpdate(*a, released, 2);
  // Not blocked behind the update (before the fix it waited on the snapshot's mutex).
  auto other = std::async(std::launch::async, [&] { return Get(*b, 3); });
  bool answered = other.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  release.set_value();
  EXPECT_TRUE(answered) << "a request waited for another's update";
  EXPECT_EQ(other.get(), 1);  // the value kept, without what the update adds
  EXPECT_EQ(updater.get(), 2);
  EXPECT_EQ(Get(*b, 2), 2);  // the update is kept once done
}

TEST_F(CachedCatalogDerivedTest, AfterACatalogWriteOthersUseThePreviousGenerationsValue) {
  auto a = Connect(), b = Connect();
  ASSERT_EQ(Get(*b, 1), 1);
  WriteCatalog();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto updater = BlockedUpdate(*a, released, 5);
  auto other = std::async(std::launch::async, [&] { return Get(*b, 7); });
  bool answered = other.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  release.set_value();
  EXPECT_TRUE(answered) << "a request waited for the new generation's value";
  EXPECT_EQ(other.get(), 1);  // the previous generation's
  EXPECT_EQ(updater.get(), 5);
  EXPECT_EQ(Get(*b, 5), 5);
}

TEST_F(CachedCatalogDerivedTest, ANewGenerationUpdatesFromNothing) {
  auto a = Connect();
  ASSERT_EQ(Get(*a, 4), 4);
  WriteCatalog();
  CachedCatalog catalog(*a);
  bool had_kept = true;
  auto v = catalog.Derived<Probe>([&](ProbePtr kept) -> Result<ProbePtr> {
    had_kept = kept != nullptr;
    return std::make_shared<const Probe>(Probe{1});
  });
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(had_kept);  // the previous generation's value is no basis for an update
  EXPECT_EQ((*v)->value, 1);
}

}  // namespace
}  // namespace gpuplan::db
