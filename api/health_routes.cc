#include <httplib.h>

#include "api/http_util.h"
#include "api/metrics.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/catalog_store.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/text.h"

namespace gpuplan::api {

void RegisterHealthRoutes(RouteTable& routes, const ApiContext& context) {
  routes.Get("/healthz", [context](const httplib::Request&, httplib::Response& res) {
    WriteJson(res, {{"status", "ok"}, {"version", context.version}});
  });
  routes.Get("/metrics", [context](const httplib::Request&, httplib::Response& res) {
    res.set_content(context.metrics->Scrape(*context.pool), ServiceMetrics::kContentType);
  });
  routes.Get("/readyz", [context](const httplib::Request& req, httplib::Response& res) {
    Status health = context.pool->CheckHealth();
    if (!health.ok()) return WriteError(req, res, health.error());
    auto lease = context.pool->Acquire();
    WriteJson(res, {{"status", "ready"},
                    {"database", "ok"},
                    {"schema_version", db::SchemaVersion(*lease)}});
  });
}

void InstallErrorHandler(httplib::Server& server, const RouteTable& routes) {
  // Runs outside httplib's try block: it must not throw, whatever the request holds.
  httplib::Server::HandlerWithResponse handler = [&routes](const httplib::Request& req,
                                                           httplib::Response& res) noexcept {
    try {
      // httplib fills remote_addr once it has parsed the request line and headers: without
      // it, the request was malformed and the bytes after it must not be parsed as another
      // request (GuardedServer closes the connection; the answer says so).
      if (req.remote_addr.empty()) res.set_header("Connection", "close");
      // A body a route (or the pre-routing stage) wrote stays as it is. Handled all the same:
      // only then does httplib set Content-Length on an answer it writes outside routing
      // (a 413 to Expect: 100-continue), which a client needs to read it whole.
      if (!res.body.empty()) return httplib::Server::HandlerResponse::Handled;
      if (res.status == 404) {
        std::vector<std::string> methods = routes.MethodsFor(req.path);
        if (!methods.empty()) {
          res.set_header("Allow", JoinMethods(methods));
          WriteProblem(req, res, 405,
                       req.method + " is not allowed on " + db::Printable(req.path, 200) +
                           "; it answers to " + JoinMethods(methods));
          return httplib::Server::HandlerResponse::Handled;
        }
      }
      std::string detail;
      switch (res.status) {
        case 404: detail = "no resource at " + req.method + " " + db::Printable(req.path, 200); break;
        case 413: detail = "request body is larger than this endpoint accepts"; break;
        case 400: detail = "malformed HTTP request"; break;
        default: detail = "request failed";
      }
      WriteProblem(req, res, res.status, detail);
    } catch (...) {
      res.body.clear();  // httplib answers with its own empty body
    }
    return httplib::Server::HandlerResponse::Handled;
  };
  server.set_error_handler(std::move(handler));
}

}  // namespace gpuplan::api
