#include "model/cost.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpuplan::model {

double YoungInterval(double checkpoint_cost, double mtbf) {
  return std::sqrt(2 * checkpoint_cost * mtbf);
}

double DalyInterval(double d, double m) {
  if (d >= 2 * m) return m;
  double ratio = d / (2 * m);
  return std::sqrt(2 * d * m) * (1 + std::sqrt(ratio) / 3 + ratio / 9) - d;
}

namespace {
Status CheckNonNegative(double v, const char* field) {
  if (!(v >= 0) || !std::isfinite(v)) {
    return Error::Invalid({Part::kPricing, field}, std::string(field) + " must not be negative");
  }
  return OkStatus();
}
}  // namespace

Result<SpotOutcome> SpotRun(double solve_hours, int nodes, const SpotParams& p) {
  for (auto [v, f] : {std::pair<double, const char*>{p.interruption_rate_per_hour,
                                                     "interruption_rate_per_hour"},
                      {p.checkpoint_interval_minutes, "checkpoint_interval_minutes"},
                      {p.checkpoint_write_minutes, "checkpoint_write_minutes"},
                      {p.restart_minutes, "restart_minutes"},
                      {p.capacity_wait_minutes, "capacity_wait_minutes"},
                      {p.preemption_notice_minutes, "preemption_notice_minutes"}}) {
    Status s = CheckNonNegative(v, f);
    if (!s.ok()) return s.error();
  }
  if (!(p.checkpoint_write_gbps > 0)) {
    return Error::Invalid({Part::kPricing, "checkpoint_write_gbps"},
                          "checkpoint_write_gbps must be positive");
  }
  SpotOutcome out;
  double lambda = p.interruption_rate_per_hour * std::max(1, nodes);  // per job-hour
  double delta = p.checkpoint_write_minutes > 0
                     ? p.checkpoint_write_minutes / 60
                     : p.checkpoint_bytes / (p.checkpoint_write_gbps * 1e9 * std::max(1, nodes)) / 3600;
  out.checkpoint_write_minutes = delta * 60;
  if (lambda <= 0) {
    out.wall_hours = out.billable_hours = solve_hours;
    out.checkpoint_interval_minutes = 0;
    return out;
  }
  double mtbf = 1 / lambda;
  double tau = p.checkpoint_interval_minutes > 0
                   ? p.checkpoint_interval_minutes / 60
                   : std::min(DalyInterval(std::max(delta, 1e-6), mtbf),
                              kMaxCheckpointIntervalMinutes / 60);
  out.checkpoint_interval_minutes = tau * 60;
  double restart = p.restart_minutes / 60, wait = p.capacity_wait_minutes / 60;
  // Each billable hour carries lambda interruptions, each losing half an interval of work
  // (none when the notice leaves time to write a checkpoint), the checkpoint being written
  // and a restart.
  out.checkpoint_on_notice =
      p.preemption_notice_minutes > 0 && p.preemption_notice_minutes / 60 >= delta;
  double lost = out.checkpoint_on_notice ? 0 : tau / 2;
  double loss_per_hour = lambda * (lost + delta + restart);
  if (loss_per_hour >= 1) {
    out.viable = false;
    out.billable_hours = out.wall_hours = INFINITY;
    return out;
  }
  double work_hours = solve_hours * (1 + delta / tau);
  out.billable_hours = work_hours / (1 - loss_per_hour);
  out.expected_interruptions = lambda * out.billable_hours;
  // Work recomputed after interruptions: none when the notice covers the checkpoint write
  // (the write itself is billed time, not lost work).
  out.lost_work_hours = out.expected_interruptions * lost;
  out.wall_hours = out.billable_hours + out.expected_interruptions * wait;
  out.overhead_fraction = out.billable_hours / solve_hours - 1;
  return out;
}

namespace {

// ln P(K = k) of a Poisson count with mean `mean` (> 0).
double PoissonLogPmf(int k, double mean) {
  return -mean + k * std::log(mean) - std::lgamma(k + 1.0);
}

// P(K = k), P(K = k + 1), ... of a Poisson count with mean `mean` (> 0) from k = `first`:
// one exp (and, past k = 0, a log and an lgamma) for the first term, then the recurrence
// p(k+1) = p(k) mean / (k+1)
// (the spot and fallback models walk these sums many times per option).
class PoissonTerms {
 public:
  // From k = 0 with a finite positive mean the first term is exp(-mean): the log-pmf's value
  // without its log and lgamma (0 * log(mean) and lgamma(1) are exactly 0), the same double
  // for less work.
  PoissonTerms(int first, double mean)
      : k_(first),
        mean_(mean),
        p_(first == 0 && mean > 0 && std::isfinite(mean) ? std::exp(-mean)
                                                         : std::exp(PoissonLogPmf(first, mean))) {}
  int k() const { return k_; }
  double p() const { return p_; }
  void Next() { p_ *= mean_ / ++k_; }

