// JSON renderings of planner answers (plan/planner.h): what the HTTP API returns and what
// the CLI prints with --json. Rendering only: every figure is computed by the planner.
#pragma once

#include <nlohmann/json.hpp>

#include "plan/planner.h"

namespace gpuplan::api {

nlohmann::json TrainingPlanJson(const plan::TrainingPlan& plan);
nlohmann::json InferencePlanJson(const plan::InferencePlan& plan);
nlohmann::json RecommendationJson(const plan::Recommendation& r);
nlohmann::json ComparisonJson(const plan::Comparison& c);
// The price used, its source and date, and the exchange rate when it was converted.
nlohmann::json PriceQuoteJson(const plan::PriceQuote& quote,
                              const std::optional<db::Offer>& offer);

}  // namespace gpuplan::api
