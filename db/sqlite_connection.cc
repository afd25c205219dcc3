#include "db/sqlite_connection.h"

#include <sqlite3.h>

#include <SQLiteCpp/Statement.h>

namespace gpuplan::db {

namespace {

SqlError::Kind KindOf(const SQLite::Exception& e) {
  switch (e.getErrorCode() & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return SqlError::Kind::kBusy;
    case SQLITE_CONSTRAINT:
      switch (e.getExtendedErrorCode()) {
        case SQLITE_CONSTRAINT_UNIQUE:
        case SQLITE_CONSTRAINT_PRIMARYKEY:
          return SqlError::Kind::kUnique;
        case SQLITE_CONSTRAINT_FOREIGNKEY:
          return SqlError::Kind::kForeignKey;
        default:
          return SqlError::Kind::kConstraint;
      }
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_FULL:
    case SQLITE_READONLY:
      return SqlError::Kind::kStorage;
    default:
      return SqlError::Kind::kOther;
  }
}

// Runs `call`, turning SQLiteCpp's exception into SqlError.
template <typename Call>
auto Checked(Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const SQLite::Exception& e) {
    throw FromSqlite(e);
  }
}

class SqliteStatement final : public StatementImpl {
 public:
  SqliteStatement(SQLite::Database& db, std::string_view sql)
      : db_(db), s_(Checked([&] { return SQLite::Statement(db, std::string(sql)); })) {}

  int ParameterIndex(std::string_view name) override {
    return s_.getIndex(std::string(name).c_str());
  }
  int ParameterCount() override { return s_.getBindParameterCount(); }
  void BindNull(int index) override { Checked([&] { s_.bind(index); }); }
  void BindInt64(int index, long long value) override {
    Checked([&] { s_.bind(index, static_cast<int64_t>(value)); });
  }
  void BindDouble(int index, double value) override { Checked([&] { s_.bind(index, value); }); }
  void BindText(int index, std::string_view value) override {
    Checked([&] { s_.bind(index, std::string(value)); });  // SQLite keeps its own copy
  }
  bool Step() override { return Checked([&] { return s_.executeStep(); }); }
  void Reset() override { s_.tryReset(); }
  void ClearBindings() override { s_.clearBindings(); }
  int Changes() override { return sqlite3_changes(db_.getHandle()); }
  bool IsNull(int column) override { return Checked([&] { return s_.isColumnNull(column); }); }
  long long Int64(int column) override {
    return Checked([&] { return static_cast<long long>(s_.getColumn(column).getInt64()); });
  }
  double Double(int column) override {
    return Checked([&] { return s_.getColumn(column).getDouble(); });
  }
  std::string Text(int column) override {
    return Checked([&] { return s_.getColumn(column).getString(); });
  }

 private:
  SQLite::Database& db_;
  SQLite::Statement s_;
};

}  // namespace

SqlError FromSqlite(const SQLite::Exception& e) { return SqlError(KindOf(e), e.what()); }

SqliteConnection::SqliteConnection(const std::string& path, int flags)
    : db_(Checked([&] { return std::make_unique<SQLite::Database>(path, flags); })) {}

void SqliteConnection::exec(const std::string& sql) {
  Checked([&] { db_->exec(sql); });
}

bool SqliteConnection::InTransaction() { return sqlite3_get_autocommit(db_->getHandle()) == 0; }

std::unique_ptr<StatementImpl> SqliteConnection::Prepare(std::string_view sql, RowFetch) {
  return std::make_unique<SqliteStatement>(*db_, sql);
}

SqliteConnection* AsSqlite(Connection& connection) {
  return connection.dialect() == SqlDialect::kSqlite ? static_cast<SqliteConnection*>(&connection)
                                                     : nullptr;
}

}  // namespace gpuplan::db
