// The serving question: how many replicas of the hardware asked serve a model at a rate
// within its latency targets, and what that fleet costs per hour, month, million tokens
// and thousand requests, on demand and on spot.
// Errors: kInvalidArgument naming the field by type (model/result.h: hardware "gpu", the
// request's "currency"...); kUnavailable when the catalog fails.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/inference.h"
#include "model/price_kind.h"
#include "plan/context.h"
#include "plan/feasibility.h"
#include "plan/requests.h"

namespace gpuplan::plan {

struct ServingCost {
  double price_per_hour = 0;
  int instances = 0;
  double per_hour = 0, per_month = 0;
  std::optional<double> per_million_tokens;                   // output tokens
  std::optional<double> per_million_input_and_output_tokens;  // prompt + output tokens
  std::optional<double> per_thousand_requests;
};

struct InferencePlan {
  Feasibility feasibility;  // does_not_fit or slo_not_met (then no cost is computed)
  model::Workload workload;
  model::ServingRequest serving;
  model::Cluster cluster;
  model::ServingEstimate estimate;
  int instances = 0;
  double capacity_requests_per_s = 0;  // replicas x requests/s of one replica
  bool decoder = false;  // token-generating: tpot and per-token figures apply
  std::optional<ServingCost> ondemand, spot;
  model::PriceKindSet asked{model::PriceKind::kOndemand, model::PriceKind::kSpot};
  std::string currency;
  PriceQuote price;
  std::optional<db::Offer> offer;
  std::vector<std::string> assumptions;  // the model's, then the planner's
  std::vector<std::string> warnings;
};

// A service that must answer around the clock cannot lose its replicas to a spot reclaim
// (AWS gives 2 minutes' notice, GCP and Azure about 30 s).
inline constexpr const char* kSpotServingCaveat =
    "spot capacity can be reclaimed at any time (AWS 2 min notice, GCP/Azure ~30 s): serving "
    "a 24/7 latency target on spot needs spare replicas or on-demand fallback";

Result<InferencePlan> PlanInference(PlanContext& context, const InferenceRequest& request);

}  // namespace gpuplan::plan
