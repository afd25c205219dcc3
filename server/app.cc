#include "server/app.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>

#include "api/auth.h"
#include "api/problem.h"
#include "api/routes.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"

namespace gpuplan::server {

namespace {

thread_local std::optional<std::chrono::steady_clock::time_point> request_start;
std::atomic<unsigned long long> request_counter{0};

std::string NewRequestId() {
  static const unsigned long long boot =
      static_cast<unsigned long long>(std::chrono::system_clock::now().time_since_epoch().count());
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%llx-%llu", boot & 0xffffffULL, ++request_counter);
  return buffer;
}

bool IsSafeRequestId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

void LogSeedReport(const db::SeedReport& report) {
  if (!report.seeded) {
    spdlog::info("catalog already seeded");
    return;
  }
  spdlog::info("seeded {} GPUs", report.gpus);
  for (const auto& f : report.files) {
    spdlog::info("seeded {} ({}): {} rows read, {} used, {} skipped, {} instance types, "
                 "{} prices, {} spot prices above on-demand",
                 f.file, f.cloud.empty() ? "several clouds" : f.cloud, f.report.rows_read,
                 f.report.rows_used, f.report.rows_skipped, f.instance_types, f.prices,
                 f.report.spot_above_ondemand);
    for (const auto& [reason, count] : f.report.skipped_by_reason) {
      spdlog::info("  skipped {} rows: {}", count, reason);
    }
  }
}

}  // namespace

Status PrepareDatabase(const std::string& db_path) {
  std::filesystem::path parent = std::filesystem::path(db_path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Error::Unavailable("cannot create " + parent.string() + ": " + ec.message());
  auto db = db::OpenDatabase(db_path);
  if (!db.ok()) return db.error();
  Status migrated = db::Migrate(**db);
  if (!migrated.ok()) return migrated;
  auto seeded = db::SeedIfEmpty(**db);
  if (!seeded.ok()) return seeded.error();
  LogSeedReport(*seeded);
  return OkStatus();
}

Result<std::unique_ptr<App>> App::Create(const ServeConfig& config) {
  Status prepared = PrepareDatabase(config.db_path);
  if (!prepared.ok()) return prepared.error();
  auto pool = db::ConnectionPool::Open(config.db_path, std::max(1, config.threads));
  if (!pool.ok()) return pool.error();
  std::unique_ptr<App> app(new App(config, std::move(pool).value()));
  app->Configure();
  return app;
}

App::App(ServeConfig config, std::unique_ptr<db::ConnectionPool> pool)
    : config_(std::move(config)), pool_(std::move(pool)),
      server_(std::make_unique<httplib::Server>()) {}

App::~App() { Stop(); }

void App::Configure() {
  httplib::Server& s = *server_;
  int threads = std::max(1, config_.threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_tcp_nodelay(true);  // see PLATFORM.md: Nagle + delayed ACK costs ~40 ms a response
  s.set_keep_alive_max_count(100);
  s.set_read_timeout(10, 0);
  s.set_write_timeout(10, 0);
  s.set_payload_max_length(config_.max_body_bytes);
  s.set_default_headers({{"X-Content-Type-Options", "nosniff"}});

  bool auth_reads = config_.require_auth_for_reads;
  db::ConnectionPool* pool = pool_.get();
  s.set_pre_routing_handler([auth_reads, pool](const httplib::Request& req, httplib::Response& res) {
    request_start = std::chrono::steady_clock::now();
    std::string id = req.get_header_value("X-Request-Id");
    res.set_header("X-Request-Id", IsSafeRequestId(id) ? id : NewRequestId());
    if (auth_reads && req.method == "GET" && req.path.rfind("/api/v1/", 0) == 0 &&
        !api::Authorize(*pool, req, res, "write")) {
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    double ms = 0;
    if (request_start) {
      ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                     *request_start)
               .count();
      request_start.reset();
    }
    spdlog::info("{} {} {} {:.2f}ms id={}", req.method, req.path, res.status, ms,
                 res.get_header_value("X-Request-Id"));
  });
  s.set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        spdlog::error("{} {} id={} failed: {}", req.method, req.path,
                      res.get_header_value("X-Request-Id"), what);
        api::WriteError(req, res, Error::Internal(what));
      });
  api::InstallErrorHandler(s);

  api::ApiContext context{pool_.get(), kVersion};
  api::RegisterHealthRoutes(s, context);
  api::RegisterCatalogRoutes(s, context);
  api::RegisterEstimateRoutes(s, context);
  api::RegisterCatalogWriteRoutes(s, context);

  if (std::filesystem::is_directory(config_.static_dir)) {
    s.set_mount_point("/", config_.static_dir);
  } else {
    spdlog::warn("static dir {} not found: the dashboard is not served", config_.static_dir);
  }
}

Result<int> App::Bind() {
  int port = config_.port;
  if (port == 0) {
    port = server_->bind_to_any_port(config_.host);
    if (port <= 0) return Error::Unavailable("cannot bind " + config_.host + " to any port");
  } else if (!server_->bind_to_port(config_.host, port)) {
    return Error::Unavailable("cannot bind " + config_.host + ":" + std::to_string(port));
  }
  spdlog::info("gpuplan {} listening on http://{}:{} (database {}, {} threads)", kVersion,
               config_.host, port, config_.db_path, config_.threads);
  return port;
}

void App::Run() { server_->listen_after_bind(); }

void App::Stop() {
  if (server_) server_->stop();
}

}  // namespace gpuplan::server
