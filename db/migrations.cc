#include "db/migrations.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <array>
#include <string>

#include "db/field_rules.h"
#include "db/pg_connection.h"
#include "db/sql.h"
#include "db/sqlite_connection.h"

namespace gpuplan::db {

namespace {

// Migration N is kMigrations[N - 1]. Never edit a released migration: add a new one.
constexpr std::array<const char*, 10> kMigrations = {
    // 1: the catalog, prices, workloads, api keys, imports, fx rates.
    R"SQL(
CREATE TABLE gpus (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  vendor TEXT NOT NULL,
  architecture TEXT NOT NULL DEFAULT '',
  release_year INTEGER,
  memory_gb REAL NOT NULL CHECK (memory_gb > 0),
  memory_type TEXT NOT NULL DEFAULT '',
  memory_bw_gbps REAL NOT NULL DEFAULT 0 CHECK (memory_bw_gbps >= 0),
  fp64_tflops REAL NOT NULL DEFAULT 0 CHECK (fp64_tflops >= 0),
  fp32_tflops REAL NOT NULL DEFAULT 0 CHECK (fp32_tflops >= 0),
  tf32_tflops REAL NOT NULL DEFAULT 0 CHECK (tf32_tflops >= 0),
  fp16_tflops REAL NOT NULL DEFAULT 0 CHECK (fp16_tflops >= 0),
  bf16_tflops REAL NOT NULL DEFAULT 0 CHECK (bf16_tflops >= 0),
  fp8_tflops REAL NOT NULL DEFAULT 0 CHECK (fp8_tflops >= 0),
  int8_tops REAL NOT NULL DEFAULT 0 CHECK (int8_tops >= 0),
  nvlink_bw_gbps REAL NOT NULL DEFAULT 0 CHECK (nvlink_bw_gbps >= 0),
  pcie_gen INTEGER,
  tdp_w REAL NOT NULL DEFAULT 0 CHECK (tdp_w >= 0),
  form_factor TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT ''
);

-- A cloud's accelerator name (e.g. SkyPilot's "A100-80GB") -> a GPU id. cloud '*' applies
-- to every cloud; gpu_id NULL marks a known accelerator that is not a supported GPU.
CREATE TABLE gpu_synonyms (
  cloud TEXT NOT NULL,
  accelerator_name TEXT NOT NULL,
  gpu_id TEXT REFERENCES gpus(id) ON UPDATE CASCADE ON DELETE CASCADE,
  note TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (cloud, accelerator_name)
);

CREATE TABLE clouds (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  default_currency TEXT NOT NULL
);

CREATE TABLE regions (
  cloud TEXT NOT NULL REFERENCES clouds(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  display_name TEXT NOT NULL,
  country TEXT NOT NULL DEFAULT '',
  continent TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (cloud, id)
);

CREATE TABLE instance_types (
  cloud TEXT NOT NULL REFERENCES clouds(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  gpu_id TEXT NOT NULL REFERENCES gpus(id) ON UPDATE CASCADE,
  gpu_count INTEGER NOT NULL CHECK (gpu_count > 0),
  vcpus REAL CHECK (vcpus IS NULL OR vcpus > 0),
  memory_gib REAL CHECK (memory_gib IS NULL OR memory_gib > 0),
  interconnect TEXT NOT NULL DEFAULT 'none'
    CHECK (interconnect IN ('none', 'pcie', 'nvlink', 'nvswitch')),
  interconnect_bw_gbps REAL NOT NULL DEFAULT 0 CHECK (interconnect_bw_gbps >= 0),
  network_gbps REAL CHECK (network_gbps IS NULL OR network_gbps >= 0),
  arch TEXT NOT NULL DEFAULT 'x86_64',
  host_instance_type TEXT NOT NULL DEFAULT '',
  accelerator_name TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (cloud, id)
);
CREATE INDEX instance_types_gpu ON instance_types (gpu_id);

-- Price observations. zone '' = the whole region. Spot history is many rows over
-- observed_at; the current price of a key is its latest observation.
CREATE TABLE prices (
  id INTEGER PRIMARY KEY,
  cloud TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  region TEXT NOT NULL,
  zone TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL CHECK (kind IN ('ondemand', 'spot', 'reserved_1y', 'reserved_3y')),
  price_per_hour REAL NOT NULL CHECK (price_per_hour >= 0),
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  observed_at TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  FOREIGN KEY (cloud, instance_type) REFERENCES instance_types (cloud, id) ON DELETE CASCADE,
  FOREIGN KEY (cloud, region) REFERENCES regions (cloud, id),
  UNIQUE (cloud, instance_type, region, zone, kind, observed_at)
);
CREATE INDEX prices_region ON prices (cloud, region, kind);

-- The latest observation of every (cloud, instance type, region, zone, kind).
CREATE VIEW current_prices AS
SELECT p.* FROM prices p
WHERE p.observed_at = (
  SELECT MAX(q.observed_at) FROM prices q
  WHERE q.cloud = p.cloud AND q.instance_type = p.instance_type AND q.region = p.region
    AND q.zone = p.zone AND q.kind = p.kind);

CREATE TABLE workloads (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  family TEXT NOT NULL,
  spec TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  is_preset INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  scope TEXT NOT NULL CHECK (scope IN ('write', 'admin')),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  revoked_at TEXT
);

CREATE TABLE imports (
  id INTEGER PRIMARY KEY,
  actor TEXT NOT NULL,
  format TEXT NOT NULL,
  cloud TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  accepted INTEGER NOT NULL DEFAULT 0,
  updated INTEGER NOT NULL DEFAULT 0,
  skipped INTEGER NOT NULL DEFAULT 0,
  rejected INTEGER NOT NULL DEFAULT 0,
  dry_run INTEGER NOT NULL DEFAULT 0,
  note TEXT NOT NULL DEFAULT ''
);

-- Exchange rates: units of `currency` per 1 USD, as of a date. Operators update them.
CREATE TABLE fx_rates (
  currency TEXT PRIMARY KEY CHECK (length(currency) = 3),
  units_per_usd REAL NOT NULL CHECK (units_per_usd > 0),
  as_of TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT ''
);

CREATE TABLE catalog_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
)SQL",
    // 2: a visible prefix of each API key, to tell keys apart in listings and logs.
    R"SQL(
ALTER TABLE api_keys ADD COLUMN prefix TEXT NOT NULL DEFAULT '';
)SQL",
    // 3: the microarchitecture the step model's saturation and floors use (0 = unknown).
    R"SQL(
ALTER TABLE gpus ADD COLUMN sm_count REAL NOT NULL DEFAULT 0 CHECK (sm_count >= 0);
ALTER TABLE gpus ADD COLUMN boost_clock_mhz REAL NOT NULL DEFAULT 0 CHECK (boost_clock_mhz >= 0);
ALTER TABLE gpus ADD COLUMN l2_cache_mb REAL NOT NULL DEFAULT 0 CHECK (l2_cache_mb >= 0);
)SQL",
    // 4: the clock it sustains, FP16 rates by unit and accumulate type, and the DRAM bandwidth
    // a published streaming benchmark reached (0 = unknown).
    R"SQL(
ALTER TABLE gpus ADD COLUMN base_clock_mhz REAL NOT NULL DEFAULT 0 CHECK (base_clock_mhz >= 0);
ALTER TABLE gpus ADD COLUMN fp16_acc16_tflops REAL NOT NULL DEFAULT 0
  CHECK (fp16_acc16_tflops >= 0);
ALTER TABLE gpus ADD COLUMN fp16_vector_tflops REAL NOT NULL DEFAULT 0
  CHECK (fp16_vector_tflops >= 0);
ALTER TABLE gpus ADD COLUMN achievable_bw_gbps REAL NOT NULL DEFAULT 0
  CHECK (achievable_bw_gbps >= 0);
)SQL",
    // 5: the launch list price in USD (NULL where none is published), for buy-or-rent answers.
    R"SQL(
