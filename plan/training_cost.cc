#include "plan/training_cost.h"

#include <cmath>

#include <fmt/format.h>

#include "db/text.h"
#include "model/memory.h"

namespace gpuplan::plan {

using model::PriceKind;

namespace {

std::string Minutes(double minutes) {
  return minutes < 1 ? fmt::format("{:.1f} s", minutes * 60) : fmt::format("{:.1f} min", minutes);
}

}  // namespace

std::string DefaultRateAssumption(const model::SpotParams& params) {
  return "spot interruption rate " + fmt::format("{:.3g}", params.interruption_rate_per_hour) +
         " per node-hour: the default (no per-offer interruption data); set "
         "pricing.interruption_rate_per_hour for your cloud and region";
}


std::string FallbackRule(const model::FallbackOutcome& run) {
  if (run.switch_at_hours <= 0) {
    return fmt::format(
        "spot_with_fallback: the {:.4g} h to the deadline leave no room for a spot interruption "
        "and the move to on-demand, so the job runs on demand from the start",
        run.deadline_hours);
  }
  return fmt::format(
      "spot_with_fallback: run on spot; if the job is not done {:.4g} h after the start, write "
      "a checkpoint and move to on-demand. That switch point lets a run that met the P90 "
      "number of interruptions still finish on demand by the {:.4g} h deadline at the model's "
      "P90 work",
      run.switch_at_hours, run.deadline_hours);
}

double PreemptionNoticeMinutes(const std::string& cloud) {
  if (cloud == "aws") return 2;                     // EC2 spot interruption notice
  if (cloud == "gcp" || cloud == "azure") return 0.5;  // preemption / eviction notice: ~30 s
  return 0;
}

namespace {

SpotTimes ComputeSpotTimes(const model::TrainingEstimate& e, int nodes,
                           const model::SpotParams& params, const SpotRisk& risk) {
  SpotTimes t;
  t.run = model::SpotRun(e.total_hours, nodes, params);
  if (!t.run.ok()) return t;
  // The interruption rate's own range (a band) widens the time's: the P10 at the band's low
  // rate, the P90 at its high one.
  t.range = {0, 0, t.run->billable_hours, t.run->billable_hours};
  if (risk.has_range()) {
    t.range = model::SpotRangeOverRates(e.total_hours, e.p10_hours, e.p90_hours, nodes, params,
                                        *t.run, risk.rate.low_per_hour, risk.rate.high_per_hour);
  } else {
    model::WallRange wall = model::SpotWallRange(e.p10_hours, e.p90_hours, nodes, params, *t.run);
    t.range.p10_wall_hours = wall.p10_hours;
    t.range.p90_wall_hours = wall.p90_hours;
  }
  return t;
}

bool SameParams(const model::SpotParams& a, const model::SpotParams& b) {
  return a.interruption_rate_per_hour == b.interruption_rate_per_hour &&
         a.checkpoint_interval_minutes == b.checkpoint_interval_minutes &&
         a.checkpoint_write_minutes == b.checkpoint_write_minutes &&
         a.checkpoint_bytes == b.checkpoint_bytes &&
         a.checkpoint_write_gbps == b.checkpoint_write_gbps &&
         a.restart_minutes == b.restart_minutes &&
         a.capacity_wait_minutes == b.capacity_wait_minutes &&
         a.preemption_notice_minutes == b.preemption_notice_minutes;
}

}  // namespace

SpotTimesMemo::Kept& SpotTimesMemo::KeptFor(const model::TrainingEstimate& e, int nodes) {
  const Key key{&e, nodes};
  if (last_ == nullptr || last_key_ != key) {
    last_ = &kept_[key];
    last_key_ = key;
  }
  return *last_;
}

const SpotTimes& SpotTimesMemo::Of(const model::TrainingEstimate& e, int nodes,
                                   const model::SpotParams& params, const SpotRisk& risk) {
  std::vector<Entry>& list = KeptFor(e, nodes).times;
  for (const Entry& entry : list) {
    if (entry.low_per_hour == risk.rate.low_per_hour &&
        entry.high_per_hour == risk.rate.high_per_hour && SameParams(entry.params, params)) {
      return entry.times;
    }
  }
  list.push_back({params, risk.rate.low_per_hour, risk.rate.high_per_hour,
                  ComputeSpotTimes(e, nodes, params, risk)});
  return list.back().times;
}

const Result<model::FallbackOutcome>& SpotTimesMemo::FallbackOf(const model::TrainingEstimate& e,
                                                                int nodes,
                                                                const model::SpotParams& params,
                                                                double deadline_hours) {
  std::vector<FallbackEntry>& list = KeptFor(e, nodes).fallbacks;
  for (const FallbackEntry& entry : list) {
    if (entry.deadline_hours == deadline_hours && SameParams(entry.params, params)) {
      return entry.run;
    }
  }
  list.push_back({params, deadline_hours,
                  model::SpotWithFallback(e.total_hours, e.p90_hours, nodes, params,
                                          deadline_hours)});
  return list.back().run;
}

std::optional<double> SpotTimesMemo::SpotP10Of(const model::TrainingEstimate& e, int nodes,
                                               const model::SpotParams& params) {
  // The spot times at the rate alone (no range): shared with spot options of that risk.
  SpotRisk at_rate;
  const double rate = params.interruption_rate_per_hour;
  at_rate.rate = {rate, rate, rate};
  const SpotTimes& times = Of(e, nodes, params, at_rate);
  if (!times.run.ok()) return std::nullopt;
  return times.range.p10_wall_hours;
}

model::SpotParams SpotParamsOf(const PricingRequest& pricing, const SpotRisk& risk,
                               double checkpoint_bytes, const std::string& cloud) {
  model::SpotParams params = pricing.spot_params;
  params.interruption_rate_per_hour = risk.rate.per_hour;
  params.checkpoint_bytes = checkpoint_bytes;
  if (!pricing.notice_given) params.preemption_notice_minutes = PreemptionNoticeMinutes(cloud);
  return params;
}

std::optional<FallbackTrainingCost> FallbackCostOfTraining(
    const model::TrainingEstimate& e, int nodes, double ondemand_per_hour, const SpotPricing& spot,
    const SpotRisk& risk, const model::SpotParams& params, double deadline_hours,
    SpotTimesMemo* memo) {
  Result<model::FallbackOutcome> computed = model::FallbackOutcome{};
  const Result<model::FallbackOutcome>& run =
      memo ? memo->FallbackOf(e, nodes, params, deadline_hours)
           : (computed = model::SpotWithFallback(e.total_hours, e.p90_hours, nodes, params,
                                                 deadline_hours));
  if (!run.ok()) return std::nullopt;
  std::optional<FallbackTrainingCost> out;
  FallbackTrainingCost& f = out.emplace();
  f.pricing = spot;
  f.risk = risk;
  f.spot_price_per_hour = spot.price_per_hour;
  f.ondemand_price_per_hour = ondemand_per_hour;
  f.instances = nodes;
  f.params = params;
  f.run = *run;
  f.expected_total = nodes * (spot.price_per_hour * run->expected_spot_hours +
                              ondemand_per_hour * run->expected_ondemand_hours);
  f.p90_total = nodes * (spot.p90_per_hour * run->p90_spot_hours +
                         ondemand_per_hour * run->p90_ondemand_hours);
  f.units = model::SpreadCost(f.expected_total, e.epochs, e.total_tokens, e.total_samples);
  return out;
}

std::optional<SpotTrainingCost> SpotCostOfTraining(const model::TrainingEstimate& e, int nodes,
                                                   const SpotPricing& spot, const SpotRisk& risk,
                                                   const model::SpotParams& params,
                                                   SpotTimesMemo* memo) {
  SpotTimes computed;
  const SpotTimes& times = memo ? memo->Of(e, nodes, params, risk)
                                : (computed = ComputeSpotTimes(e, nodes, params, risk));
  const auto& run = times.run;
  if (!run.ok()) return std::nullopt;
  std::optional<SpotTrainingCost> out;
  SpotTrainingCost& s = out.emplace();
  s.pricing = spot;
  s.risk = risk;
  s.price_per_hour = spot.price_per_hour;
  s.instances = nodes;
  s.params = params;
  s.run = *run;
  const model::SpotRange& range = times.range;
  s.p10_wall_hours = range.p10_wall_hours;
  s.p90_wall_hours = range.p90_wall_hours;
  if (run->viable) {
    s.expected_total = spot.price_per_hour * nodes * run->billable_hours;
    double time_p10 = e.total_hours > 0 ? e.p10_hours / e.total_hours : 1;
    double time_p90 = e.total_hours > 0 ? e.p90_hours / e.total_hours : 1;
    s.p10_total = spot.p10_per_hour * nodes * range.p10_billable_hours * time_p10;
    s.p90_total = spot.p90_per_hour * nodes * range.p90_billable_hours * time_p90;
    s.units = model::SpreadCost(s.expected_total, e.epochs, e.total_tokens, e.total_samples);
  }
  return out;
}

TrainingCost CostOfTraining(const model::TrainingEstimate& e, const model::Workload& w, int nodes,
                            const PriceQuote& price, const PricingRequest& pricing,
                            const SpotPricing& spot, const SpotRisk& risk,
                            const std::string& cloud, SpotTimesMemo* memo) {
  TrainingCost cost;
  cost.currency = price.currency;
  if (pricing.kinds.Has(PriceKind::kOndemand) && price.ondemand) {
    OnDemandTrainingCost& c = cost.ondemand.emplace();
    c.price_per_hour = *price.ondemand;
    c.instances = nodes;
    c.hours = e.total_hours;
    c.total = *price.ondemand * nodes * e.total_hours;
    c.p10_total = *price.ondemand * nodes * e.p10_hours;
    c.p90_total = *price.ondemand * nodes * e.p90_hours;
    c.units = model::SpreadCost(c.total, e.epochs, e.total_tokens, e.total_samples);
  }
  const bool fallback = pricing.kinds.Has(PriceKind::kSpotWithFallback) && price.spot &&
                        price.ondemand && pricing.deadline_hours;
  const bool spot_only = pricing.kinds.Has(PriceKind::kSpot) && price.spot;
  if (!fallback && !spot_only) return cost;
  const model::SpotParams params =
      SpotParamsOf(pricing, risk, model::TrainingCheckpointBytes(w), cloud);
  if (fallback) {
    cost.fallback = FallbackCostOfTraining(e, nodes, *price.ondemand, spot, risk, params,
                                           *pricing.deadline_hours, memo);
  }
  if (spot_only) cost.spot = SpotCostOfTraining(e, nodes, spot, risk, params, memo);
  return cost;
}

void ExplainTrainingCost(const TrainingCost& cost, const PricingRequest& pricing,
                         const SpotRisk& risk, double fixed_hours, bool feasible,
                         const std::string& cloud,
                         std::vector<std::string>& assumptions,
                         std::vector<std::string>& warnings) {
  if (cost.spot) {
    const SpotTrainingCost& s = *cost.spot;
    assumptions.push_back("spot cost at " + SpotPricingBasis(s.pricing));
    if (std::string rate = SpotRiskAssumption(risk); !rate.empty()) {
      assumptions.push_back(std::move(rate));
    }
    if (!s.run.viable) {
      warnings.push_back(
          "spot is not viable: at " + fmt::format("{:.4g}", s.params.interruption_rate_per_hour) +
          " interruption(s) per node-hour on " + std::to_string(s.instances) +
          " node(s), the work lost, the checkpoint writes and the restarts take longer than "
          "the progress between interruptions: the job never finishes on spot, so it has no "
          "expected time or cost");
    }
    if (s.run.viable && !std::isfinite(s.p90_wall_hours)) {
      warnings.push_back(
          "the spot P90 has no bound: at the high edge of the interruption rate's range (" +
          fmt::format("{:.4g}", risk.rate.high_per_hour) +
          " per node-hour) interruptions come faster than progress, so the P90 time and cost "
          "are null");
    }
    if (fixed_hours > 0 && s.run.viable) {
      // On-demand holds the duration; spot does the same work, and interruptions stretch it.
      assumptions.push_back(fmt::format(
          "fixed duration on spot: the work of the {:.4g} h takes {:.4g} wall hours with "
          "interruptions, and is billed for {:.4g} h",
          fixed_hours, s.run.wall_hours, s.run.billable_hours));
    }
    if (!pricing.notice_given) {
      double notice = s.params.preemption_notice_minutes;
      assumptions.push_back(
          notice > 0 ? "preemption notice " + Minutes(notice) + " (" + cloud + "): " +
                           (s.run.checkpoint_on_notice
                                ? "the checkpoint (" + Minutes(s.run.checkpoint_write_minutes) +
                                      ") is written on notice, so interruptions lose no work"
                                : "too short for the " + Minutes(s.run.checkpoint_write_minutes) +
                                      " checkpoint write: half an interval of work is lost "
                                      "per interruption")
                     : "no preemption notice known for this cloud: half a checkpoint interval "
                       "of work is lost per interruption");
    }
  }
  if (pricing.kinds.Has(PriceKind::kSpotWithFallback) && feasible) {
    if (!cost.fallback) {
      warnings.push_back(
          "spot_with_fallback needs both an on-demand and a spot price: it is not estimated");
    } else {
      const FallbackTrainingCost& f = *cost.fallback;
      assumptions.push_back("spot_with_fallback: spot cost at " + SpotPricingBasis(f.pricing));
      if (std::string rate = SpotRiskAssumption(risk); !cost.spot && !rate.empty()) {
        assumptions.push_back(std::move(rate));
      }
      assumptions.push_back(FallbackRule(f.run));
      if (!f.run.feasible) {
        warnings.push_back(fmt::format(
            "the deadline of {:.4g} h cannot be met even on demand from the start: the P90 "
            "time is {:.4g} h",
            f.run.deadline_hours, f.run.p90_hours));
      }
    }
  }
}

}  // namespace gpuplan::plan
