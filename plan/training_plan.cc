#include "plan/training_plan.h"

#include <utility>

namespace gpuplan::plan {

Result<TrainingPlan> PlanTraining(PlanContext& context, const TrainingRequest& asked) {
  Pricing& pricing = context.pricing;
  Status currency = pricing.UseCurrency(asked.currency);
  if (!currency.ok()) return currency.error();
  std::optional<ReferenceWork> reference;
  std::optional<TrainingRequest> referenced;  // the request sized by its reference run
  if (asked.reference) {
    auto resolved = WithReferenceWork(context.hardware, asked, &reference);
    if (!resolved.ok()) return resolved.error();
    referenced = std::move(resolved).value();
  }
  const TrainingRequest& request = referenced ? *referenced : asked;
  auto hw = context.hardware.Resolve(request.hardware, request.pricing);
  if (!hw.ok()) return hw.error();
  auto estimate = model::EstimateTraining(request.workload, request.job, hw->cluster);
  if (!estimate.ok()) return estimate.error();
  TrainingPlan plan;
  plan.workload = request.workload;
  plan.job = request.job;
  plan.cluster = std::move(hw->cluster);
  const model::Cluster& cluster = plan.cluster;
  plan.estimate = std::move(estimate).value();
  plan.calibration =
      Calibrate(request.measurements, cluster.node.gpu.id, request.workload.family);
  if (plan.calibration) {
    const RunCalibration& c = *plan.calibration;
    ApplyCalibration(plan.estimate, c, request.job.hours > 0);
    plan.assumptions.push_back(
        CalibrationAssumption(c, cluster.node.gpu.id, request.workload.family));
    std::string cap = CalibrationCapWarning(c);
    if (!cap.empty()) plan.warnings.push_back(std::move(cap));
  }
  if (reference) {
    // The time range holds both predictions' uncertainty: the reference's work range and
    // this hardware's time range.
    WidenByReference(plan.estimate, *reference);
    plan.assumptions.push_back(ReferenceAssumption(*reference) +
                               "; the time range combines that range and this estimate's, as "
                               "if independent");
    plan.reference = std::move(reference);
  }
  plan.feasibility = TrainingFeasibility(plan.estimate, cluster, request.job);
  SpotPricing spot;
  if (hw->price.spot) {
    auto found = pricing.SpotPricingFor(hw->offer ? &*hw->offer : nullptr, *hw->price.spot);
    if (!found.ok()) return found.error();
    spot = *found;
  }
  const std::string cloud = hw->offer ? hw->offer->instance.cloud : "";
  const SpotRisk risk = SpotRiskOf(hw->offer ? &*hw->offer : nullptr, request.pricing);
  if (plan.feasibility.feasible()) {
    plan.cost = CostOfTraining(plan.estimate, request.workload, cluster.nodes, hw->price,
                               request.pricing, spot, risk, cloud);
  } else {
    // A job that cannot run has no time or cost: the answer says why, and what would fit.
    plan.cost.currency = pricing.currency();
  }
  ExplainTrainingCost(plan.cost, request.pricing, risk, request.job.hours,
                      plan.feasibility.feasible(), cloud, plan.assumptions, plan.warnings);
  plan.price = std::move(hw->price);
  plan.offer = std::move(hw->offer);
  if (plan.offer && plan.price.spot) {
    auto history = pricing.SpotHistory(*plan.offer);
    if (!history.ok()) return history.error();
    plan.spot_history = *history;
  }
  plan.warnings.insert(plan.warnings.begin(), hw->warnings.begin(), hw->warnings.end());
  plan.assumptions.insert(plan.assumptions.begin(), hw->assumptions.begin(), hw->assumptions.end());
  if (!plan.price.ondemand && !plan.price.spot) {
    plan.warnings.push_back("no price: give hardware.price_per_hour or a catalog instance");
  }
  if (plan.offer) {
    for (auto& w : PriceWarnings(*plan.offer, pricing.Assess(*plan.offer))) {
      plan.warnings.push_back(std::move(w));
    }
  }
  return plan;
}

}  // namespace gpuplan::plan
