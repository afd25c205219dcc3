#include "db/pg_connection.h"

#include <libpq-fe.h>

#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <poll.h>

#include "db/write_transaction.h"

namespace gpuplan::db {

namespace {

constexpr Oid kInt8Oid = 20;
constexpr Oid kFloat8Oid = 701;

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

SqlError::Kind KindOfState(std::string_view state) {
  if (state == "23505") return SqlError::Kind::kUnique;
  if (state == "23503") return SqlError::Kind::kForeignKey;
  if (StartsWith(state, "23")) return SqlError::Kind::kConstraint;
  if (state == "40001" || state == "40P01" || state == "55P03" || state == "57014") {
    return SqlError::Kind::kBusy;
  }
  // Also class 25 (a failed or read-only transaction: a standby after a failover).
  if (StartsWith(state, "08") || StartsWith(state, "53") || StartsWith(state, "57P") ||
      StartsWith(state, "58") || StartsWith(state, "25")) {
    return SqlError::Kind::kStorage;
  }
  return SqlError::Kind::kOther;
}

// One statement: its translated text, the values bound, and the result of its last run.
class PgStatement final : public StatementImpl {
 public:
  PgStatement(PgConnection& connection, std::string_view sql, RowFetch fetch)
      : connection_(connection) {
    sql_ = PostgresPlaceholders(sql, &names_, &count_);
    if (fetch == RowFetch::kBatched) {
      static std::atomic<unsigned long long> cursors{0};
      cursor_ = "gpuplan_rows_" + std::to_string(++cursors);
    }
    values_.resize(count_);
    types_.assign(count_, 0);
  }
  ~PgStatement() override {
    CloseCursor();
    Clear();
  }

  int ParameterIndex(std::string_view name) override {
    for (size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) return static_cast<int>(i) + 1;
    }
    return 0;
  }
  int ParameterCount() override { return count_; }
  // A NULL keeps the type its slot last had (a typed NULL is still NULL): the parameter
  // types, and so the prepared form, do not change with every absent value.
  void BindNull(int index) override {
    Set(index, std::nullopt, index >= 1 && index <= count_ ? types_[index - 1] : 0);
  }
  void BindInt64(int index, long long value) override {
    Set(index, std::to_string(value), kInt8Oid);
  }
  void BindDouble(int index, double value) override {
    if (std::isnan(value)) return Set(index, "NaN", kFloat8Oid);
    if (std::isinf(value)) return Set(index, value > 0 ? "Infinity" : "-Infinity", kFloat8Oid);
    char text[32];
    auto [end, ec] = std::to_chars(text, text + sizeof(text), value);  // shortest round trip
    Set(index, std::string(text, end), kFloat8Oid);
  }
  void BindText(int index, std::string_view value) override { Set(index, std::string(value), 0); }

  bool Step() override {
    if (!result_) {
      if (cursor_.empty()) {
        Run(sql_);
      } else {
        Run("DECLARE " + cursor_ + " NO SCROLL CURSOR FOR " + sql_);
        cursor_open_ = true;
        Fetch();
      }
    }
    if (++row_ < PQntuples(result_)) return true;
    if (cursor_open_ && PQntuples(result_) == kBatchRows) {
      Fetch();
      return ++row_ < PQntuples(result_);
    }
    return false;
  }
  void Reset() override {
    CloseCursor();
    Clear();
    row_ = -1;
  }
  void ClearBindings() override {
    for (auto& v : values_) v.reset();
    types_.assign(count_, 0);
  }
  int Changes() override {
    if (!result_) return 0;
    const char* n = PQcmdTuples(result_);
    return n && *n ? std::atoi(n) : 0;
  }
  bool IsNull(int column) override { return PQgetisnull(Row(column), row_, column) != 0; }
  long long Int64(int column) override {
    const char* text = Value(column);
    if (!text) return 0;
    if (text[0] == 't' && text[1] == '\0') return 1;
    if (text[0] == 'f' && text[1] == '\0') return 0;
    long long out = 0;
    const char* end = text + std::strlen(text);
    auto [ptr, ec] = std::from_chars(text, end, out);
    if (ec == std::errc() && ptr == end) return out;
    return static_cast<long long>(std::strtod(text, nullptr));  // a numeric such as "12.0"
  }
  double Double(int column) override {
    const char* text = Value(column);
    if (!text) return 0;
    if (text[0] == 't' && text[1] == '\0') return 1;
    if (text[0] == 'f' && text[1] == '\0') return 0;
    return std::strtod(text, nullptr);  // also reads NaN and Infinity
  }
  std::string Text(int column) override {
    const char* text = Value(column);
    return text ? std::string(text, PQgetlength(result_, row_, column)) : std::string();
  }

