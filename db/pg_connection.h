// The PostgreSQL backend of db/sql.h (for several replicas on one shared catalog): a
// Connection over one libpq connection. Statements run with PQexecParams in text format; a
// Statement run again with the parameter types of its previous run (a loop: an import's
// chunks) is prepared on the server then (PQprepare) and runs prepared from there on, so the
// loop is parsed and planned once (a NULL keeps its slot's last type, so absent values do
// not change the types). The session keeps up to kMaxPreparedStatements of them, keyed by text and parameter
// types, for later Statements with the same text; a reconnect starts a session without
// them. A statement run once, as every read is, keeps nothing on the server (so a read is
// planned for its own parameters). One prepared with RowFetch::kBatched reads its rows
// through a cursor, a thousand at a time.
//
// Parameters: the SQLite forms the project writes (`?`, `?NNN`, `:name`) become `$N` when a
// statement is prepared; integers are sent as int8, reals as float8, text and NULL untyped
// (the server infers their type from where they are used). Results: booleans read as 1/0,
// numeric aggregates as numbers, so the SQLite-era readers work unchanged.
//
// Errors: SQLSTATE classes map to SqlError kinds (db/sql.h): 23505 kUnique, 23503
// kForeignKey, other class 23 kConstraint; 40001, 40P01, 55P03 and 57014 (serialization
// failure, deadlock, lock timeout, statement timeout) kBusy; a lost connection, class 08,
// 53, 57P0x and 58 kStorage. A lost connection is not re-established in the middle of a
// lease (a transaction may have been open): Reconnect() does it when the pool hands the
// connection out again.
//
// Session settings: lock_timeout 5 s (as SQLite's busy timeout), statement_timeout 60 s,
// UTC, shortest exact float output; unless the URL names its own: connect_timeout 5 s, TCP
// keepalives and tcp_user_timeout 30 s (a dead peer is noticed, not waited on for the
// kernel's 15 minutes). Thread safety: one thread at a time, as db/sql.h says.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "db/sql.h"

struct pg_conn;
struct pg_result;

namespace gpuplan::db {

// How long a statement waits for a lock (a row, or the writers' advisory lock) before it
// fails with kBusy: the same bound as SQLite's busy timeout.
inline constexpr const char* kPostgresLockTimeout = "5s";
// How long one statement may run before it fails with kBusy (a bound on a request's wait,
// far above any statement the service runs: the whole-catalog offer query takes ~0.1 s).
inline constexpr const char* kPostgresStatementTimeout = "60s";

// How many prepared statements one session keeps (each holds a plan on the server); past
// that, statements run unprepared.
inline constexpr size_t kMaxPreparedStatements = 256;

// True when `url` names a PostgreSQL database (postgresql:// or postgres://); anything else
// is a SQLite file path.
bool IsPostgresUrl(std::string_view url);

// `url` with its password, if any (user:password@ or a password= parameter), replaced by
// "***" (for logs and errors).
std::string RedactedUrl(std::string_view url);

// `sql` with SQLite parameters turned into PostgreSQL's `$N`: `?NNN` keeps its number, `?`
// takes the next one, and each distinct `:name` takes the next one (its name is pushed onto
// `names` at index N-1; unnamed slots get ""). Text in quotes, `$tag$` dollar quotes, `--`
// and (nested) `/* */` comments, and `::` casts is left alone. `count` receives the largest N.
std::string PostgresPlaceholders(std::string_view sql, std::vector<std::string>* names, int* count);

class PgConnection final : public Connection {
 public:
  // Connects to `url`; throws SqlError (kStorage) when it cannot.
  explicit PgConnection(const std::string& url);
  ~PgConnection() override;
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  SqlDialect dialect() const noexcept override { return SqlDialect::kPostgres; }
  void exec(const std::string& sql) override;
  bool InTransaction() override;
  std::unique_ptr<StatementImpl> Prepare(std::string_view sql, RowFetch fetch) override;

  // True when the connection to the server is up (as far as libpq knows).
  bool Connected() const;
  // Re-establishes a lost connection (no-op when it is up); throws SqlError (kStorage). Lost
  // includes a connection the server closed while it sat idle (a PostgreSQL restart): a
  // non-blocking read of its socket tells, so the pool's next lease does not fail on it.
  void Reconnect();

  // The name of this session's prepared statement for `sql` (already in `$N` form) with
  // parameter types `types` (OIDs, 0 for "inferred"), preparing it first when the session
  // has not; "" when the session already holds kMaxPreparedStatements. Throws SqlError.
  std::string PreparedName(const std::string& sql, const std::vector<unsigned>& types);

  // The SqlError for a failed call whose result is `result` (may be null). For statements.
  SqlError ErrorOf(const pg_result* result, std::string_view sql) const;
  pg_conn* handle() { return conn_; }
  const std::string& url() const { return url_; }

 private:
  void ApplySessionSettings();
  // True when the server has closed (or is closing: it sent FATAL) this idle connection.
  // Never blocks.
  bool ClosedByServer();
  // libpq's notice receiver: logs the notice; a FATAL one marks the session ended.
  static void ReceiveNotice(void* self, const pg_result* notice);
  bool ended_by_server_ = false;
  pg_conn* conn_ = nullptr;
  std::string url_;
  std::unordered_map<std::string, std::string> prepared_;  // text + types -> name
};

}  // namespace gpuplan::db
