// The options of one offer in a training recommendation's walk (plan/training_options.h).
#include "plan/training_options.h"

#include <algorithm>

#include "model/counts.h"
#include "plan/deadline.h"

namespace gpuplan::plan {

using model::PriceKind;

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
                               FallbackCosts& fallbacks, OptionCounts& counts) {
  if (!in.prices->ok()) return in.prices->error();
  const OfferPrices& prices = **in.prices;
  // Each kind's price (or why it has none) is the same on every node count.
  std::array<KindPrice, model::kPriceKindNames.size()> kinds;
  for (size_t k = 0; k < kinds.size(); ++k) {
    kinds[k] = PriceOfKind(model::kPriceKindNames[k].second, prices, cons);
  }
  std::optional<model::SpotParams> spot_params;  // of the offer's spot options, once
  for (int nodes = 1, level = 0; nodes <= cons.max_nodes; nodes *= 2, ++level) {
    const TrainingConfiguration& configuration = configurations[slots[level]];
    if (!configuration.gpu.ok()) return configuration.gpu.error();
    const auto& slot = *estimates[slots[level]];
    for (const KindPrice& option : kinds) {
      const std::optional<double> price = option.Count(counts);
      if (!price) continue;
      const PriceKind kind = option.kind;
      if (!slot.ok()) {
        if (!Reject(slot.error(), counts)) return slot.error();
        continue;
      }
      const auto& estimate = *slot;
      if (estimate->memory.verdict == model::FitVerdict::kDoesNotFit) {
        counts.Reject(Rejection::kDoesNotFit);
        continue;
      }
      Candidate c = NewCandidate(offer, nodes, kind, prices, *price);
      c.training = &estimate;
      std::optional<FallbackTrainingCost> fallback;  // added to `fallbacks` if the option is
      if (model::StartsOnSpot(kind)) {
        if (!in.spot) return Error::Internal("a spot option without its offer's spot pricing");
        if (!in.spot->ok()) return in.spot->error();
        const SpotPricing& spot_pricing = **in.spot;
        if (!spot_params) {
          spot_params =
              SpotParamsOf(request.pricing, in.risk, checkpoint_bytes, offer.instance.cloud);
        }
        c.price_per_hour = spot_pricing.price_per_hour;
        c.risk = &in.risk;
        if (kind == PriceKind::kSpotWithFallback) {
          // PriceOfOption: a fallback option has an on-demand price to move to.
          if (!cons.deadline_hours) {  // nothing to move to on-demand in time for
            counts.Reject(Rejection::kNoPrice);
            continue;
          }
          fallback = FallbackCostOfTraining(*estimate, nodes, *prices.ondemand, spot_pricing,
                                            in.risk, *spot_params, *cons.deadline_hours, &memo);
          if (!fallback) {
            counts.Reject(Rejection::kNoPrice);
            continue;
          }
          if (!fallback->run.feasible) {
            counts.Reject(Rejection::kOverDeadline);
            continue;
          }
          c.hours = fallback->run.expected_hours;
          c.p90_hours = fallback->run.p90_hours;
          // The P10 run finishes on spot: the spot run's P10 (never past the expected), the
          // same for every offer of this configuration with these spot parameters (memo).
          c.p10_hours = c.hours;
          if (auto p10 = memo.SpotP10Of(*estimate, nodes, fallback->params)) {
            c.p10_hours = std::min(c.hours, *p10);
          }
          c.cost = RoundMoney(fallback->expected_total);
          c.checkpoint_interval_minutes = fallback->run.checkpoint_interval_minutes;
        } else {
          auto spot =
              SpotCostOfTraining(*estimate, nodes, spot_pricing, in.risk, *spot_params, &memo);
          if (!spot || !spot->run.viable) {
            counts.Reject(Rejection::kNoPrice);
            continue;
          }
          c.hours = spot->run.wall_hours;
          c.p10_hours = spot->p10_wall_hours;
          c.p90_hours = spot->p90_wall_hours;
          c.cost = RoundMoney(spot->expected_total);
          c.checkpoint_interval_minutes = spot->run.checkpoint_interval_minutes;
        }
      } else {
        c.hours = estimate->total_hours;
        c.p10_hours = estimate->p10_hours;
        c.p90_hours = estimate->p90_hours;
        c.cost = *price * nodes * estimate->total_hours;
      }
      if (MissesDeadline(c, cons)) {
        counts.Reject(Rejection::kOverDeadline);
        continue;
      }
      if (!WithinBudget(c.cost, cons, counts)) continue;
      if (fallback) fallbacks.Add(std::move(*fallback), feasible.size());
      feasible.push_back(c);
    }
  }
  return std::nullopt;
}

}  // namespace gpuplan::plan
