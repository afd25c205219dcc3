#include "db/database.h"

#include <sqlite3.h>

#include <SQLiteCpp/Exception.h>

namespace gpuplan::db {

Result<std::unique_ptr<SQLite::Database>> OpenDatabase(const std::string& path) {
  try {
    auto db = std::make_unique<SQLite::Database>(
        path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_FULLMUTEX);
    db->setBusyTimeout(5000);
    db->exec("PRAGMA foreign_keys = ON");
    if (path != ":memory:") db->exec("PRAGMA journal_mode = WAL");
    db->exec("PRAGMA synchronous = NORMAL");
    return db;
  } catch (const SQLite::Exception& e) {
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
  return Lease(this, std::move(connection));
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

SQLite::Statement& ConnectionPool::Lease::Prepared(const char* sql) {
  auto& slot = connection_->statements[sql];
  if (!slot) {
    slot = std::make_unique<SQLite::Statement>(*connection_->db, sql);
  } else {
    slot->tryReset();  // after a failed step reset() would throw that step's error again
    slot->clearBindings();
  }
  return *slot;
}

std::string DatabaseFile(SQLite::Database& db) {
  const char* file = sqlite3_db_filename(db.getHandle(), "main");
  return file ? std::string(file) : std::string();
}

}  // namespace gpuplan::db
