#include "server/app.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>
#include <utility>

#include "api/cors.h"
#include "api/metrics.h"
#include "api/middleware.h"
#include "api/problem.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/cached_catalog.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/pg_connection.h"
#include "db/seeder.h"
#include "db/text.h"
#include "db/write_transaction.h"
#include "plan/price_quality.h"
#include "server/guarded_server.h"
#include "server/log_format.h"
#include "server/request_head.h"
#include "server/static_files.h"

namespace gpuplan::server {

namespace {

void LogSeedReport(const db::SeedReport& report) {
  if (!report.seeded) {
    spdlog::info("catalog already seeded");
    if (report.kubernetes_labels_added > 0) {
      spdlog::info("added {} Kubernetes GPU label rows (gpu_synonyms of scope kubernetes) to a "
                   "catalog seeded before them",
                   report.kubernetes_labels_added);
    }
    if (report.fp4_rates_added > 0) {
      spdlog::info("set the FP4 (NVFP4) rate of {} seed GPUs in a catalog seeded before it",
                   report.fp4_rates_added);
    }
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
    for (const auto& [reason, count] : f.report.corrected_by_reason) {
      spdlog::info("  corrected {} rows: {}", count, reason);
    }
  }
}

}  // namespace

Status PrepareDatabase(const std::string& db_path) {
  if (!db::IsPostgresUrl(db_path)) {
    std::filesystem::path parent = std::filesystem::path(db_path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) return Error::Unavailable("cannot create " + parent.string() + ": " + ec.message());
  }
  auto db = db::OpenDatabase(db_path);
  if (!db.ok()) return db.error();
  std::optional<db::StartupLock> one_at_a_time;
  try {
    one_at_a_time.emplace(**db);  // replicas starting at once migrate and seed once
  } catch (const db::SqlError& e) {
    return Error::Unavailable(std::string("cannot take the start-up lock: ") + e.what());
  }
  Status migrated = db::Migrate(**db);
  if (!migrated.ok()) return migrated;
  auto seeded = db::SeedIfEmpty(**db);
  if (!seeded.ok()) return seeded.error();
  LogSeedReport(*seeded);
  return OkStatus();
}

Result<std::unique_ptr<App>> App::Create(const ServeConfig& config) {
  for (const std::string& origin : config.cors_origins) {
    if (auto why = api::CorsPolicy::InvalidOrigin(origin)) return Error::Invalid("cors-origin", *why);
  }
  Status prepared = PrepareDatabase(config.db_path);
  if (!prepared.ok()) return prepared.error();
  auto pool = db::ConnectionPool::Open(config.db_path, std::max(1, config.db_connections));
  if (!pool.ok()) return pool.error();
  plan::SetStalePriceDays(config.stale_price_days);
  db::SetCatalogStateMaxAge(std::chrono::milliseconds(config.catalog_recheck_ms));
  std::unique_ptr<App> app(new App(config, std::move(pool).value()));
  app->Configure();
  return app;
}

App::App(ServeConfig config, std::unique_ptr<db::ConnectionPool> pool)
    : config_(std::move(config)), pool_(std::move(pool)),
      server_(std::make_unique<GuardedServer>(config_.limits)),
      static_files_(std::make_unique<StaticFiles>(StaticFiles::Load(config_.static_dir))),
      routes_(std::make_unique<api::RouteTable>(*server_)),
      metrics_(std::make_unique<api::ServiceMetrics>()),
      cors_(std::make_unique<api::CorsPolicy>(config_.cors_origins)) {}

App::~App() { Stop(); }

namespace {

// The API's description is an API answer, served from the static directory: like every
// route it ignores Range.
constexpr const char* kApiDescriptionPath = "/openapi.json";

// A dashboard file: whole (200), or the one byte range its Range header asks for (206).
// A Range that is not one satisfiable byte range is 416 with "Content-Range: bytes */size"
// (RFC 9110 15.5.17): several ranges are never served (no multi-part answers).
void ServeStaticFile(const httplib::Request& req, httplib::Response& res,
                     const StaticFiles::File& file) {
  bool ranges = req.path != kApiDescriptionPath;
  res.headers.erase("Accept-Ranges");
  res.set_header("Accept-Ranges", ranges ? "bytes" : "none");
  const std::string* range = GuardedServer::RequestRange();
  if (!range || !ranges || !IsByteRangeUnit(*range)) {
    res.set_content(file.content, file.mime_type);
    return;
  }
  // httplib would compress a 206 or 416 body after Content-Range was computed on the
  // file's own bytes: ranges are served as they lie in the file (identity coding).
  const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
  size_t size = file.content.size();
  std::optional<ByteRange> part = ParseSingleByteRange(*range, size);
  if (!part) {
    res.set_header("Content-Range", "bytes */" + std::to_string(size));
    api::WriteError(req, res,
                    Error::Invalid("header Range", "one byte range within the file's " +
                                                       std::to_string(size) +
                                                       " bytes is served: bytes=first-last, "
                                                       "bytes=first- or bytes=-suffix"),
                    416);
    return;
  }
  res.status = 206;
  res.set_header("Content-Range", "bytes " + std::to_string(part->first) + "-" +
                                      std::to_string(part->last) + "/" + std::to_string(size));
  res.set_content(file.content.substr(part->first, part->last - part->first + 1), file.mime_type);
}

}  // namespace

void App::Configure() {
  GuardedServer& s = *server_;
  db::SetStorageLog([](const std::string& what) {
    spdlog::error("database: {}", db::Printable(what));
  });
  s.set_tcp_nodelay(true);  // see PLATFORM.md: Nagle + delayed ACK costs ~40 ms a response
  s.set_default_headers({{"X-Content-Type-Options", "nosniff"}});

  api::MiddlewareOptions middleware;
  middleware.pool = pool_.get();
  middleware.routes = routes_.get();
  middleware.cors = cors_.get();
  middleware.metrics = metrics_.get();
  middleware.version = kVersion;
  middleware.require_auth_for_reads = config_.require_auth_for_reads;
  middleware.request_deadline = config_.request_deadline;
  middleware.json_logs = config_.log_format == "json";
  middleware.close_after_response = [] { GuardedServer::CloseAfterResponse(); };
  middleware.expect_body = [](size_t bytes) { GuardedServer::ExpectBody(bytes); };
  const StaticFiles* files = static_files_.get();
  middleware.serve_static = [files](const httplib::Request& req, httplib::Response& res) {
    const StaticFiles::File* file = files->Find(req.path);
    if (file) ServeStaticFile(req, res, *file);
    return file != nullptr;
  };
  middleware.is_static = [files](const std::string& path) { return files->Find(path) != nullptr; };
  middleware.access_log = [](const std::string& line) { AccessLog().info("{}", line); };
  middleware.error_log = [](const std::string& line) { spdlog::error("{}", line); };
  s.set_request_end_handler(api::InstallMiddleware(s, std::move(middleware)));
  api::InstallErrorHandler(s, *routes_);

  api::ApiContext context{pool_.get(), metrics_.get(), kVersion};
  api::RegisterHealthRoutes(*routes_, context);
  api::RegisterCatalogRoutes(*routes_, context);
  api::RegisterEstimateRoutes(*routes_, context);
  api::RegisterExportRoutes(*routes_, context);
  api::RegisterCatalogWriteRoutes(*routes_, context);
  api::RegisterMeasurementRoutes(*routes_, context);
  api::RegisterOwnershipRoutes(*routes_, context);

  if (static_files_->size() == 0) {
    spdlog::warn("static dir {} has no files: the dashboard is not served", config_.static_dir);
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
  server_->RaiseBacklog();
  spdlog::info("gpuplan {} listening on http://{}:{} (database {}, {} connections, {} database "
               "connections)", kVersion, config_.host, port, db::RedactedUrl(config_.db_path),
               config_.limits.max_connections, config_.db_connections);
  return port;
}

void App::Run() {
  run_started_ = true;
  if (!stop_requested_) server_->listen_after_bind();
  run_finished_ = true;
}

void App::Stop() {
  stop_requested_ = true;
  if (!server_ || !run_started_) return;  // Run() will see stop_requested_
  // listen_after_bind() marks the server running just before its accept loop; until then
  // httplib's stop() would do nothing and the loop would never end.
  while (!server_->is_running() && !run_finished_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  server_->stop();
}

}  // namespace gpuplan::server
