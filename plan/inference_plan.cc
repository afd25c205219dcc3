#include "plan/inference_plan.h"

#include <utility>

#include "model/counts.h"
#include "plan/spot_risk.h"

namespace gpuplan::plan {

using model::PriceKind;

Result<InferencePlan> PlanInference(PlanContext& context, const InferenceRequest& request) {
  Pricing& pricing = context.pricing;
  Status currency = pricing.UseCurrency(request.currency);
  if (!currency.ok()) return currency.error();
  auto hw = context.hardware.Resolve(request.hardware, request.pricing);
  if (!hw.ok()) return hw.error();
  auto e = model::EstimateServing(request.workload, hw->cluster.node, request.serving);
  if (!e.ok()) return e.error();
  InferencePlan plan;
  plan.workload = request.workload;
  plan.serving = request.serving;
  plan.cluster = hw->cluster;
  plan.estimate = std::move(e).value();
  plan.currency = pricing.currency();
  plan.price = hw->price;
  plan.offer = hw->offer;
  plan.asked = request.pricing.kinds;
  const model::ServingEstimate& est = plan.estimate;
  plan.feasibility = ServingFeasibility(est, hw->cluster.node);
  plan.instances = model::ServingInstances(est, hw->cluster.node.gpus_per_node);
  const model::ServingPoint& p = est.chosen;
  // Decoders: what the fleet takes within the latency targets and headroom, not its load.
  plan.capacity_requests_per_s =
      est.replicas * (est.capacity_requests_per_s_per_replica > 0 ? est.capacity_requests_per_s_per_replica
                                                                  : p.requests_per_s);
  plan.decoder = request.serving.output_tokens > 0 &&
                 model::IsDecoderOnly(request.workload.family);
  double served_rps = request.serving.target_requests_per_s > 0
                          ? request.serving.target_requests_per_s
                          : est.replicas * p.requests_per_s;
  double tokens_per_hour = served_rps * request.serving.output_tokens * 3600;
  auto costs = [&](std::optional<double> price) -> std::optional<ServingCost> {
    if (!price || !plan.feasibility.feasible()) return std::nullopt;
    ServingCost c;
    c.price_per_hour = *price;
    c.instances = plan.instances;
    c.per_hour = *price * plan.instances;
    c.per_month = c.per_hour * kHoursPerMonth;
    if (plan.decoder && tokens_per_hour > 0) {
      c.per_million_tokens = c.per_hour / tokens_per_hour * 1e6;
      double all_tokens_per_hour = tokens_per_hour *
                                   (request.serving.input_tokens + request.serving.output_tokens) /
                                   request.serving.output_tokens;
      c.per_million_input_and_output_tokens = c.per_hour / all_tokens_per_hour * 1e6;
    }
    if (served_rps > 0) c.per_thousand_requests = c.per_hour / (served_rps * 3600) * 1e3;
    return c;
  };
  if (request.pricing.kinds.Has(PriceKind::kOndemand)) plan.ondemand = costs(hw->price.ondemand);
  if (request.pricing.kinds.Has(PriceKind::kSpot)) plan.spot = costs(hw->price.spot);
  plan.assumptions = est.assumptions;
  if (plan.decoder) {
    plan.assumptions.push_back(
        "cost.per_million_tokens counts generated (output) tokens only; "
        "per_million_input_and_output_tokens counts prompt and output tokens");
  }
  plan.warnings = est.warnings;
  if (request.pricing.kinds.Has(PriceKind::kSpot) && hw->price.spot) {
    plan.warnings.push_back(kSpotServingCaveat);
    // The offer's interruption band, where one is known: what the caveat is about.
    const SpotRisk risk = SpotRiskOf(hw->offer ? &*hw->offer : nullptr, request.pricing);
    if (risk.source == SpotRisk::Source::kBand) {
      plan.assumptions.push_back("spot " + SpotRiskInWords(risk) + " for " + risk.band->cloud +
                                 " " + risk.band->region + " " + risk.band->instance_type +
                                 " (data of " + risk.band->observed_at.substr(0, 10) +
                                 "): the serving cost prices spot hours, not interruptions");
    }
  }
  for (const auto& w : hw->warnings) plan.warnings.push_back(w);
  for (const auto& a : hw->assumptions) plan.assumptions.push_back(a);
  if (hw->offer) {
    for (auto& w : PriceWarnings(*hw->offer, pricing.Assess(*hw->offer))) {
      plan.warnings.push_back(std::move(w));
    }
  }
  return plan;
}

}  // namespace gpuplan::plan
