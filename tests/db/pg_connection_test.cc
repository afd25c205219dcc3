// The PostgreSQL connection against a real server (make test-postgres; skipped on SQLite):
// a statement run again is prepared on the server, and a reconnect - after the server ended
// the session - starts without those prepared statements rather than failing on them.
#include "db/pg_connection.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <poll.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/testing/temp_dir.h"
#include "tests/testing/test_database.h"

namespace gpuplan::db {
namespace {

using ::gpuplan::testing::TempDir;
using ::gpuplan::testing::TestDatabase;

long long Prepared(Connection& db) {
  return db.execAndGet("SELECT count(*) FROM pg_prepared_statements").getInt64();
}

// Runs `SELECT ?1 + 1` twice on `db`, each time with a fresh Statement, then a loop of three
// runs; returns the last value.
long long RunTwiceAndLoop(Connection& db) {
  Statement loop(db, "SELECT ? + 1");
  long long last = 0;
  for (long long i = 0; i < 3; ++i) {
    loop.bind(1, i);
    EXPECT_TRUE(loop.executeStep());
    last = loop.getColumn(0).getInt64();
    loop.reset();
  }
  return last;
}

TEST(PgConnectionTest, AStatementRunAgainIsPreparedOnceAndSurvivesAReconnect) {
  if (!::gpuplan::testing::OnPostgres()) GTEST_SKIP() << "needs PostgreSQL: make test-postgres";
  TempDir dir;
  TestDatabase database(dir, TestDatabase::Start::kEmpty);
  PgConnection db(database.url());
  EXPECT_EQ(Prepared(db), 0);
  EXPECT_EQ(RunTwiceAndLoop(db), 3);
  EXPECT_EQ(Prepared(db), 1) << "the loop's second run prepares it";
  EXPECT_EQ(RunTwiceAndLoop(db), 3);
  EXPECT_EQ(Prepared(db), 1) << "a later Statement with the same text reuses it";
  {
    Statement text(db, "SELECT ? || 'x'");  // another parameter type: its own
    for (int i = 0; i < 2; ++i) {
      text.bind(1, "a");
      ASSERT_TRUE(text.executeStep());
      EXPECT_EQ(text.getColumn(0).getString(), "ax");
      text.reset();
    }
  }
  EXPECT_EQ(Prepared(db), 2);

  // The server ends this session (as a restart does); the next lease reconnects.
  const long long pid = db.execAndGet("SELECT pg_backend_pid()").getInt64();
  PgConnection admin(database.url());
  admin.exec("SELECT pg_terminate_backend(" + std::to_string(pid) + ")");
  const std::string gone =
      "SELECT count(*) FROM pg_stat_activity WHERE pid = " + std::to_string(pid);
  for (int i = 0; i < 500 && admin.execAndGet(gone).getInt64() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // And until its FATAL has reached this connection's socket (on a loaded machine loopback
  // delivery may lag the other connection's answer): the probe sees what has arrived.
  pollfd fd{PQsocket(db.handle()), POLLIN, 0};
  ASSERT_EQ(poll(&fd, 1, 5000), 1) << "the server's FATAL never arrived";
  db.Reconnect();  // sees the closed socket without a failing statement
  EXPECT_TRUE(db.Connected());
  EXPECT_NE(db.execAndGet("SELECT pg_backend_pid()").getInt64(), pid);
  EXPECT_EQ(Prepared(db), 0);
  EXPECT_EQ(RunTwiceAndLoop(db), 3) << "prepared again in the new session";
  EXPECT_EQ(Prepared(db), 1);
}

}  // namespace
}  // namespace gpuplan::db
