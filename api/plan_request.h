// Decoding of planning requests (training and inference estimates, recommendations)
// from JSON into the planner's typed requests (plan/requests.h). Errors carry JSON
// pointers ("/hardware/nodes").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/json_reader.h"
#include "model/cost.h"
#include "model/hardware.h"
#include "model/inference.h"
#include "model/training_job.h"
#include "model/workload.h"
#include "plan/requests.h"

namespace gpuplan::api {

using plan::HardwareRequest;
using plan::InferenceRequest;
using plan::PricingRequest;
using plan::TrainingRequest;


// kRequest: a training request (dataset or reference_run, pricing, currency);
// kMeasuredRun: a run that was timed (no dataset, pricing or currency; precision required).
enum class TrainingFields { kRequest, kMeasuredRun };

// Reads the training fields (workload, dataset, batch, precision, optimizer, ...) from
// `reader`; hardware is read only when `read_hardware`.
std::optional<TrainingRequest> ReadTrainingRequest(JsonReader& reader, bool read_hardware,
                                                   TrainingFields fields = TrainingFields::kRequest);
std::optional<InferenceRequest> ReadInferenceRequest(JsonReader& reader, bool read_hardware);

// Whole-body decoders: kInvalidArgument listing every field error.
Result<TrainingRequest> DecodeTrainingRequest(const nlohmann::json& body);
Result<InferenceRequest> DecodeInferenceRequest(const nlohmann::json& body);

}  // namespace gpuplan::api
