#include "db/write_transaction.h"

#include <sqlite3.h>

#include <atomic>

#include "db/database.h"

namespace gpuplan::db {

namespace {

void (*storage_log)(const std::string&) = nullptr;

std::atomic<unsigned long long> local_commits{0};

void LogStorage(const SQLite::Exception& e) {
  if (storage_log) storage_log(e.what());
}

}  // namespace

void SetStorageLog(void (*log)(const std::string& what)) { storage_log = log; }

void WriteTransaction::commit() {
  tx_.commit();
  local_commits.fetch_add(1, std::memory_order_acq_rel);
}

unsigned long long LocalCommits() { return local_commits.load(std::memory_order_acquire); }

SQLite::Database& WriteTransaction::StillOpenFile(SQLite::Database& db) {
  if (DatabaseFileMoved(db)) {
    throw SQLite::Exception("the database file was deleted or replaced while open", SQLITE_IOERR);
  }
  return db;
}

Error StorageFailure(const SQLite::Exception& e) {
  if (IsBusy(e)) return Error::Unavailable("the catalog is busy with another write; retry shortly");
  LogStorage(e);  // a fault or a bug: either way the caller cannot fix it
  return Error::Unavailable("the database cannot answer now; retry shortly");
}

bool IsStorageFault(const SQLite::Exception& e) {
  switch (e.getErrorCode() & 0xff) {
    case SQLITE_CORRUPT: case SQLITE_NOTADB: case SQLITE_IOERR: case SQLITE_CANTOPEN:
    case SQLITE_FULL: case SQLITE_READONLY:
      return true;
    default:
      return false;
  }
}

bool IsBusy(const SQLite::Exception& e) {
  int primary = e.getErrorCode() & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Error StorageError(const SQLite::Exception& e, const std::string& item, const std::string& field) {
  if (IsBusy(e)) return StorageFailure(e);
  if ((e.getErrorCode() & 0xff) == SQLITE_CONSTRAINT) {
    int extended = e.getExtendedErrorCode();
    Error out;
    if (extended == SQLITE_CONSTRAINT_UNIQUE || extended == SQLITE_CONSTRAINT_PRIMARYKEY) {
      out = Error{ErrorCode::kConflict, item + " exists already", {}};
    } else if (extended == SQLITE_CONSTRAINT_FOREIGNKEY) {
      out = Error{ErrorCode::kInvalidArgument, item + " refers to a record that does not exist", {}};
    } else {
      out = Error{ErrorCode::kInvalidArgument, item + " has a value the catalog refuses", {}};
    }
    if (!field.empty()) out.fields.push_back({field, out.message});
    return out;
  }
  LogStorage(e);
  return Error::Unavailable("the database could not complete the write of " + item);
}

}  // namespace gpuplan::db