 private:
  void Set(int index, std::optional<std::string> value, Oid type) {
    if (index < 1 || index > count_) {
      throw SqlError(SqlError::Kind::kOther, "parameter index " + std::to_string(index) +
                                                  " out of range in: " + sql_);
    }
    values_[index - 1] = std::move(value);
    types_[index - 1] = type;
  }
  static constexpr int kBatchRows = 1000;

  // Runs `sql` with the bound values; result_ holds its rows.
  void Run(const std::string& sql) {
    Clear();
    std::vector<const char*> values(count_);
    for (int i = 0; i < count_; ++i) values[i] = values_[i] ? values_[i]->c_str() : nullptr;
    // A statement run again with the same parameter types (a loop: an import's chunks) is
    // parsed and planned once; one run once, or with new types each time, is not prepared.
    const bool again = &sql == &sql_ && last_run_types_ == types_;
    if (&sql == &sql_) last_run_types_ = types_;
    const std::string prepared = again ? connection_.PreparedName(sql_, types_) : std::string();
    if (prepared.empty()) {
      result_ = PQexecParams(connection_.handle(), sql.c_str(), count_, types_.data(),
                             values.data(), nullptr, nullptr, 0);
    } else {
      result_ = PQexecPrepared(connection_.handle(), prepared.c_str(), count_, values.data(),
                               nullptr, nullptr, 0);
    }
    ExecStatusType status = result_ ? PQresultStatus(result_) : PGRES_FATAL_ERROR;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      SqlError error = connection_.ErrorOf(result_, sql_);
      Clear();
      throw error;
    }
    row_ = -1;
  }
  // The cursor's next batch into result_ (no parameters: they were the DECLARE's).
  void Fetch() {
    Clear();
    result_ = PQexec(connection_.handle(),
                     ("FETCH " + std::to_string(kBatchRows) + " FROM " + cursor_).c_str());
    if (!result_ || PQresultStatus(result_) != PGRES_TUPLES_OK) {
      SqlError error = connection_.ErrorOf(result_, "FETCH FROM " + cursor_);
      Clear();
      throw error;
    }
    row_ = -1;
  }
  // Never throws: a cursor is gone anyway once its transaction has ended.
  void CloseCursor() noexcept {
    if (!cursor_open_) return;
    cursor_open_ = false;
    if (PGresult* r = PQexec(connection_.handle(), ("CLOSE " + cursor_).c_str())) PQclear(r);
  }

  PGresult* Row(int column) {
    if (!result_ || row_ < 0 || row_ >= PQntuples(result_) || column < 0 ||
        column >= PQnfields(result_)) {
      throw SqlError(SqlError::Kind::kOther, "no column " + std::to_string(column) + " in: " + sql_);
    }
    return result_;
  }
  const char* Value(int column) {
    PGresult* r = Row(column);
    return PQgetisnull(r, row_, column) ? nullptr : PQgetvalue(r, row_, column);
  }
  void Clear() {
    if (result_) PQclear(result_);
    result_ = nullptr;
  }

  PgConnection& connection_;
  std::string sql_;
  std::vector<std::string> names_;
  int count_ = 0;
  std::vector<std::optional<std::string>> values_;
  std::vector<Oid> types_;
  PGresult* result_ = nullptr;
  int row_ = -1;
  std::optional<std::vector<Oid>> last_run_types_;  // none before the first run
  std::string cursor_;  // "" unless RowFetch::kBatched
  bool cursor_open_ = false;
};

}  // namespace

bool IsPostgresUrl(std::string_view url) {
  return StartsWith(url, "postgresql://") || StartsWith(url, "postgres://");
}

namespace {

// `url` with the password of its user:password@ part replaced by "***".
std::string RedactedUserInfo(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  size_t at = url.find('@', scheme + 3);
  size_t slash = url.find('/', scheme + 3);
  if (at == std::string_view::npos || (slash != std::string_view::npos && slash < at)) {
    return std::string(url);
  }
  size_t colon = url.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  return std::string(url.substr(0, colon + 1)) + "***" + std::string(url.substr(at));
}

}  // namespace

std::string RedactedUrl(std::string_view url) {
  std::string out = RedactedUserInfo(url);
  // A password may also come as a parameter: ...?password=secret&...
  for (size_t at = out.find("password="); at != std::string::npos; at = out.find("password=", at)) {
    bool starts = at > 0 && (out[at - 1] == '?' || out[at - 1] == '&');
    at += 9;
    if (!starts) continue;
    size_t end = out.find('&', at);
    out.replace(at, (end == std::string::npos ? out.size() : end) - at, "***");
  }
  return out;
}

