// The JSON in and out of POST /api/v1/estimates/ownership (buy or rent): the body decoded into
// a plan::OwnershipRequest, and a plan::OwnershipPlan rendered. Rendering only: every figure
// is computed by plan/ownership.h.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/result.h"
#include "plan/ownership.h"

namespace gpuplan::api {

// kInvalidArgument listing every field error (JSON pointers: "/training/dataset/samples").
Result<plan::OwnershipRequest> DecodeOwnershipRequest(const nlohmann::json& body);

// The answer as JSON text: money rounded to 1e-6 of the currency unit.
std::string OwnershipPlanJson(const plan::OwnershipPlan& plan);

}  // namespace gpuplan::api