 private:
  int k_;
  double mean_, p_;
};

// How close, as a fraction of the deadline, a bisected switch point of the fallback is to
// the latest one that meets the deadline: 1e-9 of a 24 h deadline is 86 us of wall time, in
// ~30 bisection steps (the 50 it took before put it within 1e-15).
constexpr double kSwitchPointResolution = 1e-9;

// More interruptions than this before the deadline is no spot run at all: such a job runs on
// demand from the start. It also keeps every Poisson count below an int's range.
constexpr double kMaxInterruptions = 1e6;

// The range of counts that holds all but ~1e-12 of a Poisson distribution's mass, for a mean
// of at most kMaxInterruptions (a larger one is taken as that).
std::pair<int, int> PoissonSpan(double mean) {
  mean = std::min(mean, kMaxInterruptions);
  double spread = 8 * std::sqrt(mean) + 10;
  return {std::max(0, static_cast<int>(mean - spread)), static_cast<int>(mean + spread) + 1};
}

// The smallest count whose CDF reaches `q` (0 when mean is 0).
int PoissonQuantile(double q, double mean) {
  if (mean <= 0) return 0;
  auto [lo, hi] = PoissonSpan(mean);
  double cdf = 0;
  for (PoissonTerms t(lo, mean); t.k() <= hi; t.Next()) {
    cdf += t.p();
    if (cdf >= q) return t.k();
  }
  return hi;
}

// One run under the fallback policy: `work` hours of work, `k` interruptions while on spot.
struct FallbackPath {
  double hours = 0, spot_hours = 0, ondemand_hours = 0;
  bool switched = false;
};

struct FallbackShape {
  double efficiency = 1;   // useful work per running hour on spot (checkpoint writes)
  double per_interruption = 0;  // wall hours lost: work lost + restart + capacity wait
  double billed_per_interruption = 0;  // work lost + restart
  double wait = 0;         // capacity wait (not billed)
  double switch_cost = 0;  // checkpoint write + restart on on-demand
};

FallbackPath RunPath(double work, int k, double switch_at, const FallbackShape& s) {
  FallbackPath p;
  double running = work / s.efficiency;
  if (running + k * s.per_interruption <= switch_at) {
    p.hours = running + k * s.per_interruption;
    p.spot_hours = running + k * s.billed_per_interruption;
    return p;
  }
  double progress = std::min(work, s.efficiency * std::max(0.0, switch_at - k * s.per_interruption));
  p.switched = true;
  p.spot_hours = std::max(0.0, switch_at - k * s.wait);
  p.ondemand_hours = s.switch_cost + (work - progress);
  p.hours = switch_at + p.ondemand_hours;
  return p;
}

}  // namespace

