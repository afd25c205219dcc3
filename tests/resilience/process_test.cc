// What only the real process shows: its log cannot be forged through a request path, and
// its dashboard directory cannot be left through a symbolic link.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <chrono>
#include <string>
#include <thread>

#include "server/app.h"
#include "tests/testing/server_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_database.h"

namespace gpuplan {
namespace {

using testing::ServerProcess;
using testing::TempDir;

TEST(ProcessTest, RequestPathsCannotForgeLogLines) {
  TempDir dir;
  testing::TestDatabase database(dir);  // the backend the run tests
  const std::string db_path = database.url();
  ASSERT_TRUE(server::PrepareDatabase(db_path).ok());
  ServerProcess server(db_path, dir.File("log"));
  httplib::Client client("127.0.0.1", server.port());
  for (const char* path : {"/api/v1/gpus/x%0A2026-01-01 [info] FORGED-LINE",
                           "/x%0D%0AFORGED-CR", "/%1b[31mFORGED-ESCAPE"}) {
    auto res = client.Get(path);
    ASSERT_TRUE(res);
    EXPECT_GE(res->status, 400);
    EXPECT_LT(res->status, 500);
  }
  auto ok = client.Get("/healthz");
  ASSERT_TRUE(ok);
  // A request's line is logged by its worker after the answer is sent, so lines may land
  // late and out of order: wait (up to 10 s, for loaded CI machines) for all four.
  std::string log;
  std::vector<std::string> forged;
  for (int i = 0; i < 200; ++i) {
    log = server.Log();
    forged.clear();
    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find("FORGED") != std::string::npos) forged.push_back(line);
    }
    if (forged.size() >= 3 && log.find("GET /healthz") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (const std::string& line : forged) {
    EXPECT_EQ(line.rfind("[", 0), 0u) << "a log line starts with request text: " << line;
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << "raw escape in the log: " << line;
    EXPECT_EQ(line.find('\r'), std::string::npos) << "raw CR in the log: " << line;
  }
  EXPECT_EQ(forged.size(), 3u) << log;  // each request logged, escaped, on its own line
}

TEST(ProcessTest, TheDashboardNeverFollowsSymbolicLinks) {
  TempDir dir;
  testing::TestDatabase database(dir);  // the backend the run tests
  const std::string db_path = database.url();
  ASSERT_TRUE(server::PrepareDatabase(db_path).ok());
  std::filesystem::path web = dir.path() / "static";
  std::filesystem::create_directories(web / "sub");
  std::ofstream(web / "index.html") << "<title>gpuplan</title>";
  std::ofstream(dir.path() / "secret.txt") << "TOP-SECRET";
  std::filesystem::create_symlink(dir.path() / "secret.txt", web / "leak.txt");
  std::filesystem::create_directory_symlink(dir.path(), web / "sub" / "up");
  ServerProcess server(db_path, dir.File("log"), {}, web.string());
  httplib::Client client("127.0.0.1", server.port());
  for (const char* path : {"/leak.txt", "/sub/up/secret.txt", "/../secret.txt",
                           "/%2e%2e/secret.txt", "/sub/../leak.txt"}) {
    auto res = client.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path;
    EXPECT_EQ(res->body.find("TOP-SECRET"), std::string::npos) << path;
  }
  auto index = client.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_NE(index->body.find("gpuplan"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
