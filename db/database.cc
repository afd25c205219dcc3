#include "db/database.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <SQLiteCpp/Database.h>

#include "db/pg_connection.h"
#include "db/sqlite_connection.h"
#include "db/write_transaction.h"

namespace gpuplan::db {

namespace {

constexpr int kBusyTimeoutMs = 5000;

}  // namespace

Result<std::unique_ptr<Connection>> OpenDatabase(const std::string& path) {
  if (IsPostgresUrl(path)) {
    try {
      return std::unique_ptr<Connection>(std::make_unique<PgConnection>(path));
    } catch (const SqlError& e) {
      return Error::Unavailable(e.what());  // the URL's password is redacted
    }
  }
  try {
    auto db = std::make_unique<SqliteConnection>(
        path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_FULLMUTEX);
    db->sqlite().setBusyTimeout(kBusyTimeoutMs);
    db->exec("PRAGMA foreign_keys = ON");
    if (path != ":memory:") db->exec("PRAGMA journal_mode = WAL");
    db->exec("PRAGMA synchronous = NORMAL");
    return std::unique_ptr<Connection>(std::move(db));
  } catch (const SqlError& e) {
    return Error::Unavailable("cannot open database '" + path + "': " + e.what());
  }
}

Result<std::unique_ptr<ConnectionPool>> ConnectionPool::Open(const std::string& path,
                                                             int size) {
  if (size < 1) return Error::Invalid("size", "pool size must be at least 1");
  std::unique_ptr<ConnectionPool> pool(new ConnectionPool(path));
  for (int i = 0; i < size; ++i) {
    auto db = OpenDatabase(path);
    if (!db.ok()) return db.error();
    auto pooled = std::make_unique<Pooled>();
    pooled->db = std::move(db).value();
    pool->free_.push_back(std::move(pooled));
  }
  return pool;
}

ConnectionPool::Lease ConnectionPool::Acquire(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (free_.empty()) {
    auto start = std::chrono::steady_clock::now();
    bool got = available_.wait_for(lock, timeout, [this] { return !free_.empty(); });
    ++waits_;
    wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!got) {
      ++exhausted_;
      throw PoolExhausted();
    }
  }
  auto connection = std::move(free_.back());
  free_.pop_back();
  lock.unlock();
  Lease lease(this, std::move(connection));
  // A PostgreSQL connection lost since its last lease is re-established here, where no
  // transaction can be open (throws SqlError kStorage while the server is unreachable; the
  // lease gives the connection back).
  if (lease->dialect() == SqlDialect::kPostgres) static_cast<PgConnection&>(*lease).Reconnect();
  // No lease starts inside a transaction an earlier one left open or failed.
  if (lease->InTransaction()) lease->exec("ROLLBACK");
  return lease;
}

ConnectionPool::WaitStats ConnectionPool::wait_stats() const {
  std::lock_guard lock(mutex_);
  return WaitStats{waits_, exhausted_, wait_seconds_};
}

void ConnectionPool::Release(std::unique_ptr<Pooled> connection) {
  {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(connection));
  }
  available_.notify_one();
}

ConnectionPool::Lease::~Lease() {
  if (connection_) pool_->Release(std::move(connection_));
}

Statement& ConnectionPool::Lease::Prepared(const char* sql) {
  auto& slot = connection_->statements[sql];
  if (!slot) {
    slot = std::make_unique<Statement>(*connection_->db, sql);
  } else {
    slot->tryReset();  // after a failed step reset() would throw that step's error again
    slot->clearBindings();
  }
  return *slot;
}

Status ConnectionPool::CheckHealth() {
  std::lock_guard health(health_mutex_);
  if (IsPostgresUrl(path_)) return CheckServer();
  {
    Lease lease = Acquire();
    if (DatabaseFileMoved(*lease)) {
      return Error::Unavailable("the database file was deleted or replaced while the service "
                                "ran; restart it on the right file");
    }
    SqliteConnection* sqlite = AsSqlite(*lease);
    try {
      sqlite->sqlite().setBusyTimeout(0);
      struct RestoreTimeout {
        SQLite::Database& db;
        ~RestoreTimeout() { db.setBusyTimeout(kBusyTimeoutMs); }
      } restore{sqlite->sqlite()};
      lease->exec("BEGIN IMMEDIATE");
      lease->exec("ROLLBACK");
    } catch (const SqlError& e) {
      if (!IsBusy(e)) {
        StorageFailure(e);  // logs SQLite's text
        return Error::Unavailable("the database cannot be written");
      }
    }
  }
  return CheckIntegrity();
}

Status ConnectionPool::CheckServer() {
  try {
    Lease lease = Acquire();  // reconnects a lost connection
    lease->execAndGet("SELECT 1");
    return OkStatus();
  } catch (const SqlError& e) {
    StorageFailure(e);  // logs the server's text
    return Error::Unavailable("the database server cannot be reached");
  }
}

Status ConnectionPool::CheckIntegrity() {
  if (path_ == ":memory:" || path_.empty()) return OkStatus();
  struct stat st {};
  if (stat(path_.c_str(), &st) != 0) {
    return Error::Unavailable("the database file cannot be read");
  }
  FileStamp stamp{static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino),
                  static_cast<unsigned long long>(st.st_size),
                  st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec};
  auto now = std::chrono::steady_clock::now();
  if (checked_stamp_ == stamp && now - checked_at_ < kIntegrityRecheck) return OkStatus();
  checked_stamp_.reset();
  try {
    SqliteConnection fresh(path_, SQLite::OPEN_READONLY);
    fresh.sqlite().setBusyTimeout(1000);
    Statement check(fresh, "PRAGMA quick_check(1)");
    if (!check.executeStep() || check.getColumn(0).getString() != "ok") {
      return Error::Unavailable("the database file failed its integrity check");
    }
  } catch (const SqlError& e) {
    if (IsBusy(e)) return OkStatus();  // a checkpoint or recovery in progress: not a fault
    StorageFailure(e);
    return Error::Unavailable("the database file failed its integrity check");
  }
  checked_stamp_ = stamp;
  checked_at_ = now;
  return OkStatus();
}

bool DatabaseFileMoved(Connection& db) {
  SqliteConnection* sqlite = AsSqlite(db);
  if (!sqlite) return false;
  int moved = 0;
  int rc = sqlite3_file_control(sqlite->sqlite().getHandle(), "main", SQLITE_FCNTL_HAS_MOVED, &moved);
  return rc == SQLITE_OK && moved != 0;
}

std::string DatabaseKey(Connection& db) {
  SqliteConnection* sqlite = AsSqlite(db);
  if (!sqlite) return static_cast<PgConnection&>(db).url();
  const char* file = sqlite3_db_filename(sqlite->sqlite().getHandle(), "main");
  return file ? std::string(file) : std::string();
}

}  // namespace gpuplan::db
