#include "api/recommender.h"

#include <set>

#include "api/json_reader.h"
#include "api/plan_json.h"
#include "api/plan_request.h"
#include "db/text.h"
#include "plan/planner.h"

namespace gpuplan::api {

namespace {

std::optional<plan::Constraints> ReadConstraints(JsonReader& parent, bool training) {
  plan::Constraints c;
  auto r = parent.Object("constraints");
  if (!r) return c;
  if (!training && r->Has("deadline_hours")) {
    r->Fail("deadline_hours", "deadline_hours applies to training; an inference "
                              "recommendation takes latency_slo_ms and budget (per month)");
  }
  auto set = [&](const char* key, std::set<std::string>& out, std::vector<std::string>& names) {
    if (auto v = r->Strings(key, 200)) {
      out.insert(v->begin(), v->end());
      names = *v;
    }
  };
  set("clouds", c.clouds, c.cloud_names);
  set("regions", c.regions, c.region_names);
  set("gpus", c.gpus, c.gpu_names);
  if (auto v = r->Integer("max_nodes", 1, 64)) c.max_nodes = static_cast<int>(*v);
  c.deadline_hours = r->Number("deadline_hours", 0.001, 1e7);
  c.budget = r->Number("budget", 0, 1e12);
  if (auto v = r->Number("min_gpu_memory_gb", 0, 1e4)) c.min_gpu_memory_gb = *v;
  if (!training && r->Has("deadline_confidence")) {
    r->Fail("deadline_confidence", "deadline_confidence applies to a training deadline");
  } else if (auto v = r->Enum("deadline_confidence", plan::kDeadlineConfidenceNames)) {
    c.deadline_confidence = *v;
  }
  if (auto v = r->Bool("include_doubtful_prices")) c.include_doubtful_prices = *v;
  if (auto v = r->Enum("distinct", plan::kDistinctNames)) c.distinct = *v;
  if (auto kinds = r->Strings("price_kinds", 3)) {
    c.price_kinds_given = true;
    c.kinds = {};
    for (const auto& k : *kinds) {
      if (auto kind = model::ParseEnum(model::kPriceKindNames, k)) {
        c.kinds.Add(*kind);
      } else {
        r->Fail("price_kinds", "price_kinds items must be ondemand, spot or spot_with_fallback, "
                               "got '" + db::Printable(k, 40) + "'");
      }
    }
    const bool fallback = c.kinds.Has(model::PriceKind::kSpotWithFallback);
    if (fallback && !training) {
      r->Fail("price_kinds", "spot_with_fallback applies to training recommendations");
    } else if (fallback && !c.deadline_hours) {
      r->Fail("price_kinds", "spot_with_fallback needs constraints.deadline_hours: the "
                             "deadline its switch to on-demand keeps");
    }
  }
  r->Finish();
  return c;
}

}  // namespace

Result<plan::RecommendRequest> DecodeRecommendRequest(const nlohmann::json& body) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  plan::RecommendRequest out;
  std::string task = r.Choice("task", {"training", "inference"}).value_or("training");
  if (auto objective = r.Choice("objective", {"cost", "time", "balanced"})) {
    out.objective = *model::ParseEnum(plan::kObjectiveNames, *objective);
  }
  out.limit = static_cast<int>(r.Integer("limit", 1, plan::kMaxRecommendationLimit).value_or(out.limit));
  auto constraints = ReadConstraints(r, task == "training");
  if (constraints) out.constraints = std::move(*constraints);
  if (task == "inference") {
    out.inference = ReadInferenceRequest(r, false);
  } else {
    out.training = ReadTrainingRequest(r, false);
  }
  r.Finish();
  if (!errors.empty()) return BodyError(errors);
  return out;
}

Result<plan::CompareRequest> DecodeCompareRequest(const nlohmann::json& body) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  plan::CompareRequest out;
  auto request = ReadTrainingRequest(r, false);
  if (request) out.training = std::move(*request);
  if (auto wanted = r.Strings("gpus", 64)) {
    out.gpus = *wanted;
    out.gpus_given = true;
  }
  out.gpus_per_node = static_cast<int>(r.Integer("gpus_per_node", 1, 64).value_or(out.gpus_per_node));
  r.Finish();
  if (!errors.empty()) return BodyError(errors);
  return out;
}

namespace {

template <typename Request, typename Plan>
Result<std::string> Answer(db::CatalogReader& catalog, const Request& request,
                           Result<Plan> (plan::Planner::*ask)(const Request&),
                           std::string (*render)(const Plan&)) {
  plan::Planner planner(catalog);
  auto answer = (planner.*ask)(request);
  if (!answer.ok()) return answer.error();
  return render(*answer);
}

}  // namespace

Result<std::string> PlanAnswer(db::CatalogReader& catalog, const plan::TrainingRequest& request) {
  return Answer(catalog, request, &plan::Planner::Training, &TrainingPlanJson);
}
Result<std::string> PlanAnswer(db::CatalogReader& catalog, const plan::InferenceRequest& request) {
  return Answer(catalog, request, &plan::Planner::Inference, &InferencePlanJson);
}
Result<std::string> PlanAnswer(db::CatalogReader& catalog, const plan::RecommendRequest& request) {
  return Answer(catalog, request, &plan::Planner::Recommend, &RecommendationJson);
}
Result<std::string> PlanAnswer(db::CatalogReader& catalog, const plan::CompareRequest& request) {
  return Answer(catalog, request, &plan::Planner::Compare, &ComparisonJson);
}

}  // namespace gpuplan::api
