// App::Stop() is never lost: a stop that comes before Run(), or while Run() is still
// starting its listener, still makes Run() return (httplib's own stop() does nothing until
// its accept loop is running, which once hung a test's teardown until ctest killed it).
#include "server/app.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "tests/testing/temp_dir.h"
#include "tests/testing/test_database.h"

namespace gpuplan::server {
namespace {

using ::gpuplan::testing::TempDir;
using ::gpuplan::testing::TestDatabase;

std::unique_ptr<App> BoundApp(const std::string& db) {
  ServeConfig config;
  config.port = 0;
  config.db_path = db;
  config.db_connections = 2;
  auto app = App::Create(config);
  EXPECT_TRUE(app.ok()) << app.error().message;
  if (!app.ok()) return nullptr;
  auto port = (*app)->Bind();
  EXPECT_TRUE(port.ok()) << port.error().message;
  return std::move(app).value();
}

// Runs `body` on a thread and reports whether it finished within `limit`; a hung body is
// left detached (the test has failed by then).
bool FinishesWithin(std::chrono::seconds limit, std::function<void()> body) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([done, body = std::move(body)] {
    body();
    done->set_value();
  }).detach();
  return finished.wait_for(limit) == std::future_status::ready;
}

TEST(AppLifecycleTest, StopBeforeRunMakesRunReturnAtOnce) {
  TempDir dir;
  TestDatabase db(dir);
  std::shared_ptr<App> app = BoundApp(db.url());
  ASSERT_TRUE(app);
  app->Stop();
  EXPECT_TRUE(FinishesWithin(std::chrono::seconds(10), [app] { app->Run(); }))
      << "Run() after Stop() kept serving";
}

TEST(AppLifecycleTest, StopRacingAStartingRunIsNeverLost) {
  TempDir dir;
  TestDatabase db(dir);
  for (int round = 0; round < 30; ++round) {
    std::shared_ptr<App> app = BoundApp(db.url());
    ASSERT_TRUE(app);
    const bool stopped = FinishesWithin(std::chrono::seconds(10), [app, round] {
      std::thread runner([app] { app->Run(); });
      // From no delay at all to a listener that is surely up.
      if (round % 3 == 1) std::this_thread::yield();
      if (round % 3 == 2) std::this_thread::sleep_for(std::chrono::milliseconds(round));
      app->Stop();
      runner.join();
    });
    ASSERT_TRUE(stopped) << "round " << round << ": Stop() was lost and Run() never returned";
  }
}

}  // namespace
}  // namespace gpuplan::server
