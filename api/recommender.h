// Recommendations: every catalog offer x node count x price kind that satisfies the
// constraints, ranked by the objective, with the Pareto front of time vs cost and the
// count of rejected options by reason. Comparisons: one workload across GPUs.
#pragma once

#include <nlohmann/json.hpp>

#include "db/catalog_store.h"
#include "model/result.h"

namespace gpuplan::api {

inline constexpr int kMaxRecommendationLimit = 100;

// POST /api/v1/recommendations body -> answer. Errors name the field.
Result<nlohmann::json> Recommend(db::CatalogStore& store, const nlohmann::json& body);

// POST /api/v1/compare body -> answer: the workload on each GPU (or each listed instance),
// with time, cost and throughput per currency unit, best value first.
Result<nlohmann::json> Compare(db::CatalogStore& store, const nlohmann::json& body);

}  // namespace gpuplan::api
