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
#include "model/price_kind.h"
#include "model/training_job.h"
#include "model/workload.h"
#include "plan/feasibility.h"
#include "plan/measured_runs.h"

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
  int nvlink_domain_gpus = 0;  // 0 = the GPU's (DefaultNvlinkDomain) or the node's
  std::optional<double> price_per_hour;       // explicit hardware: per node
  std::optional<double> spot_price_per_hour;  // explicit hardware: per node
  std::string price_currency = "USD";         // of the explicit prices
};

struct PricingRequest {
  // What to price (pricing.kind): ondemand and spot ("both", the default), one of them, or
  // spot_with_fallback alone.
  model::PriceKindSet kinds{model::PriceKind::kOndemand, model::PriceKind::kSpot};
  model::SpotParams spot_params;
  // false: the planner takes the cloud's preemption notice (AWS 2 min, GCP/Azure 30 s).
  bool notice_given = false;
  // false: the interruption rate is model::SpotParams' default, named in assumptions.
  bool rate_given = false;
  // kSpotWithFallback: spot, moving to on-demand in time for `deadline_hours`.
  std::optional<double> deadline_hours;
};

// "The paper trained for 6 days on 8x V100": the work is what the model predicts that run
// processes; it replaces the dataset.
struct ReferenceRun {
  HardwareRequest hardware;
  double hours = 0;
  std::optional<model::Precision> precision;  // nullopt: the request's (auto: the GPU's own)
};

// A run someone timed (POST /api/v1/measurements): what ran, on what, how fast.
struct MeasuredRun {
  long long id = 0;
  model::Workload workload;
  model::TrainingJob job;  // batch, precision, framework, layout (no dataset)
  HardwareRequest hardware;
  double samples_per_s = 0;  // measured
};

// Measured runs weigh against the model's prediction: a correction fitted on n runs moves
// n / (n + kMeasurementPriorRuns) of the way (in log space) from 1 to their mean ratio.
inline constexpr double kMeasurementPriorRuns = 2;
// The correction stays within [1 / kMaxMeasurementCorrection, kMaxMeasurementCorrection].
inline constexpr double kMaxMeasurementCorrection = 4;

struct TrainingRequest {
  model::Workload workload;
  model::TrainingJob job;
  std::optional<ReferenceRun> reference;  // set: job's dataset is inferred from it
  // Runs the caller may use (its own and shared ones); those of the estimate's GPU and
  // workload family correct it, at most kMaxRunsPerEstimate of them.
  MeasuredRuns measurements;
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
  // The options' price kinds (spot_with_fallback needs deadline_hours).
  model::PriceKindSet kinds{model::PriceKind::kOndemand, model::PriceKind::kSpot};
  bool price_kinds_given = false;  // false: inference prices on-demand only
  double min_gpu_memory_gb = 0;
  // What deadline_hours is held to: each option's P90 time (the default) or its expected one.
  DeadlineConfidence deadline_confidence = DeadlineConfidence::kP90;
  // false: options whose price is flagged (spot above its own on-demand) are not ranked
  // (counted in rejected.doubtful_price); true: ranked with the flag on the item.
  bool include_doubtful_prices = false;
  // At most one item per instance type (or per region) among the ranked items.
  enum class Distinct { kNone, kInstanceType, kRegion } distinct = Distinct::kNone;
};
inline constexpr model::EnumNames<Constraints::Distinct, 3> kDistinctNames = {
    {{"none", Constraints::Distinct::kNone},
     {"instance_type", Constraints::Distinct::kInstanceType},
     {"region", Constraints::Distinct::kRegion}}};

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
