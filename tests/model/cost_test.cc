#include "model/cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace gpuplan::model {
namespace {

TEST(CostTest, YoungIntervalIsSqrtTwoDeltaM) {
  EXPECT_DOUBLE_EQ(YoungInterval(2.0, 120.0), std::sqrt(2.0 * 2.0 * 120.0));
  // Daly's higher-order optimum is close to Young's for small delta/M.
  EXPECT_NEAR(DalyInterval(0.5, 1000) / YoungInterval(0.5, 1000), 1.0, 0.02);
  EXPECT_DOUBLE_EQ(DalyInterval(300, 100), 100);  // delta >= 2M
}

TEST(CostTest, SpotAtALargeDiscountCostsLessEvenWithInterruptions) {
  SpotParams p;
  p.interruption_rate_per_hour = 0.5;  // the pessimistic V100 trace: MTBF 2 h
  p.checkpoint_write_minutes = 2;
  p.restart_minutes = 15;
  auto spot = SpotRun(72, 1, p);
  ASSERT_TRUE(spot.ok());
  ASSERT_TRUE(spot->viable);
  EXPECT_LT(3.0 * spot->billable_hours, 10.0 * 72);  // spot at 3/h against on-demand at 10/h
  EXPECT_GT(spot->billable_hours, 72);
  EXPECT_GT(spot->wall_hours, spot->billable_hours);  // capacity waits are unbilled
  EXPECT_GT(spot->expected_interruptions, 10);
  // MODEL.md's worked example: delta 2 min, M 2 h -> tau* about 22 min and a first-order
  // overhead of delta/tau + (tau/2 + delta + R)/M ~ 31%. Re-executed work is itself
  // interrupted, so the exact expectation is somewhat higher than the first-order sum.
  double tau_h = spot->checkpoint_interval_minutes / 60;
  EXPECT_NEAR(spot->checkpoint_interval_minutes, 22, 2);
  double first_order = (2.0 / 60) / tau_h + (tau_h / 2 + 2.0 / 60 + 0.25) / 2;
  EXPECT_NEAR(first_order, 0.31, 0.03);
  EXPECT_GE(spot->overhead_fraction, first_order);
  EXPECT_LE(spot->overhead_fraction, first_order * 1.5);
}

TEST(CostTest, AFixedIntervalIsHonoured) {
  SpotParams p;
  p.interruption_rate_per_hour = 0.1;
  p.checkpoint_interval_minutes = 30;
  p.checkpoint_write_minutes = 1;
  auto run = SpotRun(72, 1, p);
  ASSERT_TRUE(run.ok());
  EXPECT_DOUBLE_EQ(run->checkpoint_interval_minutes, 30);
  EXPECT_GT(run->billable_hours, 72 * (1 + 1.0 / 30));
}

TEST(CostTest, MoreNodesMeanMoreInterruptions) {
  SpotParams p;
  p.interruption_rate_per_hour = 0.05;
  p.checkpoint_write_minutes = 1;
  auto one = SpotRun(10, 1, p);
  auto eight = SpotRun(10, 8, p);
  ASSERT_TRUE(one.ok() && eight.ok());
  EXPECT_GT(eight->expected_interruptions, one->expected_interruptions);
  EXPECT_GT(eight->overhead_fraction, one->overhead_fraction);
}

// A preemption notice that covers the checkpoint write saves the work since the last
// checkpoint; a notice shorter than the write does not.
TEST(CostTest, APreemptionNoticeLongEnoughToCheckpointLosesNoWork) {
  SpotParams p;
  p.interruption_rate_per_hour = 0.2;
  p.checkpoint_write_minutes = 1.0;
  auto none = SpotRun(48, 4, p);
  p.preemption_notice_minutes = 2.0;  // AWS
  auto aws = SpotRun(48, 4, p);
  p.preemption_notice_minutes = 0.5;  // GCP: shorter than the 1-minute write
  auto gcp = SpotRun(48, 4, p);
  ASSERT_TRUE(none.ok() && aws.ok() && gcp.ok());
  EXPECT_TRUE(aws->checkpoint_on_notice);
  EXPECT_FALSE(gcp->checkpoint_on_notice);
  EXPECT_LT(aws->lost_work_hours, 0.5 * none->lost_work_hours);
  EXPECT_LT(aws->billable_hours, none->billable_hours);
  EXPECT_DOUBLE_EQ(gcp->billable_hours, none->billable_hours);
  p.preemption_notice_minutes = -1;
  auto negative = SpotRun(48, 4, p);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().fields.at(0).id, FieldId(Part::kPricing, "preemption_notice_minutes"));
}

