#include "tests/testing/test_database.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>

#include "db/database.h"
#include "tests/testing/seeded_template.h"

namespace gpuplan::testing {

namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string Server() {
  std::string url = Env("GPUPLAN_TEST_POSTGRES");
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// Runs `sql` on the server's maintenance database (CREATE/DROP DATABASE run outside a
// transaction, on a database other than the one they name).
void Maintenance(const std::string& sql) {
  auto db = db::OpenDatabase(Server() + "/postgres");
  if (!db.ok()) throw std::runtime_error("test database server: " + db.error().message);
  try {
    (*db)->exec(sql);
  } catch (const db::SqlError& e) {
    throw std::runtime_error(std::string("test database server: ") + e.what());
  }
}

}  // namespace

bool OnPostgres() { return !Server().empty(); }

TestDatabase::TestDatabase(const TempDir& dir, Start start) {
  if (!OnPostgres()) {
    url_ = dir.File("gpuplan.db");
    if (start == Start::kSeeded) CopySeededTemplate(url_);  // else the server seeds it
    return;
  }
  static std::atomic<int> counter{0};
  postgres_name_ = "t" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  std::string from = Env("GPUPLAN_TEST_POSTGRES_TEMPLATE");
  std::string sql = "CREATE DATABASE " + postgres_name_;
  if (start == Start::kSeeded && !from.empty()) sql += " TEMPLATE " + from;
  Maintenance("DROP DATABASE IF EXISTS " + postgres_name_ + " WITH (FORCE)");
  Maintenance(sql);
  url_ = Server() + "/" + postgres_name_;
}

TestDatabase::~TestDatabase() {
  if (postgres_name_.empty()) return;
  try {
    Maintenance("DROP DATABASE IF EXISTS " + postgres_name_ + " WITH (FORCE)");
  } catch (const std::exception&) {  // the next run's DROP ... IF EXISTS clears it
  }
}

}  // namespace gpuplan::testing
