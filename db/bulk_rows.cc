#include "db/bulk_rows.h"

#include <utility>

namespace gpuplan::db {

namespace {

void Bind(Statement& stmt, int index, const SqlValue& value) {
  std::visit(
      [&](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
          stmt.bind(index);
        } else {
          stmt.bind(index, v);
        }
      },
      value);
}

// "(?, ?, ?), (?, ?, ?)": `rows` groups of `columns` placeholders.
std::string Placeholders(int rows, int columns) {
  std::string group = "(";
  for (int c = 0; c < columns; ++c) group += c ? ", ?" : "?";
  group += ")";
  std::string out;
  out.reserve(rows * (group.size() + 2));
  for (int r = 0; r < rows; ++r) {
    if (r) out += ", ";
    out += group;
  }
  return out;
}

// The statement for a chunk of `rows` rows: for kBulkRows, `full`, prepared on first use and
// reused (so PostgreSQL plans it once); else a new one, kept in `partial` for this chunk.
template <typename Sql>
Statement& ChunkStatement(Connection& db, int rows, std::unique_ptr<Statement>& full,
                          std::unique_ptr<Statement>& partial, const Sql& sql) {
  if (rows != kBulkRows) {
    partial = std::make_unique<Statement>(db, sql(rows));
    return *partial;
  }
  if (!full) full = std::make_unique<Statement>(db, sql(kBulkRows));
  return *full;
}

}  // namespace

BulkInsert::BulkInsert(Connection& db, std::string head, int columns, std::string tail)
    : db_(db), head_(std::move(head)), columns_(columns), tail_(std::move(tail)) {
  queued_.reserve(static_cast<size_t>(kBulkRows) * columns_);
}

std::string BulkInsert::Sql(int rows) const {
  return head_ + " VALUES " + Placeholders(rows, columns_) + (tail_.empty() ? "" : " " + tail_);
}

void BulkInsert::Add(std::string key, std::vector<SqlValue> row) {
  if (static_cast<int>(row.size()) != columns_) {
    throw SqlError(SqlError::Kind::kOther, "a row of " + std::to_string(row.size()) +
                                               " values for " + std::to_string(columns_) +
                                               " columns: " + head_);
  }
  if (queued_keys_.count(key)) Flush();
  queued_keys_.insert(std::move(key));
  for (auto& value : row) queued_.push_back(std::move(value));
  if (static_cast<int>(queued_.size()) == kBulkRows * columns_) Flush();
}

void BulkInsert::Flush() {
  const int rows = static_cast<int>(queued_.size()) / columns_;
  if (rows == 0) return;
  std::unique_ptr<Statement> partial;
  Statement& stmt =
      ChunkStatement(db_, rows, full_, partial, [this](int n) { return Sql(n); });
  for (size_t i = 0; i < queued_.size(); ++i) Bind(stmt, static_cast<int>(i) + 1, queued_[i]);
  queued_.clear();
  queued_keys_.clear();
  stmt.exec();
  stmt.reset();
}

std::set<std::vector<std::string>> ExistingKeys(Connection& db, std::string_view table,
                                                const std::vector<std::string>& key_columns,
                                                const std::vector<std::vector<std::string>>& keys) {
  std::set<std::vector<std::string>> found;
  if (keys.empty()) return found;
  const int width = static_cast<int>(key_columns.size());
  // A join with the keys as a VALUES table (columns column1...N on both backends): SQLite
  // looks each key up in the table's index, where a row-value IN (VALUES ...) scans it.
  std::string columns;
  std::string on;
  for (int c = 0; c < width; ++c) {
    columns += (c ? ", t." : "t.") + key_columns[c];
    on += (c ? " AND t." : "t.") + key_columns[c] + " = k.column" + std::to_string(c + 1);
  }
  auto sql = [&](int rows) {
    return "SELECT DISTINCT " + columns + " FROM (VALUES " + Placeholders(rows, width) +
           ") AS k JOIN " + std::string(table) + " AS t ON " + on;
  };
  std::unique_ptr<Statement> full;
  for (size_t start = 0; start < keys.size(); start += kBulkRows) {
    const int rows = static_cast<int>(std::min<size_t>(kBulkRows, keys.size() - start));
    std::unique_ptr<Statement> partial;
    Statement& stmt = ChunkStatement(db, rows, full, partial, sql);
    int index = 1;
    for (int r = 0; r < rows; ++r) {
      const std::vector<std::string>& key = keys[start + r];
      if (static_cast<int>(key.size()) != width) {
        throw SqlError(SqlError::Kind::kOther, "a key of " + std::to_string(key.size()) +
                                                   " values for " + columns);
      }
      for (const std::string& value : key) stmt.bind(index++, value);
    }
    while (stmt.executeStep()) {
      std::vector<std::string> key(width);
      for (int c = 0; c < width; ++c) key[c] = stmt.getColumn(c).getString();
      found.insert(std::move(key));
    }
    stmt.reset();
  }
  return found;
}

}  // namespace gpuplan::db