Result<FallbackOutcome> SpotWithFallback(double solve_hours, double solve_p90_hours, int nodes,
                                         const SpotParams& params, double deadline_hours) {
  if (!(deadline_hours > 0) || !std::isfinite(deadline_hours)) {
    return Error::Invalid({Part::kPricing, "deadline_hours"}, "deadline_hours must be positive");
  }
  if (!(solve_hours >= 0) || !std::isfinite(solve_hours) || !std::isfinite(solve_p90_hours)) {
    return Error::Invalid({Part::kInput, "time"},
                          "solve time must be a finite non-negative number");
  }
  auto spot = SpotRun(solve_hours, nodes, params);
  if (!spot.ok()) return spot.error();
  FallbackOutcome out;
  out.deadline_hours = deadline_hours;
  out.checkpoint_interval_minutes = spot->checkpoint_interval_minutes;
  out.checkpoint_write_minutes = spot->checkpoint_write_minutes;
  out.checkpoint_on_notice = spot->checkpoint_on_notice;
  const double work = solve_hours, work_p90 = std::max(solve_hours, solve_p90_hours);
  const double rate = params.interruption_rate_per_hour * std::max(1, nodes);
  FallbackShape s;
  double write = spot->checkpoint_write_minutes / 60;
  double interval = spot->checkpoint_interval_minutes / 60;
  if (rate > 0 && interval > 0) s.efficiency = interval / (interval + write);
  double lost = (spot->checkpoint_on_notice ? 0 : interval / 2) + write;
  double restart = params.restart_minutes / 60;
  s.wait = params.capacity_wait_minutes / 60;
  s.per_interruption = lost + restart + s.wait;
  s.billed_per_interruption = lost + restart;
  s.switch_cost = write + restart;
  auto mean_before = [&](double t, double w) { return rate * std::min(t, w / s.efficiency); };
  // When a run that is still going at `t` (it met more interruptions than a run that has
  // finished) moves to on-demand then: its finish at the P90 of the interruption count among
  // such runs, with the P90 work. Runs that finished by `t` met the deadline already.
  auto p90_finish_if_moved = [&](double t) {
    const double running = work_p90 / s.efficiency;
    const double mean = mean_before(t, work_p90);
    int k = 0;
    if (t > running) {
      if (s.per_interruption <= 0 || mean <= 0) return t + s.switch_cost;  // every run is done
      auto [lo, hi] = PoissonSpan(mean);
      double needed = std::ceil((t - running) / s.per_interruption - 1e-12);
      if (needed > hi) return t + s.switch_cost;  // no run is still going: all finished
      int k_min = static_cast<int>(needed);
      double below = 0;  // P(K < k_min)
      PoissonTerms term(lo, mean);
      for (; term.k() < k_min && term.k() <= hi; term.Next()) below += term.p();
      double tail = 1 - below;
      if (tail < 1e-9) return t + s.switch_cost;
      double cdf = 0;
      // The walk above stopped at max(k_min, lo) (or past hi, where the loop below ends).
      for (k = term.k(); k <= hi; term.Next(), k = term.k()) {
        cdf += term.p();
        if (cdf / tail >= 0.9) break;
      }
    } else {
      k = PoissonQuantile(0.9, mean);
    }
    double progress = std::min(work_p90, s.efficiency * std::max(0.0, t - k * s.per_interruption));
    return t + s.switch_cost + (work_p90 - progress);
  };
  const bool usable = spot->viable && rate * deadline_hours <= kMaxInterruptions;
  double switch_at = 0;
  if (usable && p90_finish_if_moved(0) <= deadline_hours) {
    // The latest switch point that still meets the deadline. A run moved at t finishes no
    // sooner than t + the move's cost, so no point later than `hi`, the deadline less that
    // cost, meets it (`hi` is stepped down where the subtraction rounded up). Once every run
    // has finished on spot, moving meets the deadline again (p90_finish_if_moved: t + the
    // move's cost), even after points where the runs still going would move too late; so
    // when `hi` meets it, `hi` is the answer (bisecting [0, hi] could stop at an earlier
    // point). Else some runs are still going at `hi`, the points that meet the deadline are
    // those up to one point, and the bisection finds it to within kSwitchPointResolution x
    // the deadline.
    double lo = 0, hi = std::min(deadline_hours, std::max(0.0, deadline_hours - s.switch_cost));
    for (int i = 0; i < 8 && hi > 0 && hi + s.switch_cost > deadline_hours; ++i) {
      hi = std::nextafter(hi, 0.0);
    }
    if (p90_finish_if_moved(hi) <= deadline_hours) {
      lo = hi;
    } else {
      for (int i = 0; i < 64 && hi - lo > kSwitchPointResolution * deadline_hours; ++i) {
        double mid = (lo + hi) / 2;
        (p90_finish_if_moved(mid) <= deadline_hours ? lo : hi) = mid;
      }
    }
    switch_at = lo;
  }
  out.switch_at_hours = switch_at;
  if (switch_at <= 0) {  // on-demand from the start
    out.feasible = work_p90 <= deadline_hours;
    out.expected_hours = out.expected_ondemand_hours = work;
    out.p90_hours = out.p90_ondemand_hours = work_p90;
    out.fallback_probability = 1;
    return out;
  }
  const double mean = mean_before(switch_at, work);
  out.expected_interruptions = mean;
  if (mean > 0) {
    auto [lo, hi] = PoissonSpan(mean);
    for (PoissonTerms term(lo, mean); term.k() <= hi; term.Next()) {
      const int k = term.k();
      const double pk = term.p();
      FallbackPath p = RunPath(work, k, switch_at, s);
      out.expected_hours += pk * p.hours;
      out.expected_spot_hours += pk * p.spot_hours;
      out.expected_ondemand_hours += pk * p.ondemand_hours;
      if (p.switched) out.fallback_probability += pk;
    }
  } else {
    FallbackPath p = RunPath(work, 0, switch_at, s);
    out.expected_hours = p.hours;
    out.expected_spot_hours = p.spot_hours;
    out.expected_ondemand_hours = p.ondemand_hours;
    out.fallback_probability = p.switched ? 1 : 0;
  }
  out.p90_interruptions = PoissonQuantile(0.9, mean_before(switch_at, work_p90));
  FallbackPath p90 = RunPath(work_p90, out.p90_interruptions, switch_at, s);
  out.p90_hours = p90.hours;
  out.p90_spot_hours = p90.spot_hours;
  out.p90_ondemand_hours = p90.ondemand_hours;
  out.feasible = out.p90_hours <= deadline_hours + 1e-9;
  return out;
}

