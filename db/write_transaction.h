// How every catalog write talks to the database: one transaction of TransactionKind::kWrite
// (db/sql.h: writers serialised; on SQLite the write lock is taken at the start, so the
// connection's busy timeout applies instead of an immediate SQLITE_BUSY_SNAPSHOT when a read
// turns into a write), and one mapping of
// SqlError kinds (db/sql.h) to errors that name the item and leak no database text:
//   kBusy (after the busy timeout)     -> kUnavailable (the api answers 503 + Retry-After)
//   kUnique                            -> kConflict   ("<item> exists already")
//   kForeignKey                        -> kInvalidArgument ("<item> refers to ... missing")
//   kConstraint (CHECK / NOT NULL)     -> kInvalidArgument ("<item> has a value ... refused")
//   anything else                      -> kUnavailable ("the database could not ...")
// The database's own text never reaches an answer: it goes to the storage log (SetStorageLog).
// A write transaction does not start on a database file that was deleted or replaced
// while open (DatabaseFileMoved): the write would vanish at the next start.
#pragma once

#include <array>
#include <string>

#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

class WriteTransaction {
 public:
  // Throws SqlError (kStorage) when the SQLite file was deleted or replaced, or when
  // BEGIN fails.
  explicit WriteTransaction(Connection& db)
      : db_(db), tx_(StillOpenFile(db), TransactionKind::kWrite) {}
  // Throws SqlError. Once committed, counts in LocalCommits (and, on PostgreSQL, in
  // WriteCommits: the count is bumped in the transaction, just before COMMIT).
  void commit();

 private:
  static Connection& StillOpenFile(Connection& db);
  Connection& db_;
  Transaction tx_;
};

// Write transactions committed by this process so far (every file; monotonic). A reader
// that keeps what it read (db/cached_catalog.h) reads this before it reads the database and
// reads the database again when it has changed. Thread-safe.
unsigned long long LocalCommits();

// After a bulk write (a seed, an import) has committed: PostgreSQL's ANALYZE, so that the
// planner's row counts follow the catalog (without them a freshly seeded catalog is planned
// as if its tables held a few rows: nested loops over thousands of offers, seconds per
// query) rather than waiting for autovacuum. Nothing on SQLite. Never throws: a failure
// goes to the storage log and only costs speed.
void RefreshPlannerStatistics(Connection& db);

// A number that changes when another connection commits a write, and not when this
// connection's own open transaction writes: SQLite's PRAGMA data_version; on PostgreSQL the
// count of WriteTransactions committed (catalog_meta 'commits'). Throws SqlError.
long long WriteCommits(Connection& db);

// Where the database's text of a failure goes (the server installs its logger); by default
// nowhere. Set once at start, before requests are served.
void SetStorageLog(void (*log)(const std::string& what));
// Sends a database's own message to the storage log: PostgreSQL's warnings and notices
// (db/pg_connection.h); to stderr while none is set (CLI commands, a server's start before
// it installs its log). Thread-safe.
void LogStorageMessage(const std::string& what);

// The error of a failed read or probe: kUnavailable "the catalog is busy ..." for
// busy/locked, else a fixed "the database cannot answer now" (the text goes to the log).
Error StorageFailure(const SqlError& e);

// Runs `work` (a callable returning Result<T> or Status), and answers StorageFailure when it
// throws SqlError: the one guard of reads, and of writes whose failure names no item
// (API keys). Writes of catalog items answer StorageError instead, which names the item.
template <typename Work>
auto GuardSqlite(Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const SqlError& e) {
    return StorageFailure(e);
  }
}

// `item` names what was being written, e.g. "instance type 'p5.48xlarge' in cloud 'aws'"
// or "/prices/3"; `field` (optional) is the field the error is attached to.
Error StorageError(const SqlError& e, const std::string& item,
                   const std::string& field = "");

// Database failures that reached an answer (StorageFailure, StorageError, or a caller that
// handles SqlError itself and calls CountSqlError), by SqlError::Kind, since the process
// started; for /metrics. Thread-safe.
inline constexpr int kSqlErrorKinds = 6;
void CountSqlError(const SqlError& e);
std::array<unsigned long long, kSqlErrorKinds> SqlErrorCounts();
// The metric label of a kind: busy, unique, foreign_key, constraint, storage, other.
const char* SqlErrorKindName(int kind);

// True for kBusy: locked or busy past the wait; a retry may succeed.
bool IsBusy(const SqlError& e);
// True for kStorage: the file, the disk or the connection failed, not the statement (the
// api answers 503, never 500).
bool IsStorageFault(const SqlError& e);

}  // namespace gpuplan::db
