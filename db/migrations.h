// Numbered, forward-only schema migrations tracked in PRAGMA user_version. Each
// migration runs in its own transaction together with the version bump.
#pragma once

#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

// The schema version this build knows (the number of migrations).
int LatestSchemaVersion();

// The database's current PRAGMA user_version.
int SchemaVersion(Connection& db);

// Applies every migration above the database's version. Fails with kUnavailable if
// the database is newer than this build or a statement fails (nothing is half-applied).
Status Migrate(Connection& db);
// The same up to `target` only (at most LatestSchemaVersion()): a database as an older
// build left it, for tests of the migrations that follow.
Status MigrateTo(Connection& db, int target);

}  // namespace gpuplan::db
