#include "api/export_answer.h"

#include "api/query_params.h"
#include "api/recommender.h"
#include "plan/planner.h"
#include "plan/runnable.h"

namespace gpuplan::api {

namespace {

// Planner answer -> RunnablePlan (`to_runnable`), refused when it cannot run as planned ->
// the catalog's names -> YAML.
template <typename Request, typename Plan, typename ToRunnable>
Result<std::string> Export(db::CatalogReader& catalog, const Request& request,
                           Result<Plan> (plan::Planner::*ask)(const Request&),
                           ToRunnable to_runnable, PlanExportFormat format) {
  plan::Planner planner(catalog);
  auto answer = (planner.*ask)(request);
  if (!answer.ok()) return answer.error();
  Result<plan::RunnablePlan> runnable = to_runnable(*answer);
  if (!runnable.ok()) return runnable.error();
  Status runs = plan::CheckRunnable(*runnable);
  if (!runs.ok()) return runs.error();
  Status named = plan::AddCatalogNames(catalog, *runnable);
  if (!named.ok()) return named.error();
  return ExportYaml(*runnable, format);
}

}  // namespace

Result<ExportQuery> ReadExportQuery(const std::multimap<std::string, std::string>& params,
                                    bool with_item) {
  QueryParams q = with_item ? QueryParams(params, {"format", "item"}) : QueryParams(params, {"format"});
  ExportQuery out;
  std::string format = q.Choice("format", {"json", "skypilot", "kubernetes"}, "json");
  out.format = ParseExportFormat(format).value_or(PlanExportFormat::kJson);
  if (with_item) {
    if (auto item = q.Integer("item", 1, plan::kMaxRecommendationLimit)) {
      out.item = static_cast<int>(*item);
      if (out.format == PlanExportFormat::kJson && q.ok()) {
        q.Fail("item", "item picks the recommendation item to export: it needs format skypilot "
                       "or kubernetes");
      }
    }
  }
  if (!q.ok()) return q.error();
  return out;
}

Result<std::string> ExportAnswer(db::CatalogReader& catalog, const plan::TrainingRequest& request,
                                 const ExportQuery& query) {
  return Export(catalog, request, &plan::Planner::Training, &plan::RunnableFromTraining,
                query.format);
}

Result<std::string> ExportAnswer(db::CatalogReader& catalog, const plan::InferenceRequest& request,
                                 const ExportQuery& query) {
  return Export(catalog, request, &plan::Planner::Inference, &plan::RunnableFromInference,
                query.format);
}

Result<std::string> ExportAnswer(db::CatalogReader& catalog, const plan::RecommendRequest& request,
                                 const ExportQuery& query) {
  auto item = [&](const plan::Recommendation& r) {
    return plan::RunnableFromItem(r, query.item, request);
  };
  return Export(catalog, request, &plan::Planner::Recommend, item, query.format);
}

}  // namespace gpuplan::api
