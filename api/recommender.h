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

using plan::kMaxRecommendationLimit;

// Bodies -> typed requests. kInvalidArgument listing every field error (JSON pointers).
Result<plan::RecommendRequest> DecodeRecommendRequest(const nlohmann::json& body);
Result<plan::CompareRequest> DecodeCompareRequest(const nlohmann::json& body);

// POST /api/v1/recommendations body -> answer: every catalog offer x node count x price kind
// that satisfies the constraints, ranked by the objective, with the Pareto front of time vs
// cost and the count of rejected options by reason.
Result<std::string> Recommend(db::CatalogReader& catalog, const nlohmann::json& body);
// POST /api/v1/compare body -> answer: the workload on each GPU, with time, cost and
// throughput per currency unit, best value first.
Result<std::string> Compare(db::CatalogReader& catalog, const nlohmann::json& body);
// Decoded estimate requests -> answers (POST /api/v1/estimates/training and /inference).
Result<std::string> TrainingAnswer(db::CatalogReader& catalog,
                                   const plan::TrainingRequest& request);
Result<std::string> InferenceAnswer(db::CatalogReader& catalog,
                                    const plan::InferenceRequest& request);

}  // namespace gpuplan::api
