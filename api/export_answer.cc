#include "api/export_answer.h"

#include "api/query_params.h"
#include "api/recommender.h"
#include "plan/planner.h"
#include "plan/runnable.h"

namespace gpuplan::api {

namespace {

Result<std::string> Render(db::CatalogReader& catalog, Result<plan::RunnablePlan> plan,
                           ExportFormat format) {
  if (!plan.ok()) return plan.error();
  Status named = plan::AddCatalogNames(catalog, *plan);
  if (!named.ok()) return named.error();
  return ExportYaml(*plan, format);
}

}  // namespace

Result<ExportQuery> ReadExportQuery(const std::multimap<std::string, std::string>& params,
                                    bool with_item) {
  QueryParams q = with_item ? QueryParams(params, {"format", "item"}) : QueryParams(params, {"format"});
  ExportQuery out;
  std::string format = q.Choice("format", {"json", "skypilot", "kubernetes"}, "json");
  out.format = ParseExportFormat(format).value_or(ExportFormat::kJson);
  if (with_item) {
    if (auto item = q.Integer("item", 1, plan::kMaxRecommendationLimit)) {
      out.item = static_cast<int>(*item);
      if (out.format == ExportFormat::kJson && q.ok()) {
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
  plan::Planner planner(catalog);
  auto answer = planner.Training(request);
  if (!answer.ok()) return WithPointers(answer.error());
  return Render(catalog, plan::RunnableFromTraining(*answer), query.format);
}

Result<std::string> ExportAnswer(db::CatalogReader& catalog, const plan::InferenceRequest& request,
                                 const ExportQuery& query) {
  plan::Planner planner(catalog);
  auto answer = planner.Inference(request);
  if (!answer.ok()) return WithPointers(answer.error());
  return Render(catalog, plan::RunnableFromInference(*answer), query.format);
}

Result<std::string> ExportAnswer(db::CatalogReader& catalog, const plan::RecommendRequest& request,
                                 const ExportQuery& query) {
  plan::Planner planner(catalog);
  auto answer = planner.Recommend(request);
  if (!answer.ok()) return WithPointers(answer.error());
  return Render(catalog, plan::RunnableFromItem(*answer, query.item, request), query.format);
}

}  // namespace gpuplan::api
