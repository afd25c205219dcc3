// What a planning request asks, as typed values: the api layer decodes JSON into these, the
// CLI builds them from flags, and plan::Planner answers them. No JSON, no HTTP.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/cost.h"
#include "model/enum_names.h"
#include "model/hardware.h"
#include "model/inference.h"
#include "model/training_job.h"
#include "model/workload.h"

namespace gpuplan::plan {

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
  // false: the planner takes the cloud's preemption notice (AWS 2 min, GCP/Azure 30 s).
  bool notice_given = false;
  // kind "spot_with_fallback": spot, moving to on-demand in time for `deadline_hours`
  // (ondemand and spot are then false).
  bool fallback = false;
  std::optional<double> deadline_hours;
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

// Limits on the catalog options a recommendation considers. Empty sets = no limit.
struct Constraints {
  std::set<std::string> clouds, regions, gpus;
  // As sent, in order: what the planner's unknown-name errors point at.
  std::vector<std::string> cloud_names, region_names, gpu_names;
  int max_nodes = 4;
  std::optional<double> deadline_hours, budget;  // budget: total (training), per month (inference)
  bool ondemand = true, spot = true;
  bool fallback = false;  // spot_with_fallback options (needs deadline_hours)
  bool price_kinds_given = false;  // false: inference prices on-demand only
  double min_gpu_memory_gb = 0;
};

enum class Objective { kCost, kTime, kBalanced };
// Their names in requests and answers.
inline constexpr model::EnumNames<Objective, 3> kObjectiveNames = {
    {{"cost", Objective::kCost}, {"time", Objective::kTime}, {"balanced", Objective::kBalanced}}};

inline constexpr int kMaxRecommendationLimit = 100;

// One of `training` / `inference` is set.
struct RecommendRequest {
  Objective objective = Objective::kCost;
  int limit = 10;
  Constraints constraints;
  std::optional<TrainingRequest> training;
  std::optional<InferenceRequest> inference;
};

// One workload across GPUs, each priced at its cheapest on-demand catalog price per GPU-hour.
struct CompareRequest {
  TrainingRequest training;       // hardware unused
  std::vector<std::string> gpus;  // as listed (an empty list compares nothing)
  bool gpus_given = false;        // false: every GPU with a catalog price
  int gpus_per_node = 1;
};

}  // namespace gpuplan::plan
