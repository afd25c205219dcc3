#include "server/app.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include <SQLiteCpp/Exception.h>

#include "api/auth.h"
#include "api/cors.h"
#include "api/etag.h"
#include "api/json_encode.h"
#include "api/metrics.h"
#include "api/problem.h"
#include "api/request_admission.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/catalog_writer.h"
#include "plan/deadline.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/text.h"
#include "db/write_transaction.h"
#include "server/guarded_server.h"
#include "server/log_format.h"
#include "server/request_head.h"
#include "server/static_files.h"

namespace gpuplan::server {

namespace {

thread_local std::optional<std::chrono::steady_clock::time_point> request_start;
// Whether this thread's request was counted in flight and not yet logged (the request-end
// handler finishes one that never reached the logger: a handler or logger that threw).
thread_local bool request_in_flight = false;
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
  for (const std::string& origin : config.cors_origins) {
    if (auto why = api::CorsPolicy::InvalidOrigin(origin)) return Error::Invalid("cors-origin", *why);
  }
  Status prepared = PrepareDatabase(config.db_path);
  if (!prepared.ok()) return prepared.error();
  auto pool = db::ConnectionPool::Open(config.db_path, std::max(1, config.db_connections));
  if (!pool.ok()) return pool.error();
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

// The answer for an exception that escaped a handler: what it says about the service's
// state maps to a status; the details go to the log only.
void AnswerException(const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) noexcept {
  try {
    std::string what = "unknown exception";
    int status = 500;
    std::string detail = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const db::PoolExhausted& e) {
      what = e.what();
      status = 503;
      detail = "the service is busy: no database connection came free in time; retry shortly";
    } catch (const plan::DeadlineExceeded& e) {
      what = e.what();
      status = 503;
      detail = "the request needed more work than one request may do; narrow it (fewer "
               "clouds, GPUs, nodes or scenarios) or retry";
    } catch (const SQLite::Exception& e) {
      what = e.what();
      if (db::IsBusy(e)) {
        status = 503;
        detail = "the catalog is busy with another write; retry shortly";
      } else if (db::IsStorageFault(e)) {
        status = 503;
        detail = "the database cannot answer now; retry shortly";
      }
    } catch (const std::bad_alloc&) {
      what = "out of memory";
      status = 503;
      detail = "the service has no memory for this request now; retry shortly";
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("{} {} id={} failed: {}", req.method, db::Printable(req.path),
                  res.get_header_value("X-Request-Id"), db::Printable(what));
    res.headers.erase("Content-Length");
    api::WriteProblem(req, res, status, detail);
  } catch (...) {
    res.status = 500;
  }
}

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

