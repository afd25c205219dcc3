// POST /api/v1/measurements (record a run) and GET /api/v1/measurements (the caller's runs
// and shared ones). Both need an API key: the key is whose runs they are.
#include <httplib.h>

#include "api/auth.h"
#include "api/body.h"
#include "api/cursor.h"
#include "api/http_util.h"
#include "api/measurements.h"
#include "api/problem.h"
#include "api/query_params.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/cached_catalog.h"
#include "db/database.h"
#include "model/workload.h"

namespace gpuplan::api {

namespace {

void PostMeasurement(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto key = Authorize(*ctx.pool, req, res, "write");
  if (!key) return;
  auto body = ReadJsonBody(req, res);
  if (!body) return;
  auto run = DecodeMeasurement(*body);
  if (!run.ok()) return WriteError(req, res, run.error());
  auto lease = ctx.pool->Acquire();
  {
    db::CachedCatalog catalog(lease);
    Status checked = CheckRun(catalog, *run);
    if (!checked.ok()) return WriteError(req, res, checked.error());
  }
  run->row.owner_key_id = key->id;
  auto stored = db::MeasurementStore(*lease).Add({run->row}, "/");
  if (!stored.ok()) return WriteError(req, res, stored.error());
  JsonWriter out;
  WriteMeasurement(out, stored->front(), run->prediction);
  WriteJsonText(res, out.Take(), 201);
}

void ListMeasurements(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto key = Authorize(*ctx.pool, req, res, "write");
  if (!key) return;
  QueryParams q(req.params, {"family", "gpu", "limit", "cursor"});
  db::MeasurementQuery query;
  query.owner_key_id = key->id;
  query.family = q.String("family");
  if (!query.family.empty() && !model::ParseFamily(query.family)) {
    q.Fail("family", "family must be one of cnn, encoder, vit, decoder, moe, rnn, encoder_decoder");
  }
  query.gpu_id = q.String("gpu");
  query.limit = static_cast<int>(q.Integer("limit", 1, kMaxListLimit).value_or(kDefaultListLimit));
  const std::string fingerprint =
      Fingerprint("measurements|" + std::to_string(key->id) + "|" + query.family + "|" + query.gpu_id);
  std::string cursor = q.String("cursor");
  if (!cursor.empty() && q.ok()) {
    auto position = DecodePosition(cursor, fingerprint, 1);
    if (!position.ok()) return WriteError(req, res, position.error());
    try {
      query.after_id = std::stoll(position->keys.at(0));
    } catch (const std::exception&) {
      q.Fail("cursor", "cursor is not one of this listing");
    }
  }
  if (!q.ok()) return WriteError(req, res, q.error());
  auto lease = ctx.pool->Acquire();
  auto rows = db::MeasurementStore(*lease).List(query);
  if (!rows.ok()) return WriteError(req, res, rows.error());
  JsonWriter out;
  out.BeginObject();
  out.Key("items");
  out.BeginArray();
  for (const db::Measurement& m : *rows) WriteMeasurement(out, m, std::nullopt);
  out.EndArray();
  if (static_cast<int>(rows->size()) == query.limit) {
    out.Field("next_cursor",
              EncodePosition({std::nullopt, {std::to_string(rows->back().id)}}, fingerprint));
  } else {
    out.Field("next_cursor", nullptr);
  }
  out.EndObject();
  WriteJsonText(res, out.Take());
}

}  // namespace

void RegisterMeasurementRoutes(RouteTable& routes, const ApiContext& context) {
  routes.Post("/api/v1/measurements", Bind(context, PostMeasurement));
  routes.Get("/api/v1/measurements", Bind(context, ListMeasurements));
}

}  // namespace gpuplan::api