std::string PostgresPlaceholders(std::string_view sql, std::vector<std::string>* names, int* count) {
  std::string out;
  out.reserve(sql.size() + 16);
  names->clear();
  int largest = 0;
  auto slot = [&](int n) {
    if (n > largest) largest = n;
    if (static_cast<int>(names->size()) < n) names->resize(n);
  };
  auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < sql.size();) {
    char c = sql[i];
    if (c == '\'' || c == '"') {  // a quoted literal or identifier, '' or "" inside
      size_t j = i + 1;
      while (j < sql.size()) {
        if (sql[j] == c) {
          if (j + 1 < sql.size() && sql[j + 1] == c) {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      size_t end = std::min(j + 1, sql.size());
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {  // comments nest
      size_t j = i + 2;
      for (int depth = 1; j < sql.size() && depth > 0;) {
        if (sql.compare(j, 2, "/*") == 0) {
          ++depth;
          j += 2;
        } else if (sql.compare(j, 2, "*/") == 0) {
          --depth;
          j += 2;
        } else {
          ++j;
        }
      }
      out.append(sql.substr(i, j - i));
      i = j;
    } else if (c == '$' && (i == 0 || !is_name_char(sql[i - 1]))) {  // $tag$ ... $tag$
      size_t j = i + 1;
      while (j < sql.size() && is_name_char(sql[j]) &&
             !(j == i + 1 && std::isdigit(static_cast<unsigned char>(sql[j])))) {
        ++j;
      }
      if (j < sql.size() && sql[j] == '$') {
        std::string_view tag = sql.substr(i, j + 1 - i);
        size_t close = sql.find(tag, j + 1);
        size_t end = close == std::string_view::npos ? sql.size() : close + tag.size();
        out.append(sql.substr(i, end - i));
        i = end;
      } else {
        out += c;
        ++i;
      }
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      size_t end = sql.find('\n', i);
      if (end == std::string_view::npos) end = sql.size();
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '?') {
      size_t j = i + 1;
      while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) ++j;
      int n = j > i + 1 ? std::atoi(std::string(sql.substr(i + 1, j - i - 1)).c_str()) : largest + 1;
      slot(n);
      out += '$' + std::to_string(n);
      i = j;
    } else if (c == ':' && i + 1 < sql.size() && sql[i + 1] == ':') {  // a cast
      out.append("::");
      i += 2;
    } else if (c == ':' && i + 1 < sql.size() &&
               (std::isalpha(static_cast<unsigned char>(sql[i + 1])) || sql[i + 1] == '_') &&
               (i == 0 || !is_name_char(sql[i - 1]))) {
      size_t j = i + 1;
      while (j < sql.size() && is_name_char(sql[j])) ++j;
      std::string name(sql.substr(i, j - i));
      int n = 0;
      for (size_t k = 0; k < names->size(); ++k) {
        if ((*names)[k] == name) n = static_cast<int>(k) + 1;
      }
      if (n == 0) {
        n = largest + 1;
        slot(n);
        (*names)[n - 1] = name;
      }
      out += '$' + std::to_string(n);
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  *count = largest;
  return out;
}

namespace {
// libpq's notices (warnings, and a FATAL the server sent an idle connection) go to the
// storage log, one line each, rather than to stderr.
void LogNotice(const char* message) {
  std::string line(message ? message : "");
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  LogStorageMessage("PostgreSQL: " + line);
}
}  // namespace

void PgConnection::ReceiveNotice(void* self, const PGresult* notice) {
  LogNotice(PQresultErrorMessage(notice));
  // The server ends a session with a FATAL message, then closes the socket: an idle
  // connection that has read the one is as good as closed before the other arrives.
  const char* severity = PQresultErrorField(notice, PG_DIAG_SEVERITY_NONLOCALIZED);
  if (severity && (std::strcmp(severity, "FATAL") == 0 || std::strcmp(severity, "PANIC") == 0)) {
    static_cast<PgConnection*>(self)->ended_by_server_ = true;
  }
}

PgConnection::PgConnection(const std::string& url) : url_(url) {
  // Bounds unless the URL sets its own (libpq keeps the last value of a keyword, and the URL
  // is expanded last): a start must not hang on an unreachable server, nor a request on a
  // silent network (keepalives and tcp_user_timeout notice a dead peer within ~30 s).
  const char* keywords[] = {"connect_timeout", "keepalives", "keepalives_idle",
                            "keepalives_interval", "keepalives_count", "tcp_user_timeout",
                            "dbname", nullptr};
  const char* values[] = {"5", "1", "10", "5", "3", "30000", url.c_str(), nullptr};
  conn_ = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    std::string why = conn_ ? PQerrorMessage(conn_) : "out of memory";
    if (conn_) PQfinish(conn_);
    conn_ = nullptr;
    throw SqlError(SqlError::Kind::kStorage,
                   "cannot connect to " + RedactedUrl(url) + ": " + why);
  }
  PQsetNoticeReceiver(conn_, &PgConnection::ReceiveNotice, this);  // kept across PQreset
  try {
    ApplySessionSettings();
  } catch (...) {
    PQfinish(conn_);
    conn_ = nullptr;
    throw;
  }
}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

void PgConnection::ApplySessionSettings() {
  exec(std::string("SET lock_timeout = '") + kPostgresLockTimeout + "'; SET statement_timeout = '" +
       kPostgresStatementTimeout +
       "'; SET client_min_messages = warning; SET TIME ZONE 'UTC'; SET extra_float_digits = 1");
}

bool PgConnection::Connected() const { return conn_ && PQstatus(conn_) == CONNECTION_OK; }

bool PgConnection::ClosedByServer() {
  if (!Connected()) return true;
  // An idle connection has nothing to read unless the server sent something (a FATAL
  // "terminating connection" on a shutdown) or closed its end (a restart, a crash, an
  // idle-session timeout): then reading tells libpq, whose status turns bad on the EOF.
  // The FATAL message and the EOF may arrive as two reads: read while there is something.
  for (int reads = 0; reads < 8; ++reads) {
    pollfd fd{PQsocket(conn_), POLLIN, 0};
    if (fd.fd < 0) return true;
    if (poll(&fd, 1, 0) <= 0) break;
    if (!PQconsumeInput(conn_)) return true;
    PQisBusy(conn_);  // parses what was read: a FATAL reaches ReceiveNotice
  }
  return ended_by_server_ || !Connected();
}

void PgConnection::Reconnect() {
  if (!ClosedByServer()) return;
  PQreset(conn_);
  prepared_.clear();  // a new session has none
  ended_by_server_ = false;
  if (!Connected()) {
    throw SqlError(SqlError::Kind::kStorage, "cannot reconnect to " + RedactedUrl(url_) + ": " +
                                                 PQerrorMessage(conn_));
  }
  ApplySessionSettings();
}

std::string PgConnection::PreparedName(const std::string& sql, const std::vector<unsigned>& types) {
  std::string key = sql;
  for (unsigned type : types) key += '\0' + std::to_string(type);
  if (auto found = prepared_.find(key); found != prepared_.end()) return found->second;
  if (prepared_.size() >= kMaxPreparedStatements) return "";
  std::string name = "gpuplan_p" + std::to_string(prepared_.size() + 1);
  PGresult* result = PQprepare(conn_, name.c_str(), sql.c_str(), static_cast<int>(types.size()),
                               types.data());
  if (!result || PQresultStatus(result) != PGRES_COMMAND_OK) {
    SqlError error = ErrorOf(result, sql);
    if (result) PQclear(result);
    throw error;
  }
  PQclear(result);
  prepared_.emplace(std::move(key), name);
  return name;
}

SqlError PgConnection::ErrorOf(const PGresult* result, std::string_view sql) const {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string message = result ? PQresultErrorMessage(result) : PQerrorMessage(conn_);
  SqlError::Kind kind = state ? KindOfState(state) : SqlError::Kind::kStorage;
  if (!Connected()) kind = SqlError::Kind::kStorage;
  std::string shown(sql.substr(0, 200));
  return SqlError(kind, message + " (in: " + shown + ")");
}

void PgConnection::exec(const std::string& sql) {
  PGresult* result = PQexec(conn_, sql.c_str());
  ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    SqlError error = ErrorOf(result, sql);
    if (result) PQclear(result);
    throw error;
  }
  // COMMIT of a transaction that had failed "succeeds" as a ROLLBACK: nothing was written.
  bool rolled_back = sql == "COMMIT" && std::strcmp(PQcmdStatus(result), "ROLLBACK") == 0;
  PQclear(result);
  if (rolled_back) {
    throw SqlError(SqlError::Kind::kStorage, "COMMIT of a failed transaction rolled it back");
  }
}

bool PgConnection::InTransaction() {
  PGTransactionStatusType status = PQtransactionStatus(conn_);
  return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE;
}

std::unique_ptr<StatementImpl> PgConnection::Prepare(std::string_view sql, RowFetch fetch) {
  return std::make_unique<PgStatement>(*this, sql, fetch);
}

}  // namespace gpuplan::db
