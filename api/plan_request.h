// Decoding of planning requests (training and inference estimates, recommendations)
// from JSON into model values. Errors carry JSON pointers ("/hardware/nodes").
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

namespace gpuplan::api {

// Either a catalog instance (cloud, instance_type, region?, nodes) or an explicit GPU.
struct HardwareRequest {
  bool from_catalog = false;
  std::string cloud, region, instance_type;
  std::string gpu;
  int gpus_per_node = 1;
  int nodes = 1;
  std::optional<model::Interconnect> interconnect;
  double interconnect_bw_gbps = 0;
  double network_gbps = 0;
  double vcpus = 0;
  std::optional<double> price_per_hour;       // explicit hardware: per node
  std::optional<double> spot_price_per_hour;  // explicit hardware: per node
  std::string price_currency = "USD";         // of the explicit prices
};

struct PricingRequest {
  bool ondemand = true;
  bool spot = true;
  model::SpotParams spot_params;
};

struct TrainingRequest {
  model::Workload workload;
  model::TrainingJob job;
  HardwareRequest hardware;
  PricingRequest pricing;
  std::string currency = "USD";
};

struct InferenceRequest {
  model::Workload workload;
  model::ServingRequest serving;
  HardwareRequest hardware;
  PricingRequest pricing;
  std::string currency = "USD";
};

// The workload at `key`: a preset id, or an object with a "preset" and overrides, or a full
// shape with "family". Unknown presets are errors naming the field.
std::optional<model::Workload> ReadWorkload(JsonReader& reader, const std::string& key);

// Reads the training fields (workload, dataset, batch, precision, optimizer, ...) from
// `reader`; hardware is read only when `read_hardware`.
std::optional<TrainingRequest> ReadTrainingRequest(JsonReader& reader, bool read_hardware);
std::optional<InferenceRequest> ReadInferenceRequest(JsonReader& reader, bool read_hardware);

// Whole-body decoders: kInvalidArgument listing every field error.
Result<TrainingRequest> DecodeTrainingRequest(const nlohmann::json& body);
Result<InferenceRequest> DecodeInferenceRequest(const nlohmann::json& body);

}  // namespace gpuplan::api
