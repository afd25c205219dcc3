// The planning endpoints' JSON in and out: decode a body into a plan request, ask
// plan::Planner, render its answer (api/plan_json.h) as encoded JSON text. No planning
// arithmetic here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "db/catalog_reader.h"
#include "model/result.h"
#include "plan/requests.h"

namespace gpuplan::api {

// Bodies -> typed requests. kInvalidArgument listing every field error (JSON pointers).
// (Training and inference estimate bodies: api/plan_request.h.)
Result<plan::RecommendRequest> DecodeRecommendRequest(const nlohmann::json& body);
Result<plan::CompareRequest> DecodeCompareRequest(const nlohmann::json& body);

// Decoded requests -> the planner's answer as JSON text, or its error (fields named by type,
// api/field_names.h):
//   training / inference estimate: POST /api/v1/estimates/training, /inference;
//   recommendation: every catalog offer x node count x price kind that satisfies the
//     constraints, ranked by the objective, with the Pareto front of time vs cost and the
//     count of rejected options by reason (POST /api/v1/recommendations);
//   comparison: the workload on each GPU, best value first (GET|POST /api/v1/compare).
Result<std::string> PlanAnswer(db::CatalogReader& catalog, const plan::TrainingRequest& request);
Result<std::string> PlanAnswer(db::CatalogReader& catalog, const plan::InferenceRequest& request);
Result<std::string> PlanAnswer(db::CatalogReader& catalog, const plan::RecommendRequest& request);
Result<std::string> PlanAnswer(db::CatalogReader& catalog, const plan::CompareRequest& request);

}  // namespace gpuplan::api