ALTER TABLE gpus ADD COLUMN launch_price_usd REAL
  CHECK (launch_price_usd IS NULL OR launch_price_usd > 0);
)SQL",
    // 6: measured training runs that calibrate later estimates (per API key, or shared).
    R"SQL(
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  owner_key_id INTEGER REFERENCES api_keys(id) ON DELETE CASCADE,
  shared INTEGER NOT NULL DEFAULT 0 CHECK (shared IN (0, 1)),
  family TEXT NOT NULL,
  workload_id TEXT NOT NULL,
  gpu_id TEXT NOT NULL,
  gpus_per_node INTEGER NOT NULL CHECK (gpus_per_node > 0),
  nodes INTEGER NOT NULL CHECK (nodes > 0),
  cloud TEXT NOT NULL DEFAULT '',
  instance_type TEXT NOT NULL DEFAULT '',
  global_batch INTEGER NOT NULL CHECK (global_batch > 0),
  precision TEXT NOT NULL,
  framework TEXT NOT NULL,
  samples_per_s REAL NOT NULL CHECK (samples_per_s > 0),
  measured_as TEXT NOT NULL,
  measured_value REAL NOT NULL CHECK (measured_value > 0),
  note TEXT NOT NULL DEFAULT '',
  measured_on TEXT NOT NULL,
  created_at TEXT NOT NULL,
  request TEXT NOT NULL
);
CREATE INDEX measurements_by_family ON measurements(family, gpu_id);
)SQL",
    // 7: one stored form per instant (rules::FormatTimestamp), so that string order is time
    // order: stamps written with UTC offsets or fractions by older builds are rewritten.
    // Two observations of one price key that now name the same instant keep the rewritten one.
    R"SQL(
