// What a training estimate costs on rented nodes: on demand, on spot (interruptions,
// checkpoints and restarts priced by model::SpotRun at the catalog's recent spot price) and
// spot that moves to on-demand in time for a deadline (model::SpotWithFallback), with the
// assumptions and warnings an answer names about them.
// Pure functions of their arguments (no catalog, no I/O); thread-safe. Money is in the
// quote's currency; hours are wall hours.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/cost.h"
#include "model/training.h"
#include "plan/pricing.h"
#include "plan/requests.h"
#include "plan/spot_risk.h"

namespace gpuplan::plan {

struct OnDemandTrainingCost {
  double price_per_hour = 0;
  int instances = 0;
  double hours = 0;
  double total = 0, p10_total = 0, p90_total = 0;
  model::UnitCosts units;
};

struct SpotTrainingCost {
  double price_per_hour = 0;  // SpotPricing::price_per_hour
  int instances = 0;
  model::SpotParams params;
  model::SpotOutcome run;
  double expected_total = 0;  // 0 when not viable
  double p10_total = 0, p90_total = 0;  // spot price P10/P90 x the time P10/P90
  // Wall hours of the P10 and P90 runs: the estimate's time range and the P10/P90 count of
  // interruptions (model::SpotWallRange); infinite when not viable.
  double p10_wall_hours = 0, p90_wall_hours = 0;
  SpotPricing pricing;
  SpotRisk risk;  // where params' interruption rate comes from
  model::UnitCosts units;
};

// Spot that moves to on-demand in time for a deadline (model::SpotWithFallback).
struct FallbackTrainingCost {
  double spot_price_per_hour = 0;  // SpotPricing::price_per_hour
  double ondemand_price_per_hour = 0;
  int instances = 0;
  model::SpotParams params;
  model::FallbackOutcome run;
  double expected_total = 0;
  double p90_total = 0;  // the P90 run, spot at its P90 price
  SpotPricing pricing;
  SpotRisk risk;  // where params' interruption rate comes from
  model::UnitCosts units;
};

struct TrainingCost {
  std::string currency;
  std::optional<OnDemandTrainingCost> ondemand;
  std::optional<SpotTrainingCost> spot;
  std::optional<FallbackTrainingCost> fallback;  // price kind spot_with_fallback
};

// Minutes of warning `cloud` gives before it reclaims a spot node (0 when unknown).
double PreemptionNoticeMinutes(const std::string& cloud);

// The time side of a spot option, which holds no price: the spot run of an estimate on some
// nodes at some interruption risk, and its P10 / P90 range.
struct SpotTimes {
  Result<model::SpotOutcome> run = model::SpotOutcome{};
  model::SpotRange range;  // meaningful when run.ok()
};

// Spot times already computed, for options that share them: a recommendation's offers of one
// hardware configuration in many regions share an estimate, and most share an interruption
// risk and a notice. Keyed by the estimate's address (the walk's estimates are shared and
// outlive the memo), the node count, every SpotParams field and the risk's range (spot) or
// the deadline (spot_with_fallback, whose outcome reads the rate alone). Not thread-safe: one
// per thread (the walk keeps one per thread for all the offers it walks).
class SpotTimesMemo {
 public:
  SpotTimesMemo() = default;
  // Not copied or moved: the last key's entry would point into another memo's map.
  SpotTimesMemo(const SpotTimesMemo&) = delete;
  SpotTimesMemo& operator=(const SpotTimesMemo&) = delete;

  // The times of `e` on `nodes` nodes with `params` and `risk`'s range, computed on the first
  // call; the reference is valid until the next call.
  const SpotTimes& Of(const model::TrainingEstimate& e, int nodes, const model::SpotParams& params,
                      const SpotRisk& risk);
  // model::SpotWithFallback of `e` on `nodes` nodes with `params` and `deadline_hours`,
  // computed on the first call; the reference is valid until the next call.
  const Result<model::FallbackOutcome>& FallbackOf(const model::TrainingEstimate& e, int nodes,
                                                   const model::SpotParams& params,
                                                   double deadline_hours);
  // The P10 wall hours of `e` run on spot alone on `nodes` nodes with `params` (the P10 of a
  // spot_with_fallback option, which finishes on spot): model::SpotWallRange's at
  // model::SpotRun's outcome, nullopt when that run is refused: Of's times at the rate alone
  // (no range), so shared with the spot options of such a risk.
  std::optional<double> SpotP10Of(const model::TrainingEstimate& e, int nodes,
                                  const model::SpotParams& params);

