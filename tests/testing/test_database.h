// The database one test uses, on the backend the run tests: a SQLite file by default, or a
// PostgreSQL database when the environment names a server (`make test-postgres`,
// scripts/test-postgres.sh):
//   GPUPLAN_TEST_POSTGRES           the server's URL without a database name
//                                   (postgresql://gpuplan@127.0.0.1:PORT)
//   GPUPLAN_TEST_POSTGRES_TEMPLATE  a seeded database that new ones are created from
// A seeded TestDatabase is a copy of the seeded template (tests/testing/seeded_template.h on
// SQLite; CREATE DATABASE ... TEMPLATE on PostgreSQL), or empty when the run has no template
// (the server seeds it on its first start). The PostgreSQL database is dropped when the
// object is destroyed. Not thread-safe; one per test.
#pragma once

#include <string>

#include "tests/testing/temp_dir.h"

namespace gpuplan::testing {

// True when this run tests the PostgreSQL backend.
bool OnPostgres();

class TestDatabase {
 public:
  enum class Start { kSeeded, kEmpty };
  // On SQLite the file is `dir`/gpuplan.db. Throws std::runtime_error when the PostgreSQL
  // database cannot be created.
  explicit TestDatabase(const TempDir& dir, Start start = Start::kSeeded);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  // What `--db` takes: the file's path or the database's URL.
  const std::string& url() const { return url_; }

 private:
  std::string url_;
  std::string postgres_name_;  // "" on SQLite
};

}  // namespace gpuplan::testing
