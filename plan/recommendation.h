// The recommendation question: which catalog options (instance type x region x nodes x
// price kind) run a training job or serve a model within the constraints, ranked by the
// objective, with the Pareto front of time and cost and the count of options rejected for
// each reason. Each distinct hardware configuration is estimated once per call.
// Errors: kInvalidArgument naming the field by type (model/result.h: constraints "gpus"
// item 1, dataset "hours", the request's "currency"...); kUnavailable when the catalog
// fails. A request whose planning share runs out (plan/deadline.h) answers the offers it
// evaluated, marked stopped_early.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/catalog_types.h"
#include "model/inference.h"
#include "model/price_kind.h"
#include "model/training.h"
#include "plan/context.h"
#include "plan/requests.h"
#include "plan/training_cost.h"

namespace gpuplan::plan {

// One catalog option of a recommendation.
struct RecommendedOption {
  db::Offer offer;
  int nodes = 1;  // instances
  int total_gpus = 1;
  model::PriceKind price_kind = model::PriceKind::kOndemand;
  bool spot() const { return model::StartsOnSpot(price_kind); }  // also spot_with_fallback
  double price_per_hour = 0;  // per instance, request currency
  // Training on spot: the checkpoint interval the cost assumes (0 otherwise).
  double checkpoint_interval_minutes = 0;
  // Training on spot: the interruption rate the cost assumes and its source (the band it
  // names lives as long as `offer`).
  SpotRisk spot_risk;
  // Set for spot_with_fallback options: the switch point and the P90 time and cost.
  std::shared_ptr<const FallbackTrainingCost> fallback;
  double hours = 0;           // training: wall hours; inference: latency in s
  // Training: the P10 and P90 wall hours of this price kind (spot: with interruptions).
  double p10_hours = 0, p90_hours = 0;
  // Flags on the price it is costed on (plan/price_quality.h): "stale", and
  // "spot_above_ondemand" when the request lets such prices rank.
  std::vector<std::string> price_flags;
  double cost = 0;            // training: total; inference: per hour
  double cost_per_month = 0;  // inference: cost x kHoursPerMonth
  double score = 0;
  std::string why;
  std::vector<std::string> warnings;
  // The option's estimate, its figures only (model::EstimateTrainingFigures,
  // model::EstimateServingFigures): an option shows no estimate's words.
  std::shared_ptr<const model::TrainingEstimate> training;  // set for training
  std::shared_ptr<const model::ServingEstimate> serving;    // set for inference
};

struct Recommendation {
  bool inference = false;
  Objective objective = Objective::kCost;
  std::string currency;
  std::vector<RecommendedOption> items;         // ranked, at most `limit`
  std::vector<RecommendedOption> pareto_front;  // by time: each cheaper than every faster one
  int considered = 0;
  int feasible = 0;
  std::map<std::string, int> rejected;  // reason -> options
  std::vector<std::string> assumptions;
  std::vector<std::string> warnings;
  DeadlineConfidence deadline_confidence = DeadlineConfidence::kP90;
  // The planner stopped at the request's planning share (plan/deadline.h) with catalog
  // offers left: items, counts and the Pareto front cover the offers evaluated only.
  bool stopped_early = false;
  int offers_evaluated = 0, offers_not_evaluated = 0;
};

Result<Recommendation> Recommend(PlanContext& context, const RecommendRequest& request);

}  // namespace gpuplan::plan
