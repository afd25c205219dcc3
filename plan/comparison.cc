#include "plan/comparison.h"

#include <algorithm>
#include <map>
#include <utility>

#include "model/training_job.h"
#include "plan/reference_run.h"

namespace gpuplan::plan {

using model::PriceKind;

Result<Comparison> CompareGpus(PlanContext& context, const CompareRequest& asked) {
  Pricing& pricing = context.pricing;
  Status currency = pricing.UseCurrency(asked.training.currency);
  if (!currency.ok()) return currency.error();
  std::optional<ReferenceWork> reference;
  auto training = WithReferenceWork(context.hardware, asked.training, &reference);
  if (!training.ok()) return training.error();
  CompareRequest request = asked;
  request.training = *training;
  // A request error is the request's, not each GPU's: refuse it before comparing.
  Status valid = model::ValidateWorkload(request.training.workload);
  if (valid.ok()) valid = model::ValidateJobRequest(request.training.job, request.training.workload);
  if (!valid.ok()) return valid.error();
  auto offers = context.catalog.AllOffers();
  if (!offers.ok()) return offers.error();
  // The cheapest on-demand price per GPU-hour of each GPU in the catalog: among instances
  // of exactly gpus_per_node GPUs (a node one can rent at that price) where there is one,
  // else the cheapest share of any instance (then said in the row's warnings).
  auto any_node = pricing.CheapestPerGpuHour(**offers, PriceKind::kOndemand);
  if (!any_node.ok()) return any_node.error();
  auto whole_node = pricing.CheapestPerGpuHour(**offers, PriceKind::kOndemand, [&](const db::Offer& o) {
    return o.instance.gpu_count == asked.gpus_per_node;
  });
  if (!whole_node.ok()) return whole_node.error();
  std::map<std::string, Pricing::GpuHourPrice> cheapest = std::move(any_node).value();
  for (const auto& [id, best] : *whole_node) cheapest[id] = best;
  std::vector<std::string> ids = request.gpus;
  if (!request.gpus_given) {
    for (const auto& [id, v] : cheapest) ids.push_back(id);
  }
  Comparison out;
  out.workload = request.training.workload;
  out.currency = pricing.currency();
  out.gpus_per_node = request.gpus_per_node;
  const int per_node = request.gpus_per_node;
  for (size_t i = 0; i < ids.size(); ++i) {
    auto named = context.hardware.FindGpu(ids[i], {Part::kInput, "gpus", int(i)});
    if (!named.ok()) return named.error();
    if (!named->assumption.empty()) out.assumptions.push_back(named->assumption);
    const model::GpuSpec* gpu = &named->gpu;
    model::Cluster cluster;
    cluster.node.gpu = *gpu;
    cluster.node.gpus_per_node = per_node;
    cluster.node.interconnect = model::DefaultInterconnect(*gpu, per_node);
    const model::TrainingJob& job = request.training.job;
    auto e = model::EstimateTraining(request.training.workload, job, cluster);
    ComparisonRow row;
    row.gpu = gpu->id;
    row.precision =
        e.ok() ? e->precision
               : (job.precision_auto
                      ? model::AutoTrainingPrecision(
                            *gpu, model::ResolveFramework(job.framework, request.training.workload),
                            request.training.workload, job.fp8_scaling)
                      : job.precision);
    if (!e.ok()) {
      row.error = e.error().message;
      row.feasibility.Add(Infeasible::kUnsupported, e.error().message);
      out.rows.push_back(std::move(row));
      continue;
    }
    row.estimate = std::move(e).value();
    row.feasibility = TrainingFeasibility(row.estimate, cluster, job);
    auto price = cheapest.find(gpu->id);
    if (price == cheapest.end()) {
      row.feasibility.Add(Infeasible::kNoPrice,
                          "no catalog on-demand price for " + gpu->id,
                          "import or add a price for an instance with this GPU "
                          "(POST /api/v1/prices), or estimate it with hardware.price_per_hour");
    } else {
      double per_hour = price->second.price * per_node;
      const db::Offer& offer = *price->second.offer;
      row.price_per_gpu_hour = price->second.price;
      row.price_source = offer;
      if (row.feasibility.feasible()) {
        row.cost = per_hour * row.estimate.total_hours;
        row.samples_per_currency_unit = row.estimate.samples_per_s * 3600 / per_hour;
        row.tokens_per_currency_unit = row.estimate.tokens_per_s * 3600 / per_hour;
      }
      PriceQuality quality = pricing.Assess(offer);
      row.price_flags = quality.Flags();
      for (auto& w : PriceWarnings(offer, quality)) row.warnings.push_back(std::move(w));
      if (offer.instance.gpu_count != per_node) {
        row.warnings.push_back(
            "no catalog instance has " + std::to_string(per_node) + " " + gpu->id +
            " GPU(s): the price per GPU-hour is a 1/" + std::to_string(offer.instance.gpu_count) +
            " share of " + offer.instance.id + " (" + std::to_string(offer.instance.gpu_count) +
            " GPUs), and the cost assumes a node of " + std::to_string(per_node) +
            " could be rented at that rate");
      }
    }
    out.rows.push_back(std::move(row));
  }
  // Best value first; then feasible rows without a price, then rows that do not fit, then
  // rows the model refused.
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const ComparisonRow& a, const ComparisonRow& b) {
    auto group = [](const ComparisonRow& r) {
      if (r.error) return 3;
      if (r.feasibility.Has(Infeasible::kDoesNotFit)) return 2;
      return r.feasibility.feasible() ? 0 : 1;
    };
    if (group(a) != group(b)) return group(a) < group(b);
    return a.samples_per_currency_unit > b.samples_per_currency_unit;
  });
  if (reference) out.assumptions.push_back(ReferenceAssumption(*reference));
  out.assumptions.push_back(
      "each GPU at its cheapest on-demand catalog price per GPU-hour (the instance's price "
      "divided by its GPUs; price_source names the instance), on " +
      std::to_string(per_node) + " GPU(s) per node");
  int infeasible = 0;
  for (const ComparisonRow& r : out.rows) infeasible += r.error || !r.feasibility.feasible();
  if (infeasible > 0) {
    out.warnings.push_back(std::to_string(infeasible) +
                           " GPU(s) are not a plan as asked (their feasibility says why and "
                           "what would fix it): they have no cost and are ranked last");
  }
  return out;
}

}  // namespace gpuplan::plan
