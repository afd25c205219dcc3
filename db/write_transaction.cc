#include "db/write_transaction.h"

#include <atomic>
#include <cstdio>

#include "db/database.h"

namespace gpuplan::db {

namespace {

void (*storage_log)(const std::string&) = nullptr;

std::atomic<unsigned long long> local_commits{0};

std::array<std::atomic<unsigned long long>, kSqlErrorKinds> sql_errors{};

void LogStorage(const SqlError& e) {
  if (storage_log) storage_log(e.what());
}

}  // namespace

void SetStorageLog(void (*log)(const std::string& what)) { storage_log = log; }

void LogStorageMessage(const std::string& what) {
  if (storage_log) {
    storage_log(what);
  } else {
    std::fprintf(stderr, "%s\n", what.c_str());  // a CLI command, or before the server's log
  }
}

void WriteTransaction::commit() {
  if (db_.dialect() == SqlDialect::kPostgres) {
    db_.exec("INSERT INTO catalog_meta (key, value) VALUES ('commits', '1') ON CONFLICT (key) "
             "DO UPDATE SET value = CAST(catalog_meta.value AS BIGINT) + 1");
  }
  tx_.commit();
  local_commits.fetch_add(1, std::memory_order_acq_rel);
}

unsigned long long LocalCommits() { return local_commits.load(std::memory_order_acquire); }

void RefreshPlannerStatistics(Connection& db) {
  if (db.dialect() != SqlDialect::kPostgres) return;
  try {
    db.exec("ANALYZE gpus, gpu_synonyms, clouds, regions, instance_types, prices, fx_rates, "
            "spot_interruption_bands, measurements, catalog_meta");
  } catch (const SqlError& e) {
    LogStorage(e);
  }
}

long long WriteCommits(Connection& db) {
  if (db.dialect() == SqlDialect::kPostgres) {
    return db.execAndGet("SELECT coalesce((SELECT CAST(value AS BIGINT) FROM catalog_meta "
                         "WHERE key = 'commits'), 0)").getInt64();
  }
  return db.execAndGet("PRAGMA data_version").getInt64();
}

Connection& WriteTransaction::StillOpenFile(Connection& db) {
  if (DatabaseFileMoved(db)) {
    throw SqlError(SqlError::Kind::kStorage, "the database file was deleted or replaced while open");
  }
  return db;
}

void CountSqlError(const SqlError& e) {
  static_assert(static_cast<int>(SqlError::Kind::kOther) == kSqlErrorKinds - 1);
  sql_errors[static_cast<int>(e.kind())].fetch_add(1, std::memory_order_relaxed);
}

std::array<unsigned long long, kSqlErrorKinds> SqlErrorCounts() {
  std::array<unsigned long long, kSqlErrorKinds> out{};
  for (int i = 0; i < kSqlErrorKinds; ++i) out[i] = sql_errors[i].load(std::memory_order_relaxed);
  return out;
}

const char* SqlErrorKindName(int kind) {
  static constexpr const char* kNames[kSqlErrorKinds] = {"busy", "unique", "foreign_key",
                                                         "constraint", "storage", "other"};
  return kind >= 0 && kind < kSqlErrorKinds ? kNames[kind] : "other";
}

Error StorageFailure(const SqlError& e) {
  CountSqlError(e);
  if (IsBusy(e)) return Error::Unavailable("the catalog is busy with another write; retry shortly");
  LogStorage(e);  // a fault or a bug: either way the caller cannot fix it
  return Error::Unavailable("the database cannot answer now; retry shortly");
}

bool IsStorageFault(const SqlError& e) { return e.kind() == SqlError::Kind::kStorage; }

bool IsBusy(const SqlError& e) { return e.kind() == SqlError::Kind::kBusy; }

Error StorageError(const SqlError& e, const std::string& item, const std::string& field) {
  if (IsBusy(e)) return StorageFailure(e);
  CountSqlError(e);
  const SqlError::Kind kind = e.kind();
  if (kind == SqlError::Kind::kUnique || kind == SqlError::Kind::kForeignKey ||
      kind == SqlError::Kind::kConstraint) {
    Error out;
    if (kind == SqlError::Kind::kUnique) {
      out = Error{ErrorCode::kConflict, item + " exists already", {}};
    } else if (kind == SqlError::Kind::kForeignKey) {
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
