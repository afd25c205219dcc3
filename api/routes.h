// Route registration. Handlers are thin: decode and validate the request, call the
// planner or the catalog store, render JSON. Every error answer is problem+json.
#pragma once

#include <atomic>
#include <memory>
#include <string>

namespace httplib {
class Server;
}  // namespace httplib

namespace gpuplan::db {
class ConnectionPool;
}  // namespace gpuplan::db

namespace gpuplan::api {

class ServiceMetrics;  // api/metrics.h

struct ApiContext {
  db::ConnectionPool* pool = nullptr;  // required; outlives the server
  ServiceMetrics* metrics = nullptr;   // required; outlives the server
  std::string version;                 // service version reported by /healthz
  // Exports stream from a pooled connection for as long as the client reads; at most this
  // many at once (more answer 503 with Retry-After), so slow readers cannot take the pool.
  int max_concurrent_exports = 4;
  std::shared_ptr<std::atomic<int>> exports_in_flight = std::make_shared<std::atomic<int>>(0);
};

// Limits of list endpoints (documented in docs/api.md).
inline constexpr int kDefaultListLimit = 50;
inline constexpr int kMaxListLimit = 500;

class RouteTable;  // api/route_table.h

void RegisterHealthRoutes(RouteTable& routes, const ApiContext& context);
void RegisterCatalogRoutes(RouteTable& routes, const ApiContext& context);
void RegisterEstimateRoutes(RouteTable& routes, const ApiContext& context);
void RegisterCatalogWriteRoutes(RouteTable& routes, const ApiContext& context);
void RegisterMeasurementRoutes(RouteTable& routes, const ApiContext& context);
// POST /api/v1/estimates/ownership (buy or rent).
void RegisterOwnershipRoutes(RouteTable& routes, const ApiContext& context);
// GET /api/v1/plans/export (api/export_routes.cc).
void RegisterExportRoutes(RouteTable& routes, const ApiContext& context);

// Renders a problem+json body for every answer >= 400 that has no body yet (unknown
// path, payload too large, malformed request line...). A path `routes` knows, asked with a
// method it does not answer to, is a 405 with Allow.
void InstallErrorHandler(httplib::Server& server, const RouteTable& routes);

}  // namespace gpuplan::api
