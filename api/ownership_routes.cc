// POST /api/v1/estimates/ownership: buy or rent (plan/ownership.h). Public, like the other
// estimates. The body is decoded before a database connection is taken.
#include <httplib.h>

#include "api/body.h"
#include "api/http_util.h"
#include "api/ownership_json.h"
#include "api/recommender.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/cached_catalog.h"
#include "db/database.h"

namespace gpuplan::api {

namespace {

void PostOwnership(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto body = ReadJsonBody(req, res);
  if (!body) return;
  auto request = DecodeOwnershipRequest(*body);
  if (!request.ok()) return WriteError(req, res, request.error());
  auto lease = ctx.pool->Acquire();
  db::CachedCatalog store(lease);
  auto answer = plan::PlanOwnership(store, *request);
  if (!answer.ok()) return WriteError(req, res, answer.error());
  WriteJsonText(res, OwnershipPlanJson(*answer));
}

}  // namespace

void RegisterOwnershipRoutes(RouteTable& routes, const ApiContext& context) {
  routes.Post("/api/v1/estimates/ownership", Bind(context, PostOwnership));
}

}  // namespace gpuplan::api
