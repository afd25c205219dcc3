#include <httplib.h>

#include "api/body.h"
#include "api/export_answer.h"
#include "plan/deadline.h"
#include "api/http_util.h"
#include "api/json_reader.h"
#include "api/measurements.h"
#include "api/model_json.h"
#include "api/plan_request.h"
#include "api/query_params.h"
#include "api/recommender.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/cached_catalog.h"
#include "db/database.h"
#include "model/workload_presets.h"

namespace gpuplan::api {

namespace {

inline constexpr size_t kMaxBatchScenarios = 1000;

// JSON, or with ?format=skypilot|kubernetes the runnable plan's YAML (api/export_answer.h).
template <typename Request>
Result<std::string> Answer(db::CatalogReader& store, const Request& request, const ExportQuery& query) {
  if (query.format == PlanExportFormat::kJson) return PlanAnswer(store, request);
  return ExportAnswer(store, request, query);
}
// Comparisons are JSON only.
Result<std::string> Answer(db::CatalogReader& store, const plan::CompareRequest& request,
                           const ExportQuery&) {
  return PlanAnswer(store, request);
}

// A decoded request (or the error decoding it) -> the planner's answer. The query and the
// body are decoded before a database connection is taken: bad input is a 4xx even when the
// pool is busy.
template <typename Request>
void AnswerPlan(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res,
                Result<Request> request, const ExportQuery& query = {},
                std::optional<long long> owner = std::nullopt) {
  if (!request.ok()) return WriteError(req, res, request.error());
  auto lease = ctx.pool->Acquire();
  db::CachedCatalog store(lease);
  Status prepared = AttachMeasurements(store, *lease, owner, *request);
  if (!prepared.ok()) return WriteError(req, res, prepared.error());
  auto answer = Answer(store, *request, query);
  if (!answer.ok()) return WriteError(req, res, answer.error());
  if (query.format == PlanExportFormat::kJson) return WriteJsonText(res, std::move(answer).value());
  res.status = 200;
  res.set_content(std::move(answer).value(), kYamlContentType);
}

// A planning POST that can answer YAML: the body's size, type and syntax first (httplib
// reads a form body into req.params: it is a 415, not unknown parameters), then ?format=
// (and ?item=), then the body's fields.
template <typename Request>
void PostPlan(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res,
              Result<Request> (*decode)(const nlohmann::json&), bool with_item) {
  auto body = ReadJsonBody(req, res);
  if (!body) return;
  auto query = ReadExportQuery(req.params, with_item);
  if (!query.ok()) return WriteError(req, res, query.error());
  auto request = decode(*body);
  std::optional<long long> owner;
  if constexpr (kUsesMeasurements<Request>) {
    if (request.ok() && !MeasurementOwner(*ctx.pool, req, res, owner)) return;
  }
  AnswerPlan(ctx, req, res, std::move(request), *query, owner);
}

void PostTraining(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  PostPlan(ctx, req, res, &DecodeTrainingRequest, false);
}

void PostTrainingBatch(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto body = ReadJsonBody(req, res, kLargeBodyLimit);
  if (!body) return;
  std::vector<FieldError> errors;
  JsonReader r(*body, "", &errors);
  const nlohmann::json* scenarios = r.Raw("scenarios");
  r.Finish();
  if (!scenarios || !scenarios->is_array()) {
    errors.push_back({"/scenarios", "scenarios must be an array of training requests"});
  } else if (scenarios->empty() || scenarios->size() > kMaxBatchScenarios) {
    errors.push_back({"/scenarios", "scenarios must hold 1 to " +
                                        std::to_string(kMaxBatchScenarios) + " requests"});
  }
  if (!errors.empty()) return WriteError(req, res, BodyError(errors));
  std::optional<long long> owner;
  if (!MeasurementOwner(*ctx.pool, req, res, owner)) return;
  auto lease = ctx.pool->Acquire();
  db::CachedCatalog store(lease);
  JsonWriter out;
  out.BeginObject();
  out.Key("items");
  out.BeginArray();
  size_t failed = 0;
  for (size_t i = 0; i < scenarios->size(); ++i) {
    plan::CheckDeadline();
    const nlohmann::json& s = (*scenarios)[i];
    Result<std::string> answer = Error::Invalid("", "a scenario must be an object");
    if (s.is_object()) {
      auto request = DecodeTrainingRequest(s);
      if (request.ok()) {
        Status attached = AttachMeasurements(store, *lease, owner, *request);
        answer = attached.ok() ? PlanAnswer(store, *request) : Result<std::string>(attached.error());
      } else {
        answer = request.error();
      }
    }
    out.BeginObject();
    out.Field("index", i);
    if (answer.ok()) {
      out.Field("status", 200);
      out.Key("result");
      out.Raw(*answer);
    } else {
      if (answer.error().code == ErrorCode::kUnavailable) return WriteError(req, res, answer.error());
      ++failed;
      out.Field("status", HttpStatus(answer.error().code));
      out.Field("problem", ProblemJson(answer.error()));
    }
    out.EndObject();
  }
  out.EndArray();
  out.Field("succeeded", scenarios->size() - failed);
  out.Field("failed", failed);
  out.EndObject();
  WriteJsonText(res, out.Take());
}

void PostInference(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  PostPlan(ctx, req, res, &DecodeInferenceRequest, false);
}

void PostRecommendations(const ApiContext& ctx, const httplib::Request& req,
                         httplib::Response& res) {
  PostPlan(ctx, req, res, &DecodeRecommendRequest, true);
}

void RunCompare(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res,
                const nlohmann::json& body) {
  AnswerPlan(ctx, req, res, DecodeCompareRequest(body));
}

void PostCompare(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto body = ReadJsonBody(req, res);
  if (body) RunCompare(ctx, req, res, *body);
}

// GET /api/v1/compare?workload=resnet-50&gpus=A100-80GB-SXM4,L4&samples=...: the same as
// POST with a body built from the query.
void GetCompare(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {"workload", "gpus", "gpus_per_node", "precision", "samples", "epochs",
                             "tokens", "global_batch_size", "micro_batch_size", "optimizer",
                             "framework", "currency"});
  std::string workload = q.String("workload");
  if (workload.empty()) q.Fail("workload", "workload is required (a preset id)");
  nlohmann::json body = {{"workload", workload},
                         {"global_batch_size", q.Integer("global_batch_size", 1, 1 << 30).value_or(256)},
                         {"currency", q.String("currency", "USD")}};
  nlohmann::json dataset = {{"epochs", q.Number("epochs", 0.001).value_or(1)}};
  if (auto t = q.Number("tokens", 1)) {
    dataset["tokens"] = *t;
  } else {
    dataset["samples"] = q.Number("samples", 1).value_or(1e6);
  }
  body["dataset"] = dataset;
  if (auto v = q.Integer("micro_batch_size", 1, 1 << 30)) body["micro_batch_size"] = *v;
  if (auto v = q.Integer("gpus_per_node", 1, 64)) body["gpus_per_node"] = *v;
  for (const char* key : {"precision", "optimizer", "framework"}) {
    std::string v = q.String(key);
    if (!v.empty()) body[key] = v;
  }
  std::string gpus = q.String("gpus");
  if (!gpus.empty()) {
    nlohmann::json list = nlohmann::json::array();
    size_t start = 0;
    while (start <= gpus.size()) {
      size_t comma = gpus.find(',', start);
      std::string id = gpus.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!id.empty()) list.push_back(id);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    body["gpus"] = list;
  }
  if (!q.ok()) return WriteError(req, res, q.error());
  RunCompare(ctx, req, res, body);
}

void ListWorkloads(const ApiContext&, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {"family"});
  std::string family = q.String("family");
  if (!family.empty() && !model::ParseFamily(family)) {
    q.Fail("family", "family must be one of cnn, encoder, vit, decoder, moe, rnn");
  }
  if (!q.ok()) return WriteError(req, res, q.error());
  JsonWriter out;
  out.BeginObject();
  out.Key("items");
  out.BeginArray();
  for (const model::Workload& w : model::WorkloadPresets()) {
    if (family.empty() || model::FamilyName(w.family) == family) WriteWorkload(out, w);
  }
  out.EndArray();
  out.Field("next_cursor", nullptr);
  out.EndObject();
  WriteJsonText(res, out.Take());
}

void GetWorkload(const ApiContext&, const httplib::Request& req, httplib::Response& res) {
  auto w = model::FindPreset(req.matches[1].str());
  if (!w) return WriteError(req, res, Error::NotFound("no workload preset '" + req.matches[1].str() + "'"));
  WriteJsonText(res, WorkloadJson(*w));
}

}  // namespace

void RegisterEstimateRoutes(RouteTable& routes, const ApiContext& context) {
  routes.Get("/api/v1/workloads", Bind(context, ListWorkloads));
  routes.Get("/api/v1/workloads/{id}", Bind(context, GetWorkload));
  routes.Post("/api/v1/estimates/training", Bind(context, PostTraining));
  routes.Post("/api/v1/estimates/training:batch", Bind(context, PostTrainingBatch));
  routes.Post("/api/v1/estimates/inference", Bind(context, PostInference));
  routes.Post("/api/v1/recommendations", Bind(context, PostRecommendations));
  routes.Post("/api/v1/compare", Bind(context, PostCompare));
  routes.Get("/api/v1/compare", Bind(context, GetCompare));
}

}  // namespace gpuplan::api
