// Many rows in few statements. The catalog writer's upserts and existence checks send up to
// kBulkRows rows per statement rather than one statement per row: each statement is a round
// trip, ~0.1 ms on a PostgreSQL connection even on the same host, so a 4 000-type import
// made ~36 000 of them. The results are those of one statement per row, on both backends.
//
// Thread safety: as the connection's (one thread at a time). Errors: SqlError, from the
// statement that failed; rows queued before it may have been written (the caller's
// transaction makes the whole write all or nothing).
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "db/sql.h"

namespace gpuplan::db {

// One value bound to a statement: NULL (monostate), an integer, a real or text.
using SqlValue = std::variant<std::monostate, long long, double, std::string>;

// `value`, or NULL when it is nullopt.
template <typename T>
SqlValue OptionalValue(const std::optional<T>& value) {
  if (!value) return std::monostate{};
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(*value);
  } else {
    return static_cast<long long>(*value);
  }
}

// Rows per statement: 200 rows of up to 13 columns stay far below both backends' parameter
// limits (SQLite 32 766, PostgreSQL 65 535).
inline constexpr int kBulkRows = 200;

// INSERT ... VALUES (...), (...) ... <tail>, kBulkRows rows at a time.
class BulkInsert {
 public:
  // `head`: "INSERT INTO table (c1, ..., cN)"; `columns`: N; `tail`: what follows the
  // VALUES list (an ON CONFLICT clause, or "").
  BulkInsert(Connection& db, std::string head, int columns, std::string tail);
  BulkInsert(const BulkInsert&) = delete;
  BulkInsert& operator=(const BulkInsert&) = delete;

  // Queues a row of exactly `columns` values (else SqlError kOther). `key` names the row
  // the tail's conflict target would match: when that key is already queued, the queue is
  // sent first, since one statement may not update a row twice (PostgreSQL refuses) and the
  // later row must win. Sends the queue when it holds kBulkRows rows.
  void Add(std::string key, std::vector<SqlValue> row);
  // Sends what is queued. Call it before anything reads the table; queued rows are not
  // written otherwise (the destructor drops them).
  void Flush();

 private:
  std::string Sql(int rows) const;

  Connection& db_;
  std::string head_;
  int columns_;
  std::string tail_;
  std::vector<SqlValue> queued_;
  std::set<std::string> queued_keys_;
  std::unique_ptr<Statement> full_;  // the kBulkRows-row statement, reused
};

// Of `keys` (each a tuple of text values for `key_columns`), those that rows of `table` hold:
// one indexed join of <table> with a VALUES list of kBulkRows keys per statement. `table` and `key_columns` are the caller's literals, never input.
std::set<std::vector<std::string>> ExistingKeys(Connection& db, std::string_view table,
                                                const std::vector<std::string>& key_columns,
                                                const std::vector<std::vector<std::string>>& keys);

}  // namespace gpuplan::db
