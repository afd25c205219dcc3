// Opening SQLite connections with the project's settings, and a pool of them so that no
// connection is ever used by two threads at once.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/result.h"

namespace gpuplan::db {

// Opens (creating if needed) the database at `path` with WAL journaling, foreign keys on,
// a 5 s busy timeout and synchronous=NORMAL. ":memory:" gives a private in-memory database.
// Fails with kUnavailable when the file cannot be opened.
Result<std::unique_ptr<SQLite::Database>> OpenDatabase(const std::string& path);

// The file behind `db`'s main database; "" for in-memory and temporary databases (which
// are private to their connection, so nothing about them may be shared in a process).
std::string DatabaseFile(SQLite::Database& db);

// Thrown by ConnectionPool::Acquire when no connection came free in time. The HTTP
// layer answers it with 503 and Retry-After.
class PoolExhausted : public std::runtime_error {
 public:
  PoolExhausted() : std::runtime_error("no database connection came free in time") {}
};

// A fixed-size pool of connections to one database file. Thread-safe. Acquire() waits
// up to `timeout` for a free connection (then throws PoolExhausted); the Lease gives it
// back when destroyed. Its size is independent of the number of HTTP workers.
class ConnectionPool {
 public:
  // One pooled connection and the statements prepared on it (destroyed before it).
  struct Pooled {
    std::unique_ptr<SQLite::Database> db;
    std::map<const char*, std::unique_ptr<SQLite::Statement>> statements;
  };

  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<Pooled> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    SQLite::Database& operator*() { return *connection_->db; }
    SQLite::Database* operator->() { return connection_->db.get(); }
    // The statement for `sql`, prepared on this connection the first time any lease asks
    // and kept with it (a request does not parse the same SQL again); reset, bindings
    // cleared. `sql` must be a string literal: statements are cached by its address.
    SQLite::Statement& Prepared(const char* sql);

   private:
    ConnectionPool* pool_;
    std::unique_ptr<Pooled> connection_;
  };

  // Opens `size` (>= 1) connections to `path`.
  static Result<std::unique_ptr<ConnectionPool>> Open(const std::string& path, int size);

  static constexpr std::chrono::milliseconds kAcquireTimeout{5000};
  Lease Acquire(std::chrono::milliseconds timeout = kAcquireTimeout);
  const std::string& path() const { return path_; }

  // Acquires that found no free connection and waited, the time they waited, and those
  // that gave up (PoolExhausted); monotonic, for /metrics.
  struct WaitStats {
    unsigned long long waits = 0, exhausted = 0;
    double wait_seconds = 0;
  };
  WaitStats wait_stats() const;

 private:
  explicit ConnectionPool(std::string path) : path_(std::move(path)) {}
  void Release(std::unique_ptr<Pooled> connection);

  std::string path_;
  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Pooled>> free_;
  unsigned long long waits_ = 0, exhausted_ = 0;  // under mutex_
  double wait_seconds_ = 0;
};

}  // namespace gpuplan::db