UPDATE OR REPLACE prices SET observed_at = canonical_timestamp(observed_at)
  WHERE observed_at IS NOT canonical_timestamp(observed_at);
UPDATE fx_rates SET as_of = canonical_timestamp(as_of)
  WHERE as_of IS NOT canonical_timestamp(as_of);
UPDATE measurements SET measured_on = canonical_timestamp(measured_on)
  WHERE measured_on IS NOT canonical_timestamp(measured_on);
)SQL",
    // 8: spot interruption bands (AWS Spot Instance Advisor) per instance type and region:
    // the monthly fraction of spot instances interrupted, as a range (db/spot_bands.h).
    R"SQL(
CREATE TABLE spot_interruption_bands (
  cloud TEXT NOT NULL,
  region TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  band INTEGER NOT NULL CHECK (band BETWEEN 0 AND 4),
  label TEXT NOT NULL,
  low_fraction REAL NOT NULL CHECK (low_fraction >= 0 AND low_fraction < 1),
  high_fraction REAL CHECK (high_fraction IS NULL OR
                            (high_fraction >= low_fraction AND high_fraction < 1)),
  savings_percent REAL CHECK (savings_percent IS NULL OR savings_percent BETWEEN -1000 AND 100),
  observed_at TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (cloud, region, instance_type)
);
)SQL",
    // 9: whether a cloud prices per region or lists one price everywhere (Cloud::price_scope).
    R"SQL(
ALTER TABLE clouds ADD COLUMN price_scope TEXT NOT NULL DEFAULT 'region'
  CHECK (price_scope IN ('region', 'cloud'));
)SQL",
    // 10: the dense FP4 (NVFP4) tensor rate, for NVFP4 training on Blackwell (0 = none).
    R"SQL(
ALTER TABLE gpus ADD COLUMN fp4_tflops REAL NOT NULL DEFAULT 0 CHECK (fp4_tflops >= 0);
)SQL",
};

// canonical_timestamp(text): rules::CanonicalOrSame, for migrations that rewrite stamps.
void CanonicalTimestampSql(sqlite3_context* context, int, sqlite3_value** argv) {
  const unsigned char* text = sqlite3_value_text(argv[0]);
  if (!text) return sqlite3_result_null(context);
  std::string out = rules::CanonicalOrSame(reinterpret_cast<const char*>(text));
  sqlite3_result_text(context, out.c_str(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

}  // namespace

int LatestSchemaVersion() { return static_cast<int>(kMigrations.size()); }

namespace {

constexpr long long kStartupLockKey = 0x6770706c616e7331LL;  // "gpuplans1"

void ReplaceWord(std::string& text, std::string_view word, std::string_view with) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at)) {
    bool starts = at == 0 || !is_word(text[at - 1]);
    bool ends = at + word.size() == text.size() || !is_word(text[at + word.size()]);
    if (starts && ends) {
      text.replace(at, word.size(), with);
      at += with.size();
    } else {
      at += word.size();
    }
  }
}

