// The planner: the four planning questions a request asks, each answered in its own file
// from the same request context (the catalog, prices in the request currency, hardware
// resolution: plan/context.h). Answers are typed values; the api layer and the CLI render
// them.
//   Training    plan/training_plan.h    time and cost of a job on given hardware
//   Inference   plan/inference_plan.h   replicas and cost of serving a model
//   Recommend   plan/recommendation.h   ranked catalog options within constraints
//   Compare     plan/comparison.h       one job across GPUs at catalog prices
// One Planner per request, on one thread; it does not own the catalog (which must outlive
// it). Errors: kInvalidArgument naming the field by type (model/result.h:
// hardware "gpu", constraints "gpus" item 1, the request's "currency"; api/field_names.h
// turns them into JSON pointers);
// kUnavailable when the catalog fails.
#pragma once

#include <ctime>

#include "db/catalog_reader.h"
#include "plan/comparison.h"
#include "plan/context.h"
#include "plan/inference_plan.h"
#include "plan/recommendation.h"
#include "plan/training_plan.h"

namespace gpuplan::plan {

class Planner {
 public:
  // `now`: the request's clock, for the age of prices (plan/price_quality.h).
  explicit Planner(db::CatalogReader& catalog, std::time_t now = std::time(nullptr))
      : context_(catalog, now) {}

  Result<TrainingPlan> Training(const TrainingRequest& r) { return PlanTraining(context_, r); }
  Result<InferencePlan> Inference(const InferenceRequest& r) { return PlanInference(context_, r); }
  Result<Recommendation> Recommend(const RecommendRequest& r) {
    return plan::Recommend(context_, r);
  }
  Result<Comparison> Compare(const CompareRequest& r) { return CompareGpus(context_, r); }

  // The request's prices and hardware resolution, for questions outside the four
  // (ownership, measured runs).
  PlanContext& context() { return context_; }

 private:
  PlanContext context_;
};

}  // namespace gpuplan::plan
