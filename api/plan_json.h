// JSON renderings of planner answers (plan/planner.h): what the HTTP API returns and what
// the CLI prints with --json. Rendering only: every figure is computed by the planner.
// Each Write* writes one value (an object) through `out`; each *Json returns the encoded
// answer text.
#pragma once

#include <string>

#include "api/json_writer.h"
#include "plan/planner.h"

namespace gpuplan::api {

void WriteTrainingPlan(JsonWriter& out, const plan::TrainingPlan& plan);
void WriteInferencePlan(JsonWriter& out, const plan::InferencePlan& plan);
void WriteRecommendation(JsonWriter& out, const plan::Recommendation& r);
void WriteComparison(JsonWriter& out, const plan::Comparison& c);

std::string TrainingPlanJson(const plan::TrainingPlan& plan);
std::string InferencePlanJson(const plan::InferencePlan& plan);
std::string RecommendationJson(const plan::Recommendation& r);
std::string ComparisonJson(const plan::Comparison& c);

}  // namespace gpuplan::api
