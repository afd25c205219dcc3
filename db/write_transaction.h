// How every catalog write talks to SQLite: one BEGIN IMMEDIATE transaction (the write
// lock is taken at the start, so the connection's busy timeout applies instead of an
// immediate SQLITE_BUSY_SNAPSHOT when a read turns into a write), and one mapping of
// SQLite failures to errors that name the item and leak no SQLite text:
//   busy/locked after the busy timeout -> kUnavailable (the api answers 503 + Retry-After)
//   UNIQUE / PRIMARY KEY               -> kConflict   ("<item> exists already")
//   FOREIGN KEY                        -> kInvalidArgument ("<item> refers to ... missing")
//   CHECK / NOT NULL                   -> kInvalidArgument ("<item> has a value ... refused")
//   anything else                      -> kUnavailable ("the database could not ...")
// SQLite's own text never reaches an answer: it goes to the storage log (SetStorageLog).
// A write transaction does not start on a database file that was deleted or replaced
// while open (DatabaseFileMoved): the write would vanish at the next start.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Transaction.h>

#include <string>

#include "model/result.h"

namespace gpuplan::db {

class WriteTransaction {
 public:
  // Throws SQLite::Exception (SQLITE_IOERR) when the file was deleted or replaced, or when
  // BEGIN IMMEDIATE fails.
  explicit WriteTransaction(SQLite::Database& db)
      : tx_(StillOpenFile(db), SQLite::TransactionBehavior::IMMEDIATE) {}
  // Throws SQLite::Exception. Once committed, counts in LocalCommits.
  void commit();

 private:
  static SQLite::Database& StillOpenFile(SQLite::Database& db);
  SQLite::Transaction tx_;
};

// Write transactions committed by this process so far (every file; monotonic). A reader
// that keeps what it read (db/cached_catalog.h) reads this before it reads the database and
// reads the database again when it has changed. Thread-safe.
unsigned long long LocalCommits();

// Where SQLite's text of a failure goes (the server installs its logger); by default
// nowhere. Set once at start, before requests are served.
void SetStorageLog(void (*log)(const std::string& what));

// The error of a failed read or probe: kUnavailable "the catalog is busy ..." for
// busy/locked, else a fixed "the database cannot answer now" (the text goes to the log).
Error StorageFailure(const SQLite::Exception& e);

// Runs `work` (a callable returning Result<T> or Status), and answers StorageFailure when it
// throws SQLite::Exception: the one guard of reads, and of writes whose failure names no item
// (API keys). Writes of catalog items answer StorageError instead, which names the item.
template <typename Work>
auto GuardSqlite(Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const SQLite::Exception& e) {
    return StorageFailure(e);
  }
}

// `item` names what was being written, e.g. "instance type 'p5.48xlarge' in cloud 'aws'"
// or "/prices/3"; `field` (optional) is the field the error is attached to.
Error StorageError(const SQLite::Exception& e, const std::string& item,
                   const std::string& field = "");

// True for SQLITE_BUSY and SQLITE_LOCKED (and their extended codes).
bool IsBusy(const SQLite::Exception& e);
// True when the file or the disk failed, not the statement: SQLITE_CORRUPT, NOTADB, IOERR,
// CANTOPEN, FULL, READONLY (the api answers 503, never 500).
bool IsStorageFault(const SQLite::Exception& e);

}  // namespace gpuplan::db
