// The options of one offer in a training recommendation's walk (plan/recommend_training.cc):
// what the walk reads of the offer on the request's thread, the hardware configurations and
// estimates it shares with the other offers, and WalkOffer, which costs the offer's options
// on each node count and price kind asked and counts the ones it rejects. WalkOffer reads only
// its arguments (and writes only its outputs): blocks of offers are walked on several threads
// (plan/worker_pool.h), each with its own outputs and SpotTimesMemo.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "db/catalog_types.h"
#include "model/result.h"
#include "model/training.h"
#include "plan/recommend_walk.h"
#include "plan/training_cost.h"

namespace gpuplan::plan {

// What the walk reads of an offer on the request's thread: its prices, and its spot pricing
// when a spot option of it has a price (NeedsSpotPricing, plan/recommend_training.cc). An
// error is kept and answered only where the walk needs what failed.
struct OfferInputs {
  std::optional<Result<OfferPrices>> prices;  // not read: the planning time ran out first
  std::optional<Result<SpotPricing>> spot;
  SpotRisk risk;  // its spot interruption rate (set with `spot`)
};

// A distinct hardware configuration of the walk: an instance type (one of the offers with its
// key) on `nodes` nodes, and its GPU's spec (an error answered if the walk gets that far).
// Its cluster is built where it is estimated, on any thread.
struct TrainingConfiguration {
  const db::InstanceType* type = nullptr;
  Result<const model::GpuSpec*> gpu = static_cast<const model::GpuSpec*>(nullptr);
  int nodes = 1;
};

// The costs of a block's spot_with_fallback options: appended while the block is walked (the
// vector moves them as it grows, and one allocation per cost, as a deque of these makes, costs
// more than the copies) and linked to their options once the block is done.
struct FallbackCosts {
  std::vector<FallbackTrainingCost> costs;
  std::vector<size_t> options;  // of each cost, its option's position in the block's options

  void Add(FallbackTrainingCost&& cost, size_t option) {
    costs.push_back(std::move(cost));
    options.push_back(option);
  }
  // Points each option at its cost: `costs` must not change while the options are used.
  void Link(std::vector<Candidate>& feasible) const {
    for (size_t i = 0; i < costs.size(); ++i) feasible[options[i]].fallback = &costs[i];
  }
};

using TrainingEstimates =
    std::vector<std::optional<Result<std::shared_ptr<const model::TrainingEstimate>>>>;

// The options of `offer` on 1, 2, 4... nodes (`slots`: their configurations' and estimates'
// positions) and each price kind asked: the feasible ones added to `feasible` (the cost of a
// spot_with_fallback option added to `fallbacks`, to be linked to it), the others counted in
// `counts`. Answers the first error met, in the order a walk meets them: the offer's prices, then
// per node count its cluster, its estimate (an error that is not an option's refusal) and its spot
// pricing. `checkpoint_bytes`: the workload's (model::TrainingCheckpointBytes), for the spot
// options. Reads only its arguments: blocks of offers run on several threads.
std::optional<Error> WalkOffer(const db::Offer& offer, const OfferInputs& in, const size_t* slots,
                               const std::vector<TrainingConfiguration>& configurations,
                               const TrainingEstimates& estimates, const TrainingRequest& request,
                               const Constraints& cons, double checkpoint_bytes,
                               SpotTimesMemo& memo, std::vector<Candidate>& feasible,
                               FallbackCosts& fallbacks, OptionCounts& counts);

}  // namespace gpuplan::plan