  bool auth_reads = config_.require_auth_for_reads;
  db::ConnectionPool* pool = pool_.get();
  const StaticFiles* files = static_files_.get();
  auto deadline = config_.request_deadline;
  auto admit = [](const httplib::Request& req, httplib::Response& res) -> bool {
    api::NormalizeEmptyBody(const_cast<httplib::Request&>(req));  // see request_admission.h
    api::Admission admission = api::AdmitRequest(req);
    if (admission.status != 0) {
      res.set_header("Connection", "close");
      GuardedServer::CloseAfterResponse();  // its body, if any, is never read
      api::WriteError(req, res, admission.error, admission.status);
      return false;
    }
    GuardedServer::ExpectBody(admission.body_bytes);
    return true;
  };
  s.set_expect_100_continue_handler([admit](const httplib::Request& req, httplib::Response& res) {
    return admit(req, res) ? 100 : res.status;
  });
  api::ServiceMetrics* metrics = metrics_.get();
  const api::RouteTable* routes = routes_.get();
  const api::CorsPolicy* cors = cors_.get();
  std::string cache_control = auth_reads ? api::kPrivateCatalogCacheControl : api::kCatalogCacheControl;
  s.set_pre_routing_handler([auth_reads, pool, files, deadline, admit, metrics, routes, cors,
                             cache_control](const httplib::Request& req, httplib::Response& res) {
    request_start = std::chrono::steady_clock::now();
    metrics->RequestStarted();
    request_in_flight = true;
    plan::SetRequestDeadline(deadline);
    std::string id = req.get_header_value("X-Request-Id");
    res.set_header("X-Request-Id", IsSafeRequestId(id) ? id : NewRequestId());
    cors->Apply(req, res);
    if (!admit(req, res)) return httplib::Server::HandlerResponse::Handled;
    // Range is served by static files only (ServeStaticFile); httplib would claim it on HEAD.
    if (req.method == "HEAD") res.set_header("Accept-Ranges", "none");
    bool api_path = req.path.rfind("/api/", 0) == 0;
    // OPTIONS (and CORS preflights) before authentication: browsers send no key with them.
    if (req.method == "OPTIONS") {
      std::vector<std::string> methods = routes->MethodsFor(req.path);
      if (methods.empty() && !api_path && files->Find(req.path)) methods = {"GET", "HEAD", "OPTIONS"};
      if (methods.empty()) {
        api::WriteError(req, res, Error::NotFound("no resource at " + db::Printable(req.path, 200)));
      } else {
        cors->AnswerOptions(req, res, methods);
      }
      return httplib::Server::HandlerResponse::Handled;
    }
    // With --require-auth-for-reads every API request, whatever its method, needs a key:
    // estimates and recommendations reveal catalog prices too.
    if (auth_reads && api_path && !api::Authorize(*pool, req, res, "write")) {
      res.set_header("Connection", "close");
      GuardedServer::CloseAfterResponse();
      return httplib::Server::HandlerResponse::Handled;
    }
    if (api::IsCatalogRead(req)) {
      long long generation = 0;
      {
        auto lease = pool->Acquire();
        generation = db::CatalogGeneration(lease.Prepared(db::kCatalogGenerationSql));
      }
      std::string etag = api::CatalogEtag(kVersion, generation);
      // The answer (post-routing) turns into 304 if it is a 200 the client already holds:
      // a 404 or 422 stays what it is, whatever If-None-Match says.
      res.set_header("ETag", etag);
      res.set_header("Cache-Control", cache_control);
    }
    if (!api_path && (req.method == "GET" || req.method == "HEAD")) {
      if (const StaticFiles::File* file = files->Find(req.path)) {
        ServeStaticFile(req, res, *file);
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // An ETag and Cache-Control set before routing describe the catalog answer, not an error;
  // a 200 whose tag If-None-Match holds becomes 304 Not Modified without its body. An answer
  // that closes the connection drops the Keep-Alive httplib adds to it.
  s.set_post_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.get_header_value("Connection") == "close") res.headers.erase("Keep-Alive");
    if (!res.has_header("ETag")) return;
    if (res.status != 200) {
      res.headers.erase("ETag");
      res.headers.erase("Cache-Control");
    } else if (req.has_header("If-None-Match") &&
               api::IfNoneMatchHolds(req.get_header_value("If-None-Match"),
                                     res.get_header_value("ETag"))) {
      res.status = 304;
      res.body.clear();
      res.headers.erase("Content-Type");
      res.headers.erase("Content-Length");
      // httplib set Content-Length for the body just dropped, and does not set it again.
      res.set_header("Content-Length", "0");
    }
  });
  bool json_logs = config_.log_format == "json";
  s.set_logger([metrics, routes, json_logs](const httplib::Request& req, const httplib::Response& res) {
    try {
      double ms = 0;
      if (request_start) {
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                       *request_start)
                 .count();
        request_start.reset();
      }
      std::string route = api::CurrentRoute();
      if (route.empty()) route = routes->TemplateFor(req.path);  // answered before routing
      if (route.empty()) {
        route = req.path.rfind("/api/", 0) == 0 || res.status >= 400 ? "unmatched" : "static";
      }
      if (request_in_flight) {
        request_in_flight = false;
        metrics->RequestFinished(route, db::Printable(req.method, 16), res.status, ms / 1000);
      }
      if (json_logs) {
        nlohmann::json line = {{"method", db::Printable(req.method, 16)},
                               {"path", db::Printable(req.path)},
                               {"route", route},
                               {"status", res.status},
                               {"ms", std::round(ms * 100) / 100},
                               {"request_id", res.get_header_value("X-Request-Id")}};
        AccessLog().info("{}", api::EncodeJson(line));
      } else {
        AccessLog().info("{} {} {} {:.2f}ms id={}", db::Printable(req.method, 16),
                     db::Printable(req.path), res.status, ms, res.get_header_value("X-Request-Id"));
      }
    } catch (...) {
    }
  });
  // Per-request thread state ends with the request, whether or not it was routed and logged
  // (a malformed request line never reaches pre-routing; a throw skips the logger).
  s.set_request_end_handler([metrics] {
    if (request_in_flight) metrics->RequestAbandoned();
    request_in_flight = false;
    request_start.reset();
    api::ResetCurrentRoute();
  });
  s.set_exception_handler(AnswerException);
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
               "connections)", kVersion, config_.host, port, config_.db_path,
               config_.limits.max_connections, config_.db_connections);
  return port;
}

void App::Run() { server_->listen_after_bind(); }

void App::Stop() {
  if (server_) server_->stop();
}

}  // namespace gpuplan::server