UnitCosts SpreadCost(double total, double epochs, double tokens, double samples) {
  UnitCosts u;
  if (epochs > 0) u.per_epoch = total / epochs;
  if (tokens > 0) u.per_million_tokens = total / tokens * 1e6;
  if (samples > 0) u.per_thousand_samples = total / samples * 1e3;
  return u;
}

namespace {

// What the P10/P90 wall time of a spot run takes from it, at `rate` per node-hour with the
// run's own checkpoint interval and write.
struct SpotShape {
  double lambda = 0;                   // per job-hour
  double tau = 0, delta = 0;           // interval and write, hours
  double billed_per_interruption = 0;  // work lost + write + restart
  double per_interruption = 0;         // and the capacity wait
};

SpotShape ShapeOf(const SpotParams& p, int nodes, const SpotOutcome& run, double rate) {
  SpotShape s;
  s.lambda = rate * std::max(1, nodes);
  s.tau = run.checkpoint_interval_minutes / 60;
  s.delta = run.checkpoint_write_minutes / 60;
  const double lost = run.checkpoint_on_notice ? 0 : s.tau / 2;
  s.billed_per_interruption = lost + s.delta + p.restart_minutes / 60;
  s.per_interruption = s.billed_per_interruption + p.capacity_wait_minutes / 60;
  return s;
}

// The wall hours of `solve` hours of work meeting the `q` quantile of the Poisson count of
// interruptions, whose mean is over the billed hours of that work (SpotRun's expectation).
double WallAt(const SpotShape& s, double solve, double q) {
  double running = solve * (1 + s.delta / s.tau);
  double mean = s.lambda * running / std::max(1e-12, 1 - s.lambda * s.billed_per_interruption);
  return running + PoissonQuantile(q, mean) * s.per_interruption;
}

}  // namespace

WallRange SpotWallRange(double solve_p10_hours, double solve_p90_hours, int nodes,
                        const SpotParams& p, const SpotOutcome& expected) {
  if (!expected.viable) return {INFINITY, INFINITY};
  const SpotShape s = ShapeOf(p, nodes, expected, p.interruption_rate_per_hour);
  if (s.lambda <= 0 || s.tau <= 0) return {solve_p10_hours, solve_p90_hours};
  // Never a P90 below the expectation nor a P10 above it (a short run's P90 count can be 0
  // while the expectation counts a fraction of an interruption).
  return {std::min(WallAt(s, solve_p10_hours, 0.1), expected.wall_hours),
          std::max(WallAt(s, solve_p90_hours, 0.9), expected.wall_hours)};
}

SpotRange SpotRangeOverRates(double solve_hours, double solve_p10_hours, double solve_p90_hours,
                             int nodes, const SpotParams& params, const SpotOutcome& expected,
                             double low_per_hour, double high_per_hour) {
  if (!expected.viable) return {INFINITY, INFINITY, INFINITY, INFINITY};
  if (expected.checkpoint_interval_minutes <= 0) {  // no interval planned (rate 0): no range
    WallRange wall = SpotWallRange(solve_p10_hours, solve_p90_hours, nodes, params, expected);
    return {wall.p10_hours, wall.p90_hours, expected.billable_hours, expected.billable_hours};
  }
  // At each edge the job keeps the interval it planned at the expected rate: SpotRun's
  // billable hours, work x (1 + delta / tau) / (1 - lambda x billed per interruption), in
  // closed form (infinite when not viable), and the wall time at the edge's Poisson count.
  auto billable = [&](const SpotShape& s) {
    double loss = s.lambda * s.billed_per_interruption;
    return loss >= 1 ? INFINITY : solve_hours * (1 + s.delta / s.tau) / (1 - loss);
  };
  const SpotShape low = ShapeOf(params, nodes, expected, low_per_hour);
  const SpotShape high = ShapeOf(params, nodes, expected, high_per_hour);
  const double high_billable = billable(high);
  return {std::min(WallAt(low, solve_p10_hours, 0.1), expected.wall_hours),
          std::isinf(high_billable)
              ? INFINITY
              : std::max(WallAt(high, solve_p90_hours, 0.9), expected.wall_hours),
          std::min(billable(low), expected.billable_hours),
          std::max(high_billable, expected.billable_hours)};
}

}  // namespace gpuplan::model
