#include "plan/ownership.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include <fmt/format.h>

#include "db/offer_query.h"
#include "db/text.h"
#include "plan/planner.h"

namespace gpuplan::plan {

namespace {

std::string Money(double amount, const std::string& currency) {
  return (amount >= 100 ? fmt::format("{:.0f}", amount) : fmt::format("{:.2f}", amount)) + " " +
         currency;
}

// Checks a number of the request: finite and within [min, max] (above min when `open`).
Status CheckRange(const char* field, const std::optional<double>& value, double min, double max,
                  bool open = false) {
  if (!value) return OkStatus();
  double v = *value;
  bool low = open ? !(v > min) : !(v >= min);
  if (!std::isfinite(v) || low || v > max) {
    return Error::Invalid({Part::kInput, field}, std::string(field) + " must be " +
                                                     (open ? "above " : "at least ") +
                                                     fmt::format("{:g}", min) + " and at most " +
                                                     fmt::format("{:g}", max));
  }
  return OkStatus();
}

Status CheckRequest(const OwnershipRequest& r) {
  if (r.gpu.empty())
    return Error::Invalid({Part::kInput, "gpu"}, "gpu is required (a catalog GPU id)");
  if (r.gpus < 1 || r.gpus > model::kMaxGpusPerNode) {
    return Error::Invalid({Part::kInput, "gpus"},
                          "gpus must be 1 to " + std::to_string(model::kMaxGpusPerNode));
  }
  const Status checks[] = {
      CheckRange("purchase_price", r.purchase_price, 0, kMaxOwnershipMoney, true),
      CheckRange("host_cost", r.host_cost, 0, kMaxOwnershipMoney),
      CheckRange("power_watts", r.power_watts, 0, kMaxOwnershipWatts, true),
      CheckRange("host_power_watts", r.host_power_watts, 0, kMaxOwnershipWatts),
      CheckRange("electricity_price_per_kwh", r.electricity_price_per_kwh, 0, kMaxElectricityPerKwh),
      CheckRange("utilisation", r.utilisation, 0, 1, true),
      CheckRange("years", r.years, 0, kMaxOwnershipYears, true),
      CheckRange("resale_fraction", r.resale_fraction, 0, 1),
      CheckRange("maintenance_per_year", r.maintenance_per_year, 0, kMaxOwnershipMoney),
  };
  for (const Status& s : checks) {
    if (!s.ok()) return s;
  }
  return OkStatus();
}

// The kind in prose ("on-demand" reads better than the field value in a note).
const char* KindName(model::PriceKind kind) {
  return kind == model::PriceKind::kSpot ? "spot" : "on-demand";
}

// The cost figures of owning, from the inputs as filled in.
void Cost(OwnershipPlan& p) {
  p.capital = p.purchase_price * p.gpus + p.host_cost;
  p.hours_used_per_month = kHoursPerMonth * p.utilisation;
  p.capital_per_month = p.capital * (1 - p.resale_fraction) / (12 * p.years);
  double kw = (p.power_watts * p.gpus + p.host_power_watts) / 1000;
  p.power_per_month = kw * p.hours_used_per_month * p.electricity_price_per_kwh;
  p.maintenance_per_month = p.maintenance_per_year / 12;
  p.running_per_month = p.power_per_month + p.maintenance_per_month;
  p.total_per_month = p.capital_per_month + p.running_per_month;
  double gpu_hours = p.hours_used_per_month * p.gpus;
  p.capital_per_gpu_hour = p.capital_per_month / gpu_hours;
  p.power_per_gpu_hour = p.power_per_month / gpu_hours;
  p.maintenance_per_gpu_hour = p.maintenance_per_month / gpu_hours;
  p.cost_per_gpu_hour = p.total_per_month / gpu_hours;
}

// Break-even of `c` (rent_per_month set) against owning `p`, with its warning.
void BreakEven(const OwnershipPlan& p, RentComparison& c, std::vector<std::string>& warnings) {
  c.savings_per_month = c.rent_per_month - p.running_per_month;
  std::string what = std::string(c.basis == OwnershipBasis::kSameWork ? "the same work" : "the same GPU") +
                     " " + KindName(c.kind) + " (" + c.offer.instance.id + " in " + c.offer.region + ")";
  if (!(c.savings_per_month > 0)) {
    warnings.push_back("renting " + what + " costs " + Money(c.rent_per_month, p.currency) +
                       " a month, no more than running the owned machine (" +
                       Money(p.running_per_month, p.currency) + "): buying never pays off against it");
    return;
  }
  c.break_even_months = p.capital / c.savings_per_month;
  if (*c.break_even_months > 12 * p.years) {
    warnings.push_back("buying pays off against " + what + " only after " +
                       fmt::format("{:.1f}", *c.break_even_months) + " months, beyond the " +
                       fmt::format("{:g}", p.years) + " years of use");
  }
}

// (a), (b): the cheapest current price per GPU-hour of `gpu` in any cloud and region.
Status SameGpu(db::CatalogReader& catalog, const Pricing& pricing, OwnershipPlan& p) {
  auto offers = catalog.AllOffers();
  if (!offers.ok()) return offers.error();
  for (model::PriceKind kind : {model::PriceKind::kOndemand, model::PriceKind::kSpot}) {
    RentComparison c;
    c.basis = OwnershipBasis::kSameGpu;
    c.kind = kind;
    // Only this GPU's offers count.
    auto cheapest = pricing.CheapestPerGpuHour(
        **offers, kind, [&](const db::Offer& o) { return o.instance.gpu_id == p.gpu; });
    if (!cheapest.ok()) return cheapest.error();
    auto found = cheapest->find(p.gpu);
    const double best = found == cheapest->end() ? std::numeric_limits<double>::infinity()
                                                 : found->second.price;
    if (found != cheapest->end()) c.offer = *found->second.offer;
    if (std::isinf(best)) {
      c.note = "no " + std::string(KindName(kind)) + " offer of " + p.gpu + " in the catalog";
    } else {
      c.found = true;
      c.gpu = p.gpu;
      c.price_per_gpu_hour = best;
      c.price_per_hour = best * c.offer.instance.gpu_count;
      c.total_gpus = p.gpus;
      c.nodes = (p.gpus + c.offer.instance.gpu_count - 1) / c.offer.instance.gpu_count;
      c.rent_per_month = best * p.gpus * p.hours_used_per_month;
      c.note = "the cheapest " + std::string(KindName(kind)) + " price per GPU-hour of " + p.gpu +
               ": " + c.offer.instance.cloud + " " + c.offer.instance.id + " in " + c.offer.region;
      if (c.offer.instance.gpu_count != p.gpus) {
        c.note += " (an instance of " + std::to_string(c.offer.instance.gpu_count) +
                  " GPUs, priced per GPU-hour)";
      }
      BreakEven(p, c, p.warnings);
    }
    p.comparisons.push_back(std::move(c));
  }
  return OkStatus();
}

// (c): the cheapest catalog option that does the training job at least as fast as the owned
// machine, on demand and on spot.
Status SameWork(Planner& planner, const OwnershipRequest& request, OwnershipPlan& p) {
  TrainingRequest job = *request.training;
  job.currency = request.currency;
  job.hardware = HardwareRequest{};
  job.hardware.gpu = p.gpu;
  job.hardware.gpus_per_node = p.gpus;
  job.pricing.kinds = {};
  auto owned = planner.Training(job);
  if (!owned.ok()) return Error(owned.error()).Within(Part::kOwnedTraining);
  const model::TrainingEstimate& e = owned->estimate;
  std::string machine = std::to_string(p.gpus) + "x " + p.gpu;
  if (e.memory.verdict == model::FitVerdict::kDoesNotFit) {
    return Error::Invalid(FieldId{Part::kWorkload, ""}, job.workload.id +
                                                            " does not fit in the memory of " +
                                                            machine + ": nothing to compare")
        .Within(Part::kOwnedTraining);
  }
  if (!(e.total_hours > 0)) {
    return Error::Invalid(FieldId{Part::kDataset, ""},
                          "the training job takes no time on " + machine)
        .Within(Part::kOwnedTraining);
  }
  OwnedTraining& t = p.training.emplace();
  t.workload = job.workload.id;
  t.precision = e.precision;
  t.samples_per_s = e.samples_per_s;
  t.tokens_per_s = e.tokens_per_s;
  t.hours_per_job = e.total_hours;
  t.jobs_per_month = p.hours_used_per_month / e.total_hours;
  p.assumptions.push_back(
      "same work: the cheapest catalog option (any GPU, instance and up to " +
      std::to_string(kOwnershipMaxRentedNodes) + " instances) that does the " + t.workload +
      " job in at most the " + fmt::format("{:.4g}", t.hours_per_job) + " h it takes on " +
      machine +
      "; its rent per month is its cost for the job (spot: expected, with interruptions) x the " +
      fmt::format("{:.4g}", t.jobs_per_month) + " jobs the owned machine does in a month");
  for (model::PriceKind kind : {model::PriceKind::kOndemand, model::PriceKind::kSpot}) {
    RecommendRequest r;
    r.objective = Objective::kCost;
    r.limit = 1;
    r.constraints.max_nodes = kOwnershipMaxRentedNodes;
    r.constraints.deadline_hours = t.hours_per_job * (1 + 1e-9);  // as fast, to rounding
    r.constraints.kinds = {kind};
    r.training = job;
    auto found = planner.Recommend(r);
    if (!found.ok()) return Error(found.error()).Within(Part::kOwnedTraining);
    RentComparison c;
    c.basis = OwnershipBasis::kSameWork;
    c.kind = kind;
    if (found->items.empty()) {
      c.note = "no " + std::string(KindName(kind)) + " catalog option does the " + t.workload +
               " job as fast as " + machine;
    } else {
      const RecommendedOption& o = found->items.front();
      c.found = true;
      c.offer = o.offer;
      c.gpu = o.offer.instance.gpu_id;
      c.nodes = o.nodes;
      c.total_gpus = o.total_gpus;
      c.price_per_hour = o.price_per_hour;
      c.price_per_gpu_hour = o.price_per_hour / o.offer.instance.gpu_count;
      c.hours_per_job = o.hours;
      c.rent_per_month = o.cost * t.jobs_per_month;
      c.note = "the cheapest " + std::string(KindName(kind)) + " option as fast as " + machine +
               ": " + std::to_string(o.nodes) + "x " + o.offer.instance.cloud + " " +
               o.offer.instance.id + " (" + std::to_string(o.total_gpus) + "x " + c.gpu + ") in " +
               o.offer.region + ", " + fmt::format("{:.4g}", o.hours) + " h per job vs " +
               fmt::format("{:.4g}", t.hours_per_job) + " h";
      BreakEven(p, c, p.warnings);
    }
    p.comparisons.push_back(std::move(c));
  }
  return OkStatus();
}

}  // namespace

Result<OwnershipPlan> PlanOwnership(db::CatalogReader& catalog, const OwnershipRequest& request) {
  Status valid = CheckRequest(request);
  if (!valid.ok()) return valid.error();
  Planner planner(catalog);
  Pricing& pricing = planner.context().pricing;
  Status currency = pricing.UseCurrency(request.currency);
  if (!currency.ok()) return currency.error();
  auto gpu = catalog.GetGpu(request.gpu);
  if (!gpu.ok()) {
    if (gpu.error().code != ErrorCode::kNotFound) return gpu.error();
    return Error::Invalid({Part::kInput, "gpu"},
                          "unknown GPU '" + request.gpu + "' (see GET /api/v1/gpus)");
  }
  OwnershipPlan p;
  p.gpu = gpu->id;
  p.gpu_name = gpu->name;
  p.gpus = request.gpus;
  p.currency = request.currency;
  const std::string& cur = p.currency;
  auto from_usd = [&](double usd) { return pricing.Convert(usd, "USD"); };

  if (request.purchase_price) {
    p.purchase_price = *request.purchase_price;
  } else if (gpu->launch_price_usd) {
    auto price = from_usd(*gpu->launch_price_usd);
    if (!price.ok()) return price.error();
    p.purchase_price = *price;
    p.assumptions.push_back("purchase_price " + Money(p.purchase_price, cur) + " per GPU: the " +
                            "catalog launch list price of " + p.gpu + " (" +
                            Money(*gpu->launch_price_usd, "USD") + "; street prices differ)");
  } else {
    return Error::Invalid({Part::kInput, "purchase_price"},
                          "the catalog has no launch price for " + p.gpu +
                              " (none is published): give purchase_price");
  }
  if (request.power_watts) {
    p.power_watts = *request.power_watts;
  } else if (gpu->tdp_w > 0) {
    p.power_watts = gpu->tdp_w;
    p.assumptions.push_back("power_watts " + fmt::format("{:g}", p.power_watts) +
                            " W per GPU: the TDP of " + p.gpu +
                            " (its full board power; training often draws less)");
  } else {
    return Error::Invalid({Part::kInput, "power_watts"},
                          "the catalog has no TDP for " + p.gpu + ": give power_watts");
  }
  if (request.electricity_price_per_kwh) {
    p.electricity_price_per_kwh = *request.electricity_price_per_kwh;
  } else {
    auto price = from_usd(kDefaultElectricityUsdPerKwh);
    if (!price.ok()) return price.error();
    p.electricity_price_per_kwh = *price;
    p.assumptions.push_back(
        "electricity_price_per_kwh " + fmt::format("{:.4g}", p.electricity_price_per_kwh) + " " +
        cur + ": " + fmt::format("{:.2f}", kDefaultElectricityUsdPerKwh) +
        " USD, a round figure near the 2024 US "
        "average retail price (EIA: about 0.13 USD/kWh across sectors, 0.16 residential)");
  }
  // The defaults that are zero or one: named, never silent.
  struct Default {
    const std::optional<double>& given;
    double& field;
    double value;
    const char* words;
  };
  const Default defaults[] = {
      {request.host_cost, p.host_cost, 0,
       "host_cost 0: the rest of the machine (CPU, board, memory, power supply) is not counted"},
      {request.host_power_watts, p.host_power_watts, 0,
       "host_power_watts 0: the host's own power draw is not counted"},
      {request.utilisation, p.utilisation, 1,
       "utilisation 1: the machine is busy around the clock (the best case for owning: a lower "
       "utilisation spreads the purchase over fewer hours)"},
      {request.years, p.years, kDefaultOwnershipYears,
       "years 3: the purchase is spread over 3 years of use"},
      {request.resale_fraction, p.resale_fraction, 0,
       "resale_fraction 0: nothing is recovered by selling the hardware after the years of use"},
      {request.maintenance_per_year, p.maintenance_per_year, 0,
       "maintenance_per_year 0: no repairs, space or cooling counted"},
  };
  for (const Default& d : defaults) {
    d.field = d.given.value_or(d.value);
    if (!d.given) p.assumptions.push_back(d.words);
  }
  p.assumptions.push_back(
      "a month is " + fmt::format("{:g}", kHoursPerMonth) +
      " hours; power is drawn only in the hours used (idle draw is not counted)");
  p.assumptions.push_back(
      "break-even months = (purchase x gpus + host_cost) / (rent per month - power and "
      "maintenance per month); resale is not counted in it");
  Cost(p);
  Status same_gpu = SameGpu(catalog, pricing, p);
  if (!same_gpu.ok()) return same_gpu.error();
  p.assumptions.push_back(
      "same GPU: the cheapest current price per GPU-hour in any cloud and region, for the GPUs "
      "owned in the hours used; spot at its current price, interruptions not counted");
  if (request.training) {
    Status same_work = SameWork(planner, request, p);
    if (!same_work.ok()) return same_work.error();
  }
  return p;
}

}  // namespace gpuplan::plan
