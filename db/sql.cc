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

Transaction::Transaction(Connection& connection, bool immediate) : connection_(connection) {
  connection_.exec(immediate && connection_.dialect() == SqlDialect::kSqlite ? "BEGIN IMMEDIATE"
                                                                             : "BEGIN");
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
