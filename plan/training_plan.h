// The training question: how long a job takes on the hardware asked and what it costs, on
// demand, on spot and on spot with fallback; corrected by the caller's measured runs of
// that GPU, its work set by a reference run when one is given.
// Errors: kInvalidArgument naming the field by type (model/result.h: hardware "gpu", the
// reference run's errors within Part::kReferenceRun, the request's "currency";
// api/field_names.h turns them into JSON pointers); kUnavailable when the catalog fails.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/training.h"
#include "plan/context.h"
#include "plan/feasibility.h"
#include "plan/reference_run.h"
#include "plan/requests.h"
#include "plan/run_calibration.h"
#include "plan/training_cost.h"

namespace gpuplan::plan {

struct TrainingPlan {
  // Not feasible (does_not_fit): the estimate's time and throughput are not the plan's, and
  // no cost is computed (cost has its currency only).
  Feasibility feasibility;
  model::Workload workload;
  model::TrainingJob job;
  model::Cluster cluster;
  model::TrainingEstimate estimate;
  TrainingCost cost;
  PriceQuote price;
  std::optional<db::Offer> offer;
  std::optional<SpotHistorySummary> spot_history;
  std::optional<ReferenceWork> reference;  // the request gave a reference run
  std::optional<RunCalibration> calibration;  // measured runs corrected the estimate
  std::vector<std::string> assumptions;  // the planner's (after the model's)
  std::vector<std::string> warnings;  // about the hardware and its price (after the model's)
};

Result<TrainingPlan> PlanTraining(PlanContext& context, const TrainingRequest& request);

}  // namespace gpuplan::plan
