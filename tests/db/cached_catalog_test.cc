// The per-generation catalog snapshot: shared by connections to one file, refreshed by any
// write, and never shared between in-memory databases (each is private to its connection).
#include "db/cached_catalog.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "db/catalog_admin.h"
#include "db/catalog_writer.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/sql.h"
#include "db/write_transaction.h"
#include "tests/testing/temp_dir.h"

namespace gpuplan::db {
namespace {

std::unique_ptr<gpuplan::db::Connection> Seeded(const std::string& path) {
  auto db = OpenDatabase(path);
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(Migrate(**db).ok());
  EXPECT_TRUE(SeedIfEmpty(**db).ok());
  return std::move(db).value();
}

void SetMemory(gpuplan::db::Connection& db, const std::string& id, double gb) {
  auto gpu = CatalogStore(db).GetGpu(id);
  ASSERT_TRUE(gpu.ok());
  gpu->memory_gb = gb;
  gpuplan::db::Transaction tx(db);
  UpsertGpu(db, *gpu);
  tx.commit();
}

TEST(CachedCatalogTest, InMemoryCatalogsAreNeverShared) {
  auto a = Seeded(":memory:");
  auto b = Seeded(":memory:");
  EXPECT_EQ(DatabaseKey(*a), "");
  SetMemory(*a, "T4", 17);  // both now at the same generation number...
  SetMemory(*b, "T4", 33);
  ASSERT_EQ(CatalogGeneration(*a), CatalogGeneration(*b));
  CachedCatalog ca(*a), cb(*b);  // ...but each answers from its own database
  EXPECT_EQ(ca.GetGpu("T4")->memory_gb, 17);
  EXPECT_EQ(cb.GetGpu("T4")->memory_gb, 33);
}

TEST(CachedCatalogTest, AWriteIsSeenByTheNextRequestOnAnyConnection) {
  testing::TempDir dir;
  std::string path = dir.File("c.db");
  auto writer = Seeded(path);
  auto reader = OpenDatabase(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(CachedCatalog(**reader).GetGpu("T4")->memory_gb, 16);
  SetMemory(*writer, "T4", 24);
  EXPECT_EQ(CachedCatalog(**reader).GetGpu("T4")->memory_gb, 24);
  // Unknown ids are still kNotFound through the snapshot.
  EXPECT_EQ(CachedCatalog(**reader).GetGpu("NO-SUCH").error().code, ErrorCode::kNotFound);
}

// The middleware reads the state once for a catalog read's ETag: the request's catalog
// answers from that generation (the ETag names what is served), and the next request
// reads the state again.
TEST(CachedCatalogTest, ARequestReadsTheCatalogStateOnce) {
  testing::TempDir dir;
  std::string path = dir.File("c.db");
  auto writer = Seeded(path);
  auto pool = ConnectionPool::Open(path, 1);
  ASSERT_TRUE(pool.ok());
  {
    auto lease = (*pool)->Acquire();
    EXPECT_EQ(CachedCatalog(lease).GetGpu("T4")->memory_gb, 16);  // this generation's snapshot
    CatalogState state = ReadRequestCatalogState(lease);
    EXPECT_EQ(state.generation, CatalogGeneration(*writer));
    SetMemory(*writer, "T4", 24);  // a write after the request read the state
    EXPECT_EQ(CachedCatalog(lease).GetGpu("T4")->memory_gb, 16);
    ForgetRequestCatalogState();  // the request's end
    EXPECT_EQ(CachedCatalog(lease).GetGpu("T4")->memory_gb, 24);
  }
}

// The server trusts a state it read for a while (SetCatalogStateMaxAge): a write through
// this process is seen by the next request whatever the age, a write by another process
// (here: a plain SQLite transaction, which does not count in LocalCommits) only once the
// state kept is older than the bound.
TEST(CachedCatalogTest, AKeptStateSeesThisProcesssWritesAtOnceAndOthersAfterTheBound) {
  struct MaxAge {  // process-wide: back to "read on every request" whatever happens
    explicit MaxAge(std::chrono::microseconds age) { SetCatalogStateMaxAge(age); }
    ~MaxAge() { SetCatalogStateMaxAge(std::chrono::microseconds(0)); }
  };
  testing::TempDir dir;
  std::string path = dir.File("c.db");
  auto other_process = Seeded(path);
  auto pool = ConnectionPool::Open(path, 1);
  ASSERT_TRUE(pool.ok());
  auto memory = [&] {
    auto lease = (*pool)->Acquire();
    return CachedCatalog(lease).GetGpu("T4")->memory_gb;
  };
  {
    MaxAge trusted(std::chrono::hours(1));
    EXPECT_EQ(memory(), 16);
    SetMemory(*other_process, "T4", 24);
    EXPECT_EQ(memory(), 16);  // within the bound: the kept state, the kept snapshot
    auto gpu = CatalogStore(*other_process).GetGpu("T4");
    ASSERT_TRUE(gpu.ok());
    gpu->memory_gb = 32;
    unsigned long long commits = LocalCommits();
    ASSERT_TRUE(CatalogAdmin(*other_process).PutGpu(*gpu).ok());  // a WriteTransaction
    EXPECT_EQ(LocalCommits(), commits + 1);
    EXPECT_EQ(memory(), 32);  // seen at once
  }
  {
    MaxAge short_bound(std::chrono::milliseconds(20));
    EXPECT_EQ(memory(), 32);
    SetMemory(*other_process, "T4", 40);
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    EXPECT_EQ(memory(), 40);  // past the bound: read again
  }
  SetMemory(*other_process, "T4", 48);
  EXPECT_EQ(memory(), 48);  // the default: every request reads the state
}

}  // namespace
}  // namespace gpuplan::db