TEST(CostTest, HopelessSpotIsNotViable) {
  SpotParams p;
  p.interruption_rate_per_hour = 20;
  p.restart_minutes = 10;
  auto spot = SpotRun(10, 1, p);
  ASSERT_TRUE(spot.ok());
  EXPECT_FALSE(spot->viable);
}

TEST(CostTest, NegativeInputsNameTheField) {
  SpotParams p;
  p.interruption_rate_per_hour = -1;
  auto run = SpotRun(1, 1, p);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().fields.at(0).id, FieldId(Part::kPricing, "interruption_rate_per_hour"));
}

}  // namespace
}  // namespace gpuplan::model

namespace gpuplan::model {
namespace {

TEST(CostTest, SpreadsTheTotalOverWhatTheJobProduces) {
  UnitCosts u = SpreadCost(300, 3, 1.5e9, 3e6);
  EXPECT_DOUBLE_EQ(u.per_epoch, 100);
  EXPECT_DOUBLE_EQ(u.per_million_tokens, 0.2);
  EXPECT_DOUBLE_EQ(u.per_thousand_samples, 0.1);
  EXPECT_DOUBLE_EQ(SpreadCost(300, 0, 0, 0).per_epoch, 0);
}

}  // namespace
}  // namespace gpuplan::model

