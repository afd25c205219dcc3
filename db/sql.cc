#include "db/sql.h"

namespace gpuplan::db {

Column Connection::execAndGet(const std::string& sql) {
  std::shared_ptr<StatementImpl> statement = Prepare(sql);
  if (!statement->Step()) throw SqlError(SqlError::Kind::kOther, "no row from: " + sql);
  return Column(std::move(statement), 0);
}

int Statement::exec() {
  while (impl_->Step()) {
  }
  return impl_->Changes();
}

int Statement::IndexOf(std::string_view name) {
  int index = impl_->ParameterIndex(name);
  if (index == 0) throw SqlError(SqlError::Kind::kOther, "no parameter " + std::string(name));
  return index;
}

const char* BeginSql(SqlDialect dialect, TransactionKind kind) {
  if (dialect == SqlDialect::kSqlite) {
    return kind == TransactionKind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN";
  }
  static const std::string write =
      "BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kWriteLockKey) + ")";
  return kind == TransactionKind::kWrite ? write.c_str() : "BEGIN ISOLATION LEVEL REPEATABLE READ";
}

Transaction::Transaction(Connection& connection, TransactionKind kind) : connection_(connection) {
  try {
    connection_.exec(BeginSql(connection_.dialect(), kind));
  } catch (...) {
    // BEGIN may have taken effect before what followed it failed (PostgreSQL: the writers'
    // lock timed out): end it, or the connection would stay in a failed transaction.
    if (connection_.InTransaction()) {
      try {
        connection_.exec("ROLLBACK");
      } catch (...) {
      }
    }
    throw;
  }
}

Transaction::~Transaction() {
  if (done_) return;
  try {
    connection_.exec("ROLLBACK");
  } catch (...) {  // a lost connection has no transaction left to end
  }
}

void Transaction::commit() {
  connection_.exec("COMMIT");
  done_ = true;
}

}  // namespace gpuplan::db
