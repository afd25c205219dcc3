#include "model/cost.h"

#include <cmath>

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
    return Error::Invalid(std::string("pricing.") + field, std::string(field) + " must not be negative");
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
    return Error::Invalid("pricing.checkpoint_write_gbps", "checkpoint_write_gbps must be positive");
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
  double tau = p.checkpoint_interval_minutes > 0 ? p.checkpoint_interval_minutes / 60
                                                 : DalyInterval(std::max(delta, 1e-6), mtbf);
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
  out.lost_work_hours = out.expected_interruptions * (lost + delta);
  out.wall_hours = out.billable_hours + out.expected_interruptions * wait;
  out.overhead_fraction = out.billable_hours / solve_hours - 1;
  return out;
}

Result<CostBreakdown> JobCost(double solve_hours, int nodes, double ondemand_price,
                              std::optional<double> spot_price, const SpotParams& params) {
  if (!(solve_hours >= 0) || !std::isfinite(solve_hours)) {
    return Error::Invalid("time", "solve time must be a finite non-negative number");
  }
  if (!(ondemand_price >= 0)) {
    return Error::Invalid("pricing.price_per_hour", "price_per_hour must not be negative");
  }
  CostBreakdown cost;
  cost.ondemand_total = ondemand_price * nodes * solve_hours;
  if (spot_price) {
    auto run = SpotRun(solve_hours, nodes, params);
    if (!run.ok()) return run.error();
    cost.spot = *run;
    if (run->viable) cost.spot_expected_total = *spot_price * nodes * run->billable_hours;
  }
  return cost;
}

UnitCosts SpreadCost(double total, double epochs, double tokens, double samples) {
  UnitCosts u;
  if (epochs > 0) u.per_epoch = total / epochs;
  if (tokens > 0) u.per_million_tokens = total / tokens * 1e6;
  if (samples > 0) u.per_thousand_samples = total / samples * 1e3;
  return u;
}

}  // namespace gpuplan::model