// Migration N's PostgreSQL text.
std::string PostgresMigration(int n) {
  // 7 rewrote stamps older SQLite builds wrote in other forms; a PostgreSQL catalog only
  // ever held canonical ones.
  if (n == 7) return "SELECT 1";
  return PostgresDdl(kMigrations[n - 1]);
}

Status MigratePostgres(Connection& db, int target) {
  // Up to date (every start but the first of a new build): no writers' lock to wait for.
  if (SchemaVersion(db) == std::min(target, LatestSchemaVersion())) return OkStatus();
  Transaction tx(db, TransactionKind::kWrite);
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  int version = SchemaVersion(db);
  if (version > LatestSchemaVersion()) {
    return Error::Unavailable("database schema version " + std::to_string(version) +
                              " is newer than this build (" +
                              std::to_string(LatestSchemaVersion()) + ")");
  }
  int last = std::min(target, LatestSchemaVersion());
  if (last <= version) return OkStatus();
  for (int next = version + 1; next <= last; ++next) db.exec(PostgresMigration(next));
  db.exec("DELETE FROM schema_version; INSERT INTO schema_version (version) VALUES (" +
          std::to_string(last) + ")");
  tx.commit();
  return OkStatus();
}

}  // namespace

std::string PostgresDdl(std::string_view sqlite_sql) {
  std::string out(sqlite_sql);
  ReplaceWord(out, "INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY");
  ReplaceWord(out, "INTEGER", "BIGINT");
  ReplaceWord(out, "REAL", "DOUBLE PRECISION");
  ReplaceWord(out, "TEXT", "TEXT COLLATE \"C\"");
  ReplaceWord(out, "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
              "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')");
  return out;
}

int SchemaVersion(Connection& db) {
  if (db.dialect() == SqlDialect::kPostgres) {
    if (db.execAndGet("SELECT to_regclass('schema_version') IS NULL").getInt() != 0) return 0;
    return db.execAndGet("SELECT coalesce(max(version), 0) FROM schema_version").getInt();
  }
  return db.execAndGet("PRAGMA user_version").getInt();
}

Status Migrate(Connection& db) { return MigrateTo(db, LatestSchemaVersion()); }

Status MigrateTo(Connection& db, int target) {
  try {
    if (db.dialect() == SqlDialect::kPostgres) return MigratePostgres(db, target);
    int version = SchemaVersion(db);
    if (version > LatestSchemaVersion()) {
      return Error::Unavailable("database schema version " + std::to_string(version) +
                                " is newer than this build (" +
                                std::to_string(LatestSchemaVersion()) + ")");
    }
    SqliteConnection* sqlite = AsSqlite(db);
    sqlite->sqlite().createFunction("canonical_timestamp", 1, true, nullptr, CanonicalTimestampSql);
    for (int next = version + 1; next <= std::min(target, LatestSchemaVersion()); ++next) {
      Transaction tx(db);
      db.exec(kMigrations[next - 1]);
      db.exec("PRAGMA user_version = " + std::to_string(next));
      tx.commit();
    }
    return OkStatus();
  } catch (const SqlError& e) {
    return Error::Unavailable(std::string("migration failed: ") + e.what());
  }
}

StartupLock::StartupLock(Connection& db) : db_(db) {
  if (db_.dialect() != SqlDialect::kPostgres) return;
  db_.exec("SET lock_timeout = '" + std::to_string(kWaitSeconds) + "s'");
  try {
    db_.exec("SELECT pg_advisory_lock(" + std::to_string(kStartupLockKey) + ")");
  } catch (...) {
    db_.exec(std::string("SET lock_timeout = '") + kPostgresLockTimeout + "'");
    throw;
  }
  db_.exec(std::string("SET lock_timeout = '") + kPostgresLockTimeout + "'");
  held_ = true;
}

StartupLock::~StartupLock() {
  if (!held_) return;
  try {
    db_.exec("SELECT pg_advisory_unlock(" + std::to_string(kStartupLockKey) + ")");
  } catch (...) {  // a lost connection has released it already
  }
}

}  // namespace gpuplan::db
