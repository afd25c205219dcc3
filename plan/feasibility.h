// Whether an option is a plan a team can act on: it fits in memory, it has a price for what
// it is costed on, it meets the deadline at the asked confidence, and so on. The planner
// computes one Feasibility per option (a training estimate, a compare row, a serving plan, a
// recommendation candidate) and every answer writes that one verdict: an infeasible option
// carries its reasons and the nearest change that would make it feasible, never a time or
// cost presented as the plan's. Plain values; no I/O; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/enum_names.h"
#include "model/hardware.h"
#include "model/inference.h"
#include "model/training.h"

namespace gpuplan::plan {

// Why an option is not a plan. Recommendation answers count rejected options under the same
// names (`rejected.does_not_fit`...).
enum class Infeasible {
  kDoesNotFit,     // the model's memory does not fit the GPUs
  kNoPrice,        // no price for the kind it is costed on
  kOverDeadline,   // its time at the deadline's confidence is past the deadline
  kOverBudget,     // its cost is over the budget
  kSloNotMet,      // serving: no batch meets the latency target
  kSpotNotViable,  // spot: interruptions come faster than progress
  kDoubtfulPrice,  // the price it is costed on is flagged (db::SpotAboveOndemand)
  kUnsupported,    // the model cannot estimate it (a precision the GPU lacks...)
};
inline constexpr model::EnumNames<Infeasible, 8> kInfeasibleNames = {{
    {"does_not_fit", Infeasible::kDoesNotFit},
    {"no_price", Infeasible::kNoPrice},
    {"over_deadline", Infeasible::kOverDeadline},
    {"over_budget", Infeasible::kOverBudget},
    {"slo_not_met", Infeasible::kSloNotMet},
    {"spot_not_viable", Infeasible::kSpotNotViable},
    {"doubtful_price", Infeasible::kDoubtfulPrice},
    {"unsupported", Infeasible::kUnsupported},
}};
inline std::string_view InfeasibleName(Infeasible code) {
  return model::EnumName(kInfeasibleNames, code);
}

struct InfeasibleReason {
  Infeasible code = Infeasible::kDoesNotFit;
  std::string detail;  // in words, with the figures that decide it
};

struct Feasibility {
  std::vector<InfeasibleReason> reasons;  // empty: feasible
  std::string nearest_change;             // the smallest change known to fix it; "" if none

  bool feasible() const { return reasons.empty(); }
  bool Has(Infeasible code) const;
  // Adds a reason (and the nearest change, when none is set yet).
  void Add(Infeasible code, std::string detail, std::string change = "");
};

// The memory verdict of a training estimate of `job` on `cluster`: does_not_fit with the
// memory needed and available, and the nearest change (a smaller micro-batch when one fits
// on this layout, else the fewest GPUs of this type that fit, else a larger GPU).
Feasibility TrainingFeasibility(const model::TrainingEstimate& e, const model::Cluster& cluster,
                                const model::TrainingJob& job);

// The verdict of a serving estimate: does_not_fit (weights and KV cache), slo_not_met.
Feasibility ServingFeasibility(const model::ServingEstimate& e, const model::NodeSpec& node);

// Which of an option's times a deadline is held to: the expected (P50) time or its P90.
enum class DeadlineConfidence { kP50, kP90 };
inline constexpr model::EnumNames<DeadlineConfidence, 2> kDeadlineConfidenceNames = {
    {{"p50", DeadlineConfidence::kP50}, {"p90", DeadlineConfidence::kP90}}};

}  // namespace gpuplan::plan
