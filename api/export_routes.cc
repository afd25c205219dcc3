// GET /api/v1/plans/export?format=skypilot|kubernetes&kind=training|inference|recommendation
// &request=<the POST body, percent-encoded JSON>[&item=N]: the YAML the planning POST answers
// with ?format=, as a link one can share or paste into a terminal.
#include <httplib.h>

#include <string>

#include "api/export_answer.h"
#include "api/field_names.h"
#include "api/http_util.h"
#include "api/json_limits.h"
#include "api/measurements.h"
#include "api/plan_request.h"
#include "api/query_params.h"
#include "api/recommender.h"
#include "api/request_admission.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/cached_catalog.h"
#include "db/database.h"

namespace gpuplan::api {

namespace {

// Errors about the decoded `request` name that parameter; the JSON pointer into it leads
// the detail ("/workload: ...").
Error InRequestParameter(Error e) {
  e = WithWireNames(std::move(e));
  for (FieldError& f : e.fields) {
    if (!f.field.empty() && f.field.front() != '/') continue;  // "item", ...
    if (!f.field.empty()) f.detail = f.field + ": " + f.detail;
    f.field = "request";
  }
  return e;
}

template <typename Request>
void Export(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res,
            const Result<Request>& request, const ExportQuery& query) {
  if (!request.ok()) return WriteError(req, res, InRequestParameter(request.error()));
  std::optional<long long> owner;
  if (kUsesMeasurements<Request> && !MeasurementOwner(*ctx.pool, req, res, owner)) return;
  auto lease = ctx.pool->Acquire();
  Request calibrated = *request;
  db::CachedCatalog store(lease);
  Status attached = AttachMeasurements(store, *lease, owner, calibrated);
  if (!attached.ok()) return WriteError(req, res, attached.error());
  auto yaml = ExportAnswer(store, calibrated, query);
  if (!yaml.ok()) return WriteError(req, res, InRequestParameter(yaml.error()));
  res.status = 200;
  res.set_content(std::move(yaml).value(), kYamlContentType);
}

void GetPlanExport(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {"format", "kind", "request", "item"});
  ExportQuery query;
  if (q.String("format").empty()) q.Fail("format", "format is required: skypilot or kubernetes");
  std::string format = q.Choice("format", {"skypilot", "kubernetes"}, "skypilot");
  query.format = *ParseExportFormat(format);
  if (q.String("kind").empty()) {
    q.Fail("kind", "kind is required: training, inference or recommendation");
  }
  std::string kind = q.Choice("kind", {"training", "inference", "recommendation"}, "");
  if (auto item = q.Integer("item", 1, plan::kMaxRecommendationLimit)) {
    query.item = static_cast<int>(*item);
    if (!kind.empty() && kind != "recommendation") {
      q.Fail("item", "item applies to kind recommendation");
    }
  }
  std::string text = q.String("request");
  if (text.empty()) q.Fail("request", "request is required: the planning POST's JSON body, "
                                      "percent-encoded");
  if (!q.ok()) return WriteError(req, res, q.error());
  // The same bounds as a POST body of the endpoint's size limit.
  ParsedJson parsed = ParseBoundedJson(text, LimitsForBody(kDefaultBodyLimit));
  if (!parsed.value || !parsed.value->is_object()) {
    std::string why = parsed.value ? "it is not a JSON object" : parsed.error;
    return WriteError(req, res, Error::Invalid("request", "request must be a JSON object: " + why),
                      400);
  }
  const nlohmann::json& body = *parsed.value;
  if (kind == "training") return Export(ctx, req, res, DecodeTrainingRequest(body), query);
  if (kind == "inference") return Export(ctx, req, res, DecodeInferenceRequest(body), query);
  Export(ctx, req, res, DecodeRecommendRequest(body), query);
}

}  // namespace

void RegisterExportRoutes(RouteTable& routes, const ApiContext& context) {
  routes.Get("/api/v1/plans/export", Bind(context, GetPlanExport));
}

}  // namespace gpuplan::api
