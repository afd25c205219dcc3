#include "tests/testing/seeded_template.h"

#include <SQLiteCpp/Backup.h>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "db/sqlite_connection.h"

namespace gpuplan::testing {

namespace {

constexpr int kBusyWaitMs = 30000;

// The template's path, or "" when this run has none.
std::string TemplatePath() {
  const char* path = std::getenv("GPUPLAN_TEST_SEEDED_DB");
  if (path == nullptr || *path == '\0') return "";
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? path : "";
}

}  // namespace

bool CopySeededTemplate(db::Connection& connection) {
  const std::string path = TemplatePath();
  if (path.empty()) return false;
  db::SqliteConnection* into = db::AsSqlite(connection);
  if (!into) {
    ADD_FAILURE() << "the seeded template is a SQLite file: it cannot be copied into another backend";
    return false;
  }
  try {
    // Dozens of test processes open the template at once; the first reader of a WAL file
    // rebuilds its index, and the others see SQLITE_BUSY meanwhile. Wait it out.
    SQLite::Database from(path, SQLite::OPEN_READONLY, kBusyWaitMs);
    into->sqlite().setBusyTimeout(kBusyWaitMs);
    SQLite::Backup backup(into->sqlite(), from);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyWaitMs);
    int step = backup.executeStep();
    while ((step == SQLITE_BUSY || step == SQLITE_LOCKED) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      step = backup.executeStep();
    }
    if (step != SQLITE_DONE) {
      ADD_FAILURE() << "copying the seeded template " << path << " did not finish: "
                    << sqlite3_errstr(step);
      return false;
    }
    return true;
  } catch (const SQLite::Exception& e) {
    ADD_FAILURE() << "copying the seeded template " << path << ": " << e.what();
    return false;
  }
}

bool CopySeededTemplate(const std::string& path) {
  if (TemplatePath().empty()) return false;
  try {
    db::SqliteConnection into(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    return CopySeededTemplate(into);
  } catch (const db::SqlError& e) {
    ADD_FAILURE() << "creating " << path << " from the seeded template: " << e.what();
    return false;
  }
}

}  // namespace gpuplan::testing
