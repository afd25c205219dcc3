// The planning requests answered as a runnable plan's manifest (api/plan_export.h) rather
// than JSON: decoded request -> plan::Planner -> plan::RunnablePlan -> YAML. The HTTP routes
// (?format= on the planning POSTs, GET /api/v1/plans/export) and the CLI (--export) all
// answer through here, so one request gives the same YAML everywhere.
#pragma once

#include <map>
#include <string>

#include "api/plan_export.h"
#include "db/catalog_reader.h"
#include "model/result.h"
#include "plan/requests.h"

namespace gpuplan::api {

struct ExportQuery {
  PlanExportFormat format = PlanExportFormat::kJson;
  int item = 1;  // recommendations: the item's rank, 1 = the top one
};

// `format` (json, skypilot, kubernetes; default json) and, when `with_item`, `item` (1 to
// plan::kMaxRecommendationLimit, only with a YAML format) from a planning POST's query;
// every other parameter is an error. kInvalidArgument naming the parameters.
Result<ExportQuery> ReadExportQuery(const std::multimap<std::string, std::string>& params,
                                    bool with_item);

// The YAML of the plan the request asks for (query.format is kSkyPilot or kKubernetes).
// Errors as PlanAnswer (JSON pointers); for a recommendation without item `query.item`
// kInvalidArgument naming "item"; for a plan that cannot run as planned (a spot run that
// never finishes, a model that does not fit, a figure that is not finite) kInvalidArgument
// naming why (plan::CheckRunnable: the request field, or none).
Result<std::string> ExportAnswer(db::CatalogReader& catalog, const plan::TrainingRequest& request,
                                 const ExportQuery& query);
Result<std::string> ExportAnswer(db::CatalogReader& catalog, const plan::InferenceRequest& request,
                                 const ExportQuery& query);
Result<std::string> ExportAnswer(db::CatalogReader& catalog, const plan::RecommendRequest& request,
                                 const ExportQuery& query);

}  // namespace gpuplan::api