namespace gpuplan::model {
namespace {

SpotParams Params(double rate) {
  SpotParams p;
  p.interruption_rate_per_hour = rate;
  p.checkpoint_interval_minutes = 60;
  p.checkpoint_write_minutes = 6;
  p.restart_minutes = 12;
  p.capacity_wait_minutes = 30;
  return p;
}

TEST(SpotWithFallbackTest, TheP90RunMeetsTheDeadlineForEveryShape) {
  for (double rate : {0.0, 0.02, 0.1, 0.3}) {
    for (int nodes : {1, 4}) {
      for (double slack : {1.05, 1.3, 2.0, 4.0}) {
        double work = 20, work_p90 = 24, deadline = work_p90 * slack;
        auto out = SpotWithFallback(work, work_p90, nodes, Params(rate), deadline);
        ASSERT_TRUE(out.ok());
        SCOPED_TRACE(::testing::Message() << "rate " << rate << " nodes " << nodes << " slack " << slack);
        EXPECT_TRUE(out->feasible);
        EXPECT_LE(out->p90_hours, deadline + 1e-9);
        EXPECT_GE(out->switch_at_hours, 0);
        EXPECT_LE(out->switch_at_hours, deadline);
        EXPECT_GE(out->expected_hours, work - 1e-9);
        EXPECT_LE(out->expected_hours, out->p90_hours + 1e-9);
        EXPECT_GE(out->fallback_probability, 0);
        EXPECT_LE(out->fallback_probability, 1 + 1e-12);
      }
    }
  }
}

TEST(SpotWithFallbackTest, TheSwitchPointLeavesRoomForTheOnDemandFinish) {
  // 20 h of work (P90 24) and no interruptions: every run is done by hour 24 and none has
  // to move, so the switch point is the latest a move could still finish: the deadline
  // less the checkpoint write (0.1 h) and the restart (0.2 h).
  auto out = SpotWithFallback(20, 24, 1, Params(0), 40);
  ASSERT_TRUE(out.ok());
  EXPECT_DOUBLE_EQ(out->switch_at_hours, 40 - (0.1 + 0.2));
  EXPECT_NEAR(out->expected_hours, 20, 1e-9);  // no interruptions, no checkpoints
  EXPECT_DOUBLE_EQ(out->fallback_probability, 0);
}

// 32.6 h of work (P90 39.12) on 2 nodes at 0.03 interruptions an hour each, by 66.504 h:
// a move at about hour 64 would be too late for the few runs still going then, but from a
// little later every run has finished on spot, so a later point meets the deadline again
// (nothing moves). The switch point is the latest, the deadline less the move's cost (a
// bisection over the whole deadline stopped at 63.92 h).
TEST(SpotWithFallbackTest, TheSwitchPointIsTheLatestWhereEveryRunIsDoneByThen) {
  auto out = SpotWithFallback(32.6, 32.6 * 1.2, 2, Params(0.03), 66.504);
  ASSERT_TRUE(out.ok());
  EXPECT_DOUBLE_EQ(out->switch_at_hours, 66.504 - (0.1 + 0.2));
  EXPECT_LE(out->p90_hours, 66.504);
  EXPECT_LT(out->fallback_probability, 1e-12);
}

TEST(SpotWithFallbackTest, ATightDeadlineMovesToOnDemandEarlierAndMoreOften) {
  auto loose = SpotWithFallback(20, 24, 2, Params(0.1), 60);
  auto tight = SpotWithFallback(20, 24, 2, Params(0.1), 30);
  ASSERT_TRUE(loose.ok() && tight.ok());
  EXPECT_LT(tight->switch_at_hours, loose->switch_at_hours);
  EXPECT_GT(tight->fallback_probability, loose->fallback_probability);
  EXPECT_GT(tight->expected_ondemand_hours, loose->expected_ondemand_hours);
}

TEST(SpotWithFallbackTest, NoSlackForARestartMeansOnDemandFromTheStart) {
  // The P90 work (24 h) and the switch cost (0.3 h) do not fit in 24.2 h: no spot at all.
  auto out = SpotWithFallback(20, 24, 1, Params(0.1), 24.2);
  ASSERT_TRUE(out.ok());
  EXPECT_DOUBLE_EQ(out->switch_at_hours, 0);
  EXPECT_TRUE(out->feasible);
  EXPECT_DOUBLE_EQ(out->expected_ondemand_hours, 20);
  EXPECT_DOUBLE_EQ(out->expected_spot_hours, 0);
  EXPECT_DOUBLE_EQ(out->p90_hours, 24);
}

TEST(SpotWithFallbackTest, ADeadlineEvenOnDemandMissesIsNotFeasible) {
  auto out = SpotWithFallback(20, 24, 1, Params(0.1), 22);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->feasible);
}

TEST(SpotWithFallbackTest, ExpectedHoursMatchASimulation) {
  // Monte Carlo of the same policy: interruptions arrive as a Poisson process in running
  // time; each costs `per_interruption` wall hours; at the switch point an unfinished run
  // moves to on-demand. The closed form counts interruptions over min(switch, running).
  for (double per_node : {0.03, 0.15}) {
  SpotParams p = Params(per_node);
  const double work = 30, deadline = 45;
  auto out = SpotWithFallback(work, work, 2, p, deadline);
  ASSERT_TRUE(out.ok());
  std::mt19937_64 rng(7);
  const double rate = 2 * per_node, eff = 60.0 / 66;  // 60 min interval, 6 min write
  double sum = 0;
  std::vector<double> walls;
  const int runs = 20000;
  int switched = 0;
  for (int i = 0; i < runs; ++i) {
    double wall = 0, done = 0;
    std::exponential_distribution<double> next(rate);
    bool moved = false;
    while (done < work) {
      double run = next(rng);
      double need = (work - done) / eff;
      double until_switch = out->switch_at_hours - wall;
      if (until_switch <= std::min(run, need)) {
        done += eff * std::max(0.0, until_switch);
        wall = out->switch_at_hours + 0.1 + 0.2 + (work - done);
        moved = true;
        break;
      }
      if (run >= need) {
        wall += need;
        done = work;
        break;
      }
      wall += run;
      done += eff * run;
      done = std::max(0.0, done - eff * 0.5);  // the half interval since the last checkpoint
      wall += 0.1 + 0.2 + 0.5;
    }
    switched += moved;
    sum += wall;
    walls.push_back(wall);
  }
  std::sort(walls.begin(), walls.end());
  double simulated_p90 = walls[static_cast<size_t>(0.9 * runs)];
  std::printf("fallback: switch at %.2f h; expected %.2f h (simulated %.2f), P90 %.2f h "
              "(simulated %.2f), moved %.3f (simulated %.3f)\n",
              out->switch_at_hours, out->expected_hours, sum / runs, out->p90_hours,
              simulated_p90, out->fallback_probability, double(switched) / runs);
  EXPECT_LE(simulated_p90, deadline);
  EXPECT_NEAR(out->expected_hours, sum / runs, 0.05 * out->expected_hours);
  EXPECT_NEAR(out->fallback_probability, double(switched) / runs, 0.08);
  }
}

TEST(SpotWithFallbackTest, AbsurdInterruptionCountsRunOnDemandInsteadOfOverflowing) {
  SpotParams p = Params(100);
  p.checkpoint_write_minutes = 1e-6;
  p.restart_minutes = 0;
  p.preemption_notice_minutes = 1;  // the write fits the notice: nothing is lost
  auto out = SpotWithFallback(1e6, 1e6, 4096, p, 1e7);
  ASSERT_TRUE(out.ok());
  EXPECT_DOUBLE_EQ(out->switch_at_hours, 0);
  EXPECT_TRUE(out->feasible);
}

TEST(SpotWithFallbackTest, InterruptionsThatCostAlmostNothingStillGiveASwitchPoint) {
  SpotParams p = Params(0.1);
  p.checkpoint_write_minutes = 1e-6;
  p.restart_minutes = 0;
  p.capacity_wait_minutes = 0;
  p.preemption_notice_minutes = 1;  // each interruption costs ~1e-8 h
  auto out = SpotWithFallback(10, 12, 1, p, 1e6);
  ASSERT_TRUE(out.ok());
  EXPECT_GT(out->switch_at_hours, 0);
  EXPECT_LE(out->p90_hours, 1e6);
  EXPECT_NEAR(out->expected_hours, 10, 0.01);
}

TEST(SpotWithFallbackTest, ANonPositiveDeadlineNamesTheField) {
  auto out = SpotWithFallback(20, 24, 1, Params(0.1), 0);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().fields.at(0).id, FieldId(Part::kPricing, "deadline_hours"));
}

