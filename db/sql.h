// The one SQL interface of db/: a connection, its prepared statements, their columns, a
// transaction and the one error type, whichever database is behind them (SQLite embedded,
// PostgreSQL shared). Nothing above db/ sees which: SQL text that differs between the two
// lives in db/ and asks Connection::dialect().
//
// The statement and column methods keep SQLiteCpp's names (bind, executeStep, getColumn,
// getString...) so that the SQL-era code reads unchanged. Semantics are SQLite's:
//   - parameters are `?` (numbered in order), `?NNN` and `:name`; indices start at 1;
//   - getString/getInt/getInt64/getDouble of NULL give "", 0, 0, 0.0;
//   - a statement is reset (bindings kept) before it can run again.
// Thread safety: a connection, and everything prepared on it, is used by one thread at a
// time (db/database.h's pool hands each to one caller). Errors: every failure throws
// SqlError, whose kind says what callers may do about it (db/write_transaction.h maps kinds
// to the project's Error values; the database's own text goes to the storage log only).
#pragma once

#include <concepts>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace gpuplan::db {

enum class SqlDialect { kSqlite, kPostgres };

// How a statement's rows come from the database. kAll: as the backend does by default
// (SQLite steps row by row; PostgreSQL receives the whole result at the first step).
// kBatched: in bounded memory however many rows there are (PostgreSQL: a cursor fetched a
// thousand rows at a time, so only inside a transaction); the same as kAll on SQLite.
enum class RowFetch { kAll, kBatched };

// A failed SQL call. kind() classifies it the same way on every backend.
class SqlError : public std::runtime_error {
 public:
  enum class Kind {
    kBusy,        // locked or busy past the wait (SQLite BUSY/LOCKED; PostgreSQL lock and
                  // serialization failures, deadlocks): retrying later may succeed
    kUnique,      // a UNIQUE or PRIMARY KEY constraint refused the row
    kForeignKey,  // a FOREIGN KEY constraint refused the row
    kConstraint,  // a CHECK or NOT NULL constraint refused the row
    kStorage,     // the file, the disk or the connection failed, not the statement
    kOther,       // anything else: a bug in the SQL or an unexpected state
  };
  SqlError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

// What a backend implements for one prepared statement (see Statement for the contract).
class StatementImpl {
 public:
  virtual ~StatementImpl() = default;
  virtual int ParameterIndex(std::string_view name) = 0;  // 0 when there is no such name
  virtual int ParameterCount() = 0;  // the largest parameter index
  virtual void BindNull(int index) = 0;
  virtual void BindInt64(int index, long long value) = 0;
  virtual void BindDouble(int index, double value) = 0;
  virtual void BindText(int index, std::string_view value) = 0;
  virtual bool Step() = 0;
  virtual void Reset() = 0;  // never throws; bindings kept
  virtual void ClearBindings() = 0;
  virtual int Changes() = 0;  // rows changed by the last completed INSERT/UPDATE/DELETE
  virtual bool IsNull(int column) = 0;
  virtual long long Int64(int column) = 0;
  virtual double Double(int column) = 0;
  virtual std::string Text(int column) = 0;
};

// One database connection. Open one with db/database.h's OpenDatabase.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual SqlDialect dialect() const noexcept = 0;
  // Runs `sql` (one or more statements separated by ';', no parameters, rows ignored).
  virtual void exec(const std::string& sql) = 0;
  // True inside a transaction this connection began and has not ended.
  virtual bool InTransaction() = 0;
  // Prepares `sql` (throws SqlError when it does not compile).
  virtual std::unique_ptr<StatementImpl> Prepare(std::string_view sql,
                                                 RowFetch fetch = RowFetch::kAll) = 0;

  class Column execAndGet(const std::string& sql);
};

// One column of the row a statement stands on; it keeps its statement alive. Valid until
// the statement steps again or is reset.
class Column {
 public:
  Column(std::shared_ptr<StatementImpl> statement, int index)
      : statement_(std::move(statement)), index_(index) {}
  bool isNull() const { return statement_->IsNull(index_); }
  long long getInt64() const { return statement_->Int64(index_); }
  int getInt() const { return static_cast<int>(statement_->Int64(index_)); }
  double getDouble() const { return statement_->Double(index_); }
  std::string getString() const { return statement_->Text(index_); }

 private:
  std::shared_ptr<StatementImpl> statement_;
  int index_;
};

// A prepared statement on `connection`, which must outlive it.
class Statement {
 public:
  Statement(Connection& connection, std::string_view sql, RowFetch fetch = RowFetch::kAll)
      : impl_(connection.Prepare(sql, fetch)) {}

  template <typename T>
    requires std::integral<T>
  void bind(int index, T value) { impl_->BindInt64(index, static_cast<long long>(value)); }
  template <typename T>
    requires std::floating_point<T>
  void bind(int index, T value) { impl_->BindDouble(index, static_cast<double>(value)); }
  void bind(int index, std::string_view value) { impl_->BindText(index, value); }
  void bind(int index, const std::string& value) { impl_->BindText(index, value); }
  void bind(int index, const char* value) { impl_->BindText(index, value); }
  void bind(int index) { impl_->BindNull(index); }
  // By name (":cloud"); throws SqlError (kOther) when the statement has no such parameter.
  template <typename... T>
  void bind(std::string_view name, T&&... value) {
    bind(IndexOf(name), std::forward<T>(value)...);
  }

  int getBindParameterCount() { return impl_->ParameterCount(); }

  // Steps to the next row: true when there is one, false when the statement is done.
  bool executeStep() { return impl_->Step(); }
  // Runs a statement that returns no rows to its end; the rows it changed.
  int exec();
  // Back to before the first step; bindings kept. tryReset never throws (both never do).
  void reset() { impl_->Reset(); }
  void tryReset() noexcept { impl_->Reset(); }
  void clearBindings() { impl_->ClearBindings(); }
  Column getColumn(int index) { return Column(impl_, index); }

 private:
  int IndexOf(std::string_view name);
  std::shared_ptr<StatementImpl> impl_;
};

// What a transaction is for.
//   kSnapshot: reads that must agree with each other (one snapshot of the database: SQLite's
//              deferred BEGIN; PostgreSQL's REPEATABLE READ). It may write too.
//   kWrite:    a catalog write. Writers are serialised across every process on the database
//              (SQLite: BEGIN IMMEDIATE takes the file's write lock; PostgreSQL: READ
//              COMMITTED plus a transaction-scoped advisory lock, kWriteLockKey, taken at
//              the start), so a write sees every write committed before it began. Waiting
//              for the lock is bounded by the busy/lock timeout (SqlError kBusy after it).
enum class TransactionKind { kSnapshot, kWrite };

// The advisory lock key that serialises PostgreSQL writers ("gpuplan write").
inline constexpr long long kWriteLockKey = 0x6770706c616e7731LL;

// The statement(s) that begin a transaction of `kind` on `dialect`.
const char* BeginSql(SqlDialect dialect, TransactionKind kind);

// A transaction on `connection`: begun by the constructor, rolled back by the destructor
// unless commit() ran. Throws SqlError when it cannot begin (nothing is left open then) or
// commit (including a COMMIT that the database turned into a rollback).
class Transaction {
 public:
  explicit Transaction(Connection& connection, TransactionKind kind = TransactionKind::kSnapshot);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Connection& connection_;
  bool done_ = false;
};

}  // namespace gpuplan::db