 private:
  struct Entry {
    model::SpotParams params;
    double low_per_hour, high_per_hour;
    SpotTimes times;
  };
  struct FallbackEntry {
    model::SpotParams params;
    double deadline_hours;
    Result<model::FallbackOutcome> run;
  };
  // What is kept of one estimate on one node count: the few risks, notices and deadlines of
  // each kind in a list.
  struct Kept {
    std::vector<Entry> times;
    std::vector<FallbackEntry> fallbacks;
  };
  using Key = std::pair<const model::TrainingEstimate*, int>;
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.first) * 31 + static_cast<size_t>(k.second);
    }
  };
  // What is kept of `e` on `nodes` nodes. The walk asks for one key several times in a row
  // (an offer's spot, fallback and P10 times; the regions of one configuration): the last
  // key's entry is answered without hashing (the map's nodes never move).
  Kept& KeptFor(const model::TrainingEstimate& e, int nodes);

  std::unordered_map<Key, Kept, KeyHash> kept_;
  Key last_key_{nullptr, 0};
  Kept* last_ = nullptr;
};

// The cost of `estimate` on `nodes` instances at `price`, for the kinds `pricing` asks;
// spot at `spot` (Pricing::SpotPricingFor), at the interruption rate of `risk` (SpotRiskOf:
// with a band, its range gives the spot P10 / P90, model::SpotRangeOverRates; the fallback
// uses the rate alone) and with `cloud`'s preemption notice unless the request gives one.
// A kind without its prices (or spot_with_fallback without a deadline) has no entry. With
// `memo`, spot times and fallback outcomes already computed for the same estimate, nodes,
// parameters and risk (or deadline) are reused.
TrainingCost CostOfTraining(const model::TrainingEstimate& estimate, const model::Workload& w,
                            int nodes, const PriceQuote& price, const PricingRequest& pricing,
                            const SpotPricing& spot, const SpotRisk& risk,
                            const std::string& cloud, SpotTimesMemo* memo = nullptr);

// CostOfTraining's pieces, for a caller that prices one kind at a time (a recommendation's
// options): the spot parameters of `risk` (its rate), a checkpoint of `checkpoint_bytes`
// (model::TrainingCheckpointBytes of the workload) and `cloud`'s preemption notice unless
// `pricing` gives one; the spot_with_fallback cost at
// `ondemand_per_hour` and `deadline_hours` (nullopt when the fallback run is refused); the
// spot cost (nullopt when the spot run is refused; a run that is not viable has its times and
// zero totals). The same figures as CostOfTraining's.
model::SpotParams SpotParamsOf(const PricingRequest& pricing, const SpotRisk& risk,
                               double checkpoint_bytes, const std::string& cloud);
std::optional<FallbackTrainingCost> FallbackCostOfTraining(
    const model::TrainingEstimate& estimate, int nodes, double ondemand_per_hour,
    const SpotPricing& spot, const SpotRisk& risk, const model::SpotParams& params,
    double deadline_hours, SpotTimesMemo* memo = nullptr);
std::optional<SpotTrainingCost> SpotCostOfTraining(const model::TrainingEstimate& estimate,
                                                   int nodes, const SpotPricing& spot,
                                                   const SpotRisk& risk,
                                                   const model::SpotParams& params,
                                                   SpotTimesMemo* memo = nullptr);

// Adds to `assumptions` and `warnings` what `cost` rests on: the spot price's basis, the
// interruption rate and its source (`risk`, SpotRiskAssumption), the preemption notice of `cloud`, a spot run that never
// finishes, the fallback rule and a deadline missed even on demand. `feasible`: the plan
// runs as asked (an infeasible plan has no cost, and no fallback warning).
void ExplainTrainingCost(const TrainingCost& cost, const PricingRequest& pricing,
                         const SpotRisk& risk, double fixed_hours, bool feasible,
                         const std::string& cloud,
                         std::vector<std::string>& assumptions,
                         std::vector<std::string>& warnings);

// The spot_with_fallback policy of `run` in words, for assumptions.
std::string FallbackRule(const model::FallbackOutcome& run);

// The assumption an answer names when a spot cost uses the default interruption rate.
std::string DefaultRateAssumption(const model::SpotParams& params);

}  // namespace gpuplan::plan
