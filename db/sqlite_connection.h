// The SQLite backend of db/sql.h (the embedded default): a Connection over one SQLiteCpp
// database handle. Only db/ sees this type, for what only SQLite has (its file, PRAGMAs,
// SQL functions); everything else uses Connection. Thread safety as db/sql.h says.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>

#include <memory>
#include <string>

#include "db/sql.h"

namespace gpuplan::db {

class SqliteConnection final : public Connection {
 public:
  // Opens `path` with SQLiteCpp's `flags` (SQLite::OPEN_*); throws SqlError (kStorage when
  // the file cannot be opened).
  SqliteConnection(const std::string& path, int flags);

  SqlDialect dialect() const noexcept override { return SqlDialect::kSqlite; }
  void exec(const std::string& sql) override;
  bool InTransaction() override;
  std::unique_ptr<StatementImpl> Prepare(std::string_view sql, RowFetch fetch) override;

  SQLite::Database& sqlite() { return *db_; }

 private:
  std::unique_ptr<SQLite::Database> db_;
};

// `connection` as SQLite, or nullptr when another backend is behind it.
SqliteConnection* AsSqlite(Connection& connection);

// The SqlError for a SQLiteCpp failure: its kind from SQLite's (extended) result code.
SqlError FromSqlite(const SQLite::Exception& e);

}  // namespace gpuplan::db
