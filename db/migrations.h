// Numbered, forward-only schema migrations: one list for every backend. SQLite tracks the
// version in PRAGMA user_version and runs each migration in its own transaction with the
// version bump; PostgreSQL tracks it in the table schema_version and runs every pending
// migration in one transaction under an advisory lock, so replicas starting at once migrate
// once. A migration's PostgreSQL text is its SQLite text with the types PostgreSQL spells
// differently (REAL is DOUBLE PRECISION, an INTEGER PRIMARY KEY an identity, TEXT compares
// byte-wise as SQLite's does), or its own text where SQL must differ.
#pragma once

#include <string>
#include <string_view>

#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

// The schema version this build knows (the number of migrations).
int LatestSchemaVersion();

// The database's schema version (0 for a new database). Throws SqlError.
int SchemaVersion(Connection& db);

// The PostgreSQL DDL for a migration written in SQLite's dialect (see above). Pure.
std::string PostgresDdl(std::string_view sqlite_sql);

// Held while a process prepares the database (migrates and seeds it): on PostgreSQL a
// session advisory lock that other replicas wait for (up to kWait, not the 5 s lock
// timeout), so the first to start migrates and seeds and the others find it done; nothing
// on SQLite. Throws SqlError (kBusy after kWait).
class StartupLock {
 public:
  static constexpr int kWaitSeconds = 600;
  explicit StartupLock(Connection& db);
  ~StartupLock();
  StartupLock(const StartupLock&) = delete;
  StartupLock& operator=(const StartupLock&) = delete;

 private:
  Connection& db_;
  bool held_ = false;
};

// Applies every migration above the database's version. Fails with kUnavailable if
// the database is newer than this build or a statement fails (nothing is half-applied).
Status Migrate(Connection& db);
// The same up to `target` only (at most LatestSchemaVersion()): a database as an older
// build left it, for tests of the migrations that follow.
Status MigrateTo(Connection& db, int target);

}  // namespace gpuplan::db
