// The gpuplan HTTP service: opens, migrates and (on first start) seeds the database,
// wires the routes, logs one line per request, and serves until Stop().
// Tests start the same App on an ephemeral port with a temporary database file.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "model/result.h"
#include "server/config.h"

namespace gpuplan::db {
class ConnectionPool;
}  // namespace gpuplan::db

namespace gpuplan::api {
class RouteTable;
class ServiceMetrics;
class CorsPolicy;
}  // namespace gpuplan::api

namespace gpuplan::server {

class GuardedServer;
class StaticFiles;

inline constexpr const char* kVersion = "0.1.0";

class App {
 public:
  // Opens the database (creating its directory if needed), migrates and seeds it.
  static Result<std::unique_ptr<App>> Create(const ServeConfig& config);
  ~App();

  // Binds the listening socket; returns the port (useful with port 0).
  Result<int> Bind();
  // Serves until Stop() is called from another thread. Requires Bind(). Returns at once
  // when Stop() came first.
  void Run();
  // Stops accepting, lets in-flight requests finish, makes Run() return. Thread-safe, and
  // never lost: a Stop() that races a starting Run() waits until the listener is up (or
  // Run() has returned) before shutting it, since httplib's stop() is a no-op before then.
  void Stop();

 private:
  App(ServeConfig config, std::unique_ptr<db::ConnectionPool> pool);
  void Configure();

  ServeConfig config_;
  std::unique_ptr<db::ConnectionPool> pool_;
  std::unique_ptr<GuardedServer> server_;
  std::unique_ptr<StaticFiles> static_files_;
  std::unique_ptr<api::RouteTable> routes_;
  std::unique_ptr<api::ServiceMetrics> metrics_;
  std::unique_ptr<api::CorsPolicy> cors_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> run_started_{false};
  std::atomic<bool> run_finished_{false};
};

// Opens `db_path`, applies migrations and seeds the catalog if it is new. Logs the
// seed report. Used by `serve` and `migrate`.
Status PrepareDatabase(const std::string& db_path);

}  // namespace gpuplan::server