// Issue 23: the spot range brackets the expectation, for short and long runs, and widens
// with the work's own range.
TEST(CostTest, SpotWallRangeBracketsTheExpectedWallTime) {
  SpotParams p;
  for (double rate : {0.0, 0.02, 0.1, 0.5}) {
    p.interruption_rate_per_hour = rate;
    for (double hours : {0.5, 3.0, 48.0, 500.0}) {
      auto run = SpotRun(hours, 2, p);
      ASSERT_TRUE(run.ok());
      if (!run->viable) continue;
      WallRange r = SpotWallRange(0.8 * hours, 1.3 * hours, 2, p, *run);
      EXPECT_LE(r.p10_hours, run->wall_hours) << rate << " " << hours;
      EXPECT_GE(r.p90_hours, run->wall_hours) << rate << " " << hours;
      EXPECT_GE(r.p90_hours, 1.3 * hours) << "the P90 work is done on spot too";
    }
  }
  p.interruption_rate_per_hour = 0.5;
  auto long_run = SpotRun(100, 4, p);
  ASSERT_TRUE(long_run.ok() && long_run->viable);
  WallRange same_work = SpotWallRange(100, 100, 4, p, *long_run);
  EXPECT_GT(same_work.p90_hours, same_work.p10_hours) << "interruptions alone spread the time";
}

}  // namespace
}  // namespace gpuplan::model
