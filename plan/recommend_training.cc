// The training walk of a recommendation: every admitted offer on 1, 2, 4... nodes and each
// price kind asked, estimated once per distinct hardware configuration.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "model/training_job.h"
#include "model/counts.h"
#include "plan/recommend_walk.h"

namespace gpuplan::plan {

using model::PriceKind;

Result<Recommendation> RecommendTraining(PlanContext& context, const TrainingRequest& request,
                                         const Constraints& constraints, Objective objective,
                                         int limit) {
  Pricing& pricing = context.pricing;
  // A request error is not an option's rejection: refuse it before counting options.
  Status valid = model::ValidateWorkload(request.workload);
  if (valid.ok()) valid = model::ValidateJobRequest(request.job, request.workload);
  if (!valid.ok()) return valid.error();
  if (request.job.hours > 0) {
    // Every option would take the same hours: a ranking by time or cost per hour says nothing.
    return Error::Invalid({Part::kDataset, "hours"},
                          "a recommendation compares how long a given amount of work takes and "
                          "what it costs; give samples (and epochs) or tokens, not hours");
  }
  Recommendation out;
  Constraints cons = constraints;
  if (cons.deadline_hours && !cons.price_kinds_given && cons.kinds.Has(PriceKind::kSpot)) {
    cons.kinds.Add(PriceKind::kSpotWithFallback);
    out.assumptions.push_back(
        "with a deadline, options also include spot_with_fallback: spot that moves to "
        "on-demand in time for the deadline (its P90 time meets it); ask price_kinds to "
        "choose the kinds");
  }
  auto offers = CandidateOffers(context.catalog, cons);
  if (!offers.ok()) return offers.error();
  out.objective = objective;
  out.currency = pricing.currency();
  out.rejected = {{"does_not_fit", 0},   {"precision_unsupported", 0},
                  {"batch_too_small", 0}, {"layout_does_not_divide", 0},
                  {"node_too_large", offers->unsupported}, {"over_deadline", 0},
                  {"over_budget", 0},    {"no_price", 0}, {"doubtful_price", 0}};
  if (cons.deadline_hours) out.assumptions.push_back(DeadlineAssumption(cons));
  const bool any_spot =
      cons.kinds.Has(PriceKind::kSpot) || cons.kinds.Has(PriceKind::kSpotWithFallback);
  if (any_spot && !request.pricing.rate_given) {
    out.assumptions.push_back(DefaultRateAssumption(request.pricing.spot_params));
  }
  out.deadline_confidence = cons.deadline_confidence;
  NodeSpecs nodes_of(context.catalog);
  std::unordered_map<HardwareKey, Result<std::shared_ptr<const model::TrainingEstimate>>,
                     HardwareKeyHash>
      cache;
  std::vector<Candidate> feasible;
  // Room for a few options per offer (the bound, offers x node counts x price kinds, can
  // be a hundred MB on a large catalog): growing the vector moves the candidates.
  feasible.reserve(offers->offers.size() * 2);
  for (size_t next = 0; next < offers->offers.size(); ++next) {
    if (StopEarly(offers->offers.size(), next, out)) break;
    const db::Offer& offer = *offers->offers[next];
    auto prices = PriceOffer(pricing, offer);
    if (!prices.ok()) return prices.error();
    std::optional<SpotPricing> spot_pricing;  // the offer's, on first use
    for (int nodes = 1; nodes <= cons.max_nodes; nodes *= 2) {
      HardwareKey key = KeyOf(offer.instance, nodes,
                              model::IsImage(request.workload.family) ? KeyFor::kImageTraining
                                                                      : KeyFor::kTraining);
      auto it = cache.find(key);
      if (it == cache.end()) {
        auto node = nodes_of.Of(offer.instance);
        if (!node.ok()) return node.error();
        model::Cluster cluster;
        cluster.node = std::move(node).value();
        cluster.nodes = nodes;
        it = cache.emplace(key, Shared(model::EstimateTraining(request.workload, request.job,
                                                               cluster, model::DefaultConstants(),
                                                               false)))
                 .first;
      }
      for (const auto& [name, kind] : model::kPriceKindNames) {
        const bool spot = model::StartsOnSpot(kind);
        auto price = OptionPrice(kind, *prices, cons, out);
        if (!price) continue;
        if (!it->second.ok()) {
          if (!Reject(it->second.error(), out)) return it->second.error();
          continue;
        }
        const auto& estimate = *it->second;
        if (estimate->memory.verdict == model::FitVerdict::kDoesNotFit) {
          ++out.rejected["does_not_fit"];
          continue;
        }
        Candidate c = NewCandidate(offer, nodes, kind, *prices, *price);
        c.training = estimate;
        if (spot) {
          PricingRequest spot_only = request.pricing;
          spot_only.kinds = {kind};
          spot_only.deadline_hours = cons.deadline_hours;
          if (!spot_pricing) {
            auto found = pricing.SpotPricingFor(&offer, *price);
            if (!found.ok()) return found.error();
            spot_pricing = *found;
          }
          c.price_per_hour = spot_pricing->price_per_hour;
          TrainingCost cost = CostOfTraining(*estimate, request.workload, nodes, prices->quote,
                                             spot_only, *spot_pricing, offer.instance.cloud);
          if (kind == PriceKind::kSpotWithFallback) {
            if (!cost.fallback) {
              ++out.rejected["no_price"];
              continue;
            }
            if (!cost.fallback->run.feasible) {
              ++out.rejected["over_deadline"];
              continue;
            }
            c.hours = cost.fallback->run.expected_hours;
            c.p90_hours = cost.fallback->run.p90_hours;
            // The P10 run finishes on spot: the spot run's P10 (never past the expected).
            c.p10_hours = c.hours;
            auto on_spot = model::SpotRun(estimate->total_hours, nodes, cost.fallback->params);
            if (on_spot.ok()) {
              c.p10_hours = std::min(c.hours, model::SpotWallRange(estimate->p10_hours,
                                                                   estimate->p90_hours, nodes,
                                                                   cost.fallback->params, *on_spot)
                                                  .p10_hours);
            }
            c.cost = RoundMoney(cost.fallback->expected_total);
            c.checkpoint_interval_minutes = cost.fallback->run.checkpoint_interval_minutes;
            c.fallback = std::make_shared<const FallbackTrainingCost>(*cost.fallback);
          } else {
            if (!cost.spot || !cost.spot->run.viable) {
              ++out.rejected["no_price"];
              continue;
            }
            c.hours = cost.spot->run.wall_hours;
            c.p10_hours = cost.spot->p10_wall_hours;
            c.p90_hours = cost.spot->p90_wall_hours;
            c.cost = RoundMoney(cost.spot->expected_total);
            c.checkpoint_interval_minutes = cost.spot->run.checkpoint_interval_minutes;
          }
        } else {
          c.hours = estimate->total_hours;
          c.p10_hours = estimate->p10_hours;
          c.p90_hours = estimate->p90_hours;
          c.cost = *price * nodes * estimate->total_hours;
        }
        if (MissesDeadline(c, cons)) {
          ++out.rejected["over_deadline"];
          continue;
        }
        if (WithinBudget(c.cost, cons, out)) feasible.push_back(std::move(c));
      }
    }
  }
  Finish(feasible, objective, limit, cons, out);
  return out;
}

}  // namespace gpuplan::plan
