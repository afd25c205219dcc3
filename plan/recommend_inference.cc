// The serving walk of a recommendation: every admitted offer as one replica's node, each
// price kind asked, estimated once per distinct hardware configuration.
#include <map>
#include <optional>
#include <vector>

#include "model/counts.h"
#include "plan/recommend_walk.h"

namespace gpuplan::plan {

using model::PriceKind;

Result<Recommendation> RecommendInference(PlanContext& context, const InferenceRequest& request,
                                          Constraints cons, Objective objective, int limit) {
  Pricing& pricing = context.pricing;
  // A request error is not an option's rejection: refuse it before counting options.
  Status valid = model::ValidateServingRequest(request.workload, request.serving);
  if (!valid.ok()) return valid.error();
  Recommendation out;
  out.inference = true;
  out.objective = objective;
  out.currency = pricing.currency();
  if (!cons.price_kinds_given) {
    cons.kinds.Remove(PriceKind::kSpot);
    out.assumptions.push_back(
        "on-demand prices only: a serving fleet runs around the clock and spot capacity can "
        "be reclaimed; ask price_kinds [\"spot\"] to see spot options");
  }
  auto offers = CandidateOffers(context.catalog, cons);
  if (!offers.ok()) return offers.error();
  out.rejected = RejectedAtZero(
      {Rejection::kDoesNotFit, Rejection::kPrecisionUnsupported,
       Rejection::kTensorParallelTooLarge, Rejection::kOverMaxGpus, Rejection::kNodeTooLarge,
       Rejection::kSloNotMet, Rejection::kOverBudget, Rejection::kNoPrice,
       Rejection::kDoubtfulPrice});
  OptionCounts counts;
  counts.rejected[static_cast<size_t>(Rejection::kNodeTooLarge)] = offers->unsupported;
  NodeSpecs nodes_of(context.catalog);
  // Each hardware's estimate (OfferIndex::HardwareOf), made when an offer first needs it.
  const OfferIndex& index = *offers->index;
  std::vector<std::optional<Result<std::shared_ptr<const model::ServingEstimate>>>> estimates(
      index.hardware());
  std::vector<Candidate> feasible;
  feasible.reserve(offers->offers.size() * 2);  // every option: on demand and spot
  // The model's defaults (utilisation, weight overhead) hold for every option.
  for (std::string& a : model::ServingDefaultsAssumptions(
           model::ServingConstants(), model::IsDecoderOnly(request.workload.family))) {
    out.assumptions.push_back(std::move(a));
  }
  for (size_t next = 0; next < offers->offers.size(); ++next) {
    if (StopEarly(offers->offers.size(), next, out)) break;
    const db::Offer& offer = *offers->offers[next];
    auto& estimated = estimates[index.HardwareOf(index.TypeOf(offer), KeyFor::kServing, false)];
    if (!estimated) {
      auto node = nodes_of.Of(offer.instance);
      if (!node.ok()) return node.error();
      // Figures only: an option shows none of the estimate's words (api/plan_json.cc).
      estimated = Shared(model::EstimateServingFigures(request.workload, *node, request.serving));
    }
    auto prices = PriceOffer(pricing, offer);
    if (!prices.ok()) return prices.error();
    for (PriceKind kind : {PriceKind::kOndemand, PriceKind::kSpot}) {
      auto price = PriceOfKind(kind, *prices, cons).Count(counts);
      if (!price) continue;
      if (!estimated->ok()) {
        if (Reject(estimated->error(), counts)) continue;
        return estimated->error();
      }
      const auto& e = **estimated;
      if (e->verdict == model::FitVerdict::kDoesNotFit) {
        counts.Reject(Rejection::kDoesNotFit);
        continue;
      }
      if (!e->slo_met) {
        counts.Reject(Rejection::kSloNotMet);
        continue;
      }
      const int instances = model::ServingInstances(*e, offer.instance.gpu_count);
      Candidate c = NewCandidate(offer, instances, kind, *prices, *price);
      c.cost = *price * instances;  // per hour
      c.hours = e->chosen.latency_s;
      c.serving = &e;
      if (WithinBudget(c.cost * kHoursPerMonth, cons, counts)) feasible.push_back(c);
    }
  }
  counts.AddTo(out);
  std::vector<Candidate*> ranked;
  ranked.reserve(feasible.size());
  for (Candidate& c : feasible) ranked.push_back(&c);
  Finish(ranked, objective, limit, cons, out);
  return out;
}

}  // namespace gpuplan::plan
