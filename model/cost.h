// Cost of a job from an hourly price: on-demand, and spot with interruptions
// (checkpoint interval by Young/Daly, lost work, restarts and capacity waits), with wall
// time and billable time reported separately. Currency-agnostic: prices and results are
// in the same currency. Pure and deterministic; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/result.h"

namespace gpuplan::model {

// Young 1974: sqrt(2 * checkpoint_cost * mtbf). Same unit in and out.
double YoungInterval(double checkpoint_cost, double mtbf);
// Daly 2006 higher-order optimum: sqrt(2dM)[1 + sqrt(d/2M)/3 + (d/2M)/9] - d for d < 2M,
// else M.
double DalyInterval(double checkpoint_cost, double mtbf);

// The longest checkpoint interval: a request's bound, and the cap of the Daly optimum
// when interruptions are so rare that it would not be finite.
inline constexpr double kMaxCheckpointIntervalMinutes = 1e6;

struct SpotParams {
  double interruption_rate_per_hour = 0.1;  // per node (0.5 = a node is preempted every 2 h)
  double checkpoint_interval_minutes = 0;   // 0 = the Daly optimum (capped, see above)
  double checkpoint_write_minutes = 0;      // 0 = from the checkpoint size (below)
  double checkpoint_bytes = 0;              // for the write time when it is 0
  double checkpoint_write_gbps = 1.0;       // GB/s per node to object storage
  double restart_minutes = 10;              // provision + setup + checkpoint load, billable
  double capacity_wait_minutes = 30;        // waiting for capacity after a preemption, unbilled
  // Warning the cloud gives before it reclaims a node (AWS 2 min, GCP and Azure ~30 s); 0 =
  // none. When it covers the checkpoint write, the job checkpoints on notice and loses no
  // work to the interruption (only the write and the restart).
  double preemption_notice_minutes = 0;
};

struct SpotOutcome {
  double wall_hours = 0;      // from start to finish, waits included
  double billable_hours = 0;  // instance-hours per node that are charged
  double expected_interruptions = 0;
  double checkpoint_interval_minutes = 0;
  double checkpoint_write_minutes = 0;
  double lost_work_hours = 0;  // recomputed work after interruptions
  bool checkpoint_on_notice = false;  // the notice covered the checkpoint write
  double overhead_fraction = 0;  // billable / solve - 1
  bool viable = true;  // false when interruptions come faster than progress
};

// The expected outcome of `solve_hours` of work on `nodes` spot nodes. Errors name the
// pricing field ({Part::kPricing, "restart_minutes"}; negative rates, zero interval...).
Result<SpotOutcome> SpotRun(double solve_hours, int nodes, const SpotParams& params);

// The P10 and P90 wall hours of the spot run `expected` (SpotRun's answer for the same
// `nodes` and `params`) when its work is `solve_p10_hours` / `solve_p90_hours`: each is that
// work's running time plus the P10 / P90 Poisson count of interruptions in it, each costing
// its lost work, checkpoint write, restart and capacity wait. Both quantiles are taken
// together, so the P90 is on the safe side; P10 <= expected wall hours <= P90. Infinite
// when `expected` is not viable.
struct WallRange {
  double p10_hours = 0, p90_hours = 0;
};
WallRange SpotWallRange(double solve_p10_hours, double solve_p90_hours, int nodes,
                        const SpotParams& params, const SpotOutcome& expected);

// The range of a spot run whose interruption rate is known only to lie within
// [low_per_hour, high_per_hour] per node (a published band, model/spot_interruption.h),
// `expected` being SpotRun's answer for `solve_hours` at `params` (the rate the job plans
// its checkpoints with). The P10 is SpotWallRange's P10 at the low rate, the P90 its P90 at
// the high rate, both keeping `expected`'s checkpoint interval (the job does not know which
// rate it meets); billable hours are SpotRun's at each rate with that interval, for the
// P10 / P90 cost. P10 <= expected <= P90; the P90 is infinite when the high rate is not
// viable (and everything when `expected` is not).
struct SpotRange {
  double p10_wall_hours = 0, p90_wall_hours = 0;
  double p10_billable_hours = 0, p90_billable_hours = 0;
};
SpotRange SpotRangeOverRates(double solve_hours, double solve_p10_hours, double solve_p90_hours,
                             int nodes, const SpotParams& params, const SpotOutcome& expected,
                             double low_per_hour, double high_per_hour);

// Spot with an on-demand fallback and a deadline: the job runs on spot; if it has not
// finished `switch_at_hours` of wall time after the start, it moves to on-demand nodes for
// the rest. The switch point is the latest at which a run still going then (it met more
// interruptions than the runs that have finished) finishes on-demand by the deadline, at the
// P90 of the interruption count among such runs and the P90 work (`solve_p90_hours`), found
// to within 1e-9 x `deadline_hours` (exactly the deadline less the move's cost when even that
// late a move meets it, as when every run is done by then). So the P90 time meets the deadline, and
// at most a tenth of the runs that move miss it. Interruptions: Poisson in running time at `nodes`
// x the rate; each costs half a checkpoint interval of work (none when the notice covers the write)
// and the write, the restart (billed) and the capacity wait (not billed); the move costs a
// checkpoint write and a restart on on-demand nodes, which are not interrupted.
struct FallbackOutcome {
  bool feasible = true;  // false: even on-demand from the start misses the deadline at P90
  double deadline_hours = 0;
  double switch_at_hours = 0;  // wall hours after the start; 0 = on-demand from the start
  double expected_hours = 0, p90_hours = 0;  // wall time, start to finish
  // Billable hours per node on each kind: expected, and on the P90 run.
  double expected_spot_hours = 0, expected_ondemand_hours = 0;
  double p90_spot_hours = 0, p90_ondemand_hours = 0;
  double fallback_probability = 0;  // of a move to on-demand (at the expected work)
  double expected_interruptions = 0;
  int p90_interruptions = 0;  // the count the switch point allows for
  double checkpoint_interval_minutes = 0;
  double checkpoint_write_minutes = 0;
  bool checkpoint_on_notice = false;
};

// `solve_hours` of work (P90 `solve_p90_hours`) on `nodes` nodes by `deadline_hours`.
// Errors as SpotRun, and on pricing "deadline_hours" when it is not positive.
Result<FallbackOutcome> SpotWithFallback(double solve_hours, double solve_p90_hours, int nodes,
                                         const SpotParams& params, double deadline_hours);

// A total cost spread over what the job produces. Fields are 0 when the quantity is 0.
struct UnitCosts {
  double per_epoch = 0;
  double per_million_tokens = 0;
  double per_thousand_samples = 0;  // images for CNN/ViT, sequences otherwise
};
UnitCosts SpreadCost(double total, double epochs, double tokens, double samples);

}  // namespace gpuplan::model
