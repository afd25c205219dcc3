// Opening database connections (db/sql.h) with the project's settings, and a pool of them so
// that no connection is ever used by two threads at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

// Opens the database `path` names: a PostgreSQL URL (postgresql://..., db/pg_connection.h)
// connects to that server; anything else is a SQLite file, opened (created if needed) with
// WAL journaling, foreign keys on, a 5 s busy timeout and synchronous=NORMAL (":memory:"
// gives a private in-memory database). Fails with kUnavailable when it cannot be opened or
// reached (the message never shows a URL's password).
Result<std::unique_ptr<Connection>> OpenDatabase(const std::string& path);

// The name under which what was read from `db` may be shared in this process (the kept
// catalog state and snapshots of db/cached_catalog.h): the file behind a SQLite database,
// the URL of a PostgreSQL one; "" for in-memory and temporary SQLite databases (private to
// their connection, so nothing about them may be shared).
std::string DatabaseKey(Connection& db);

// True when the SQLite file `db` opened has been deleted, renamed or replaced since (its
// path no longer leads to the open file: SQLITE_FCNTL_HAS_MOVED). Writes there would be lost
// at the next start. False for in-memory databases and other backends. One fstat and one
// stat; thread-safe.
bool DatabaseFileMoved(Connection& db);

// Thrown by ConnectionPool::Acquire when no connection came free in time. The HTTP
// layer answers it with 503 and Retry-After.
class PoolExhausted : public std::runtime_error {
 public:
  PoolExhausted() : std::runtime_error("no database connection came free in time") {}
};

// A fixed-size pool of connections to one database (a SQLite file or a PostgreSQL URL).
// Thread-safe. Acquire() waits up to `timeout` for a free connection (then throws
// PoolExhausted); the Lease gives it back when destroyed. Its size is independent of the
// number of HTTP workers. A PostgreSQL connection the server dropped is re-established by
// the Acquire that hands it out next (SqlError kStorage while the server stays unreachable).
class ConnectionPool {
 public:
  // One pooled connection and the statements prepared on it (destroyed before it).
  struct Pooled {
    std::unique_ptr<Connection> db;
    std::map<const char*, std::unique_ptr<Statement>> statements;
  };

  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<Pooled> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Connection& operator*() { return *connection_->db; }
    Connection* operator->() { return connection_->db.get(); }
    // The statement for `sql`, prepared on this connection the first time any lease asks
    // and kept with it (a request does not parse the same SQL again); reset, bindings
    // cleared. `sql` must be a string literal: statements are cached by its address.
    Statement& Prepared(const char* sql);

   private:
    ConnectionPool* pool_;
    std::unique_ptr<Pooled> connection_;
  };

  // Opens `size` (>= 1) connections to `path` (a file or a PostgreSQL URL).
  static Result<std::unique_ptr<ConnectionPool>> Open(const std::string& path, int size);

  static constexpr std::chrono::milliseconds kAcquireTimeout{5000};
  Lease Acquire(std::chrono::milliseconds timeout = kAcquireTimeout);
  const std::string& path() const { return path_; }

  // Storage health for /readyz. PostgreSQL: ok when the server answers a query on a pooled
  // connection (reconnected if it was lost), kUnavailable otherwise. SQLite: ok when the
  // file at path() is still the one the pool
  // opened (not deleted or replaced), a write transaction can start (BEGIN IMMEDIATE then
  // ROLLBACK: nothing is written; a write lock held by another writer counts as
  // writable), and PRAGMA quick_check on a fresh read-only connection passes. The
  // integrity verdict is kept until the file's inode, size or mtime changes or
  // kIntegrityRecheck passes, so a probe is one stat and an empty transaction in the
  // steady state. kUnavailable naming the failed check (never SQLite's text) otherwise.
  // Thread-safe (probes are serialised); waits like Acquire for a connection.
  static constexpr std::chrono::seconds kIntegrityRecheck{60};
  Status CheckHealth();

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

  Status CheckIntegrity();  // under health_mutex_
  Status CheckServer();     // under health_mutex_: PostgreSQL answers a query

  std::string path_;
  std::mutex health_mutex_;
  struct FileStamp {
    unsigned long long device = 0, inode = 0, size = 0;
    long long mtime_ns = 0;
    bool operator==(const FileStamp&) const = default;
  };
  std::optional<FileStamp> checked_stamp_;  // under health_mutex_: the file quick_check passed
  std::chrono::steady_clock::time_point checked_at_;
  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Pooled>> free_;
  unsigned long long waits_ = 0, exhausted_ = 0;  // under mutex_
  double wait_seconds_ = 0;
};

}  // namespace gpuplan::db
