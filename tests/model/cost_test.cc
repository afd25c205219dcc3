#include "model/cost.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuplan::model {
namespace {

TEST(CostTest, YoungIntervalIsSqrtTwoDeltaM) {
  EXPECT_DOUBLE_EQ(YoungInterval(2.0, 120.0), std::sqrt(2.0 * 2.0 * 120.0));
  // Daly's higher-order optimum is close to Young's for small delta/M.
  EXPECT_NEAR(DalyInterval(0.5, 1000) / YoungInterval(0.5, 1000), 1.0, 0.02);
  EXPECT_DOUBLE_EQ(DalyInterval(300, 100), 100);  // delta >= 2M
}

TEST(CostTest, OnDemandIsPriceTimesNodesTimesHours) {
  auto cost = JobCost(10, 2, 32.77, std::nullopt, SpotParams{});
  ASSERT_TRUE(cost.ok());
  EXPECT_DOUBLE_EQ(cost->ondemand_total, 32.77 * 2 * 10);
  EXPECT_FALSE(cost->spot_expected_total.has_value());
}

TEST(CostTest, SpotAtALargeDiscountCostsLessEvenWithInterruptions) {
  SpotParams p;
  p.interruption_rate_per_hour = 0.5;  // the pessimistic V100 trace: MTBF 2 h
  p.checkpoint_write_minutes = 2;
  p.restart_minutes = 15;
  auto cost = JobCost(72, 1, 10.0, 3.0, p);
  ASSERT_TRUE(cost.ok());
  ASSERT_TRUE(cost->spot_expected_total.has_value());
  EXPECT_LT(*cost->spot_expected_total, cost->ondemand_total);
  EXPECT_GT(cost->spot.billable_hours, 72);
  EXPECT_GT(cost->spot.wall_hours, cost->spot.billable_hours);  // capacity waits are unbilled
  EXPECT_GT(cost->spot.expected_interruptions, 10);
  // MODEL.md's worked example: delta 2 min, M 2 h -> tau* about 22 min and a first-order
  // overhead of delta/tau + (tau/2 + delta + R)/M ~ 31%. Re-executed work is itself
  // interrupted, so the exact expectation is somewhat higher than the first-order sum.
  double tau_h = cost->spot.checkpoint_interval_minutes / 60;
  EXPECT_NEAR(cost->spot.checkpoint_interval_minutes, 22, 2);
  double first_order = (2.0 / 60) / tau_h + (tau_h / 2 + 2.0 / 60 + 0.25) / 2;
  EXPECT_NEAR(first_order, 0.31, 0.03);
  EXPECT_GE(cost->spot.overhead_fraction, first_order);
  EXPECT_LE(cost->spot.overhead_fraction, first_order * 1.5);
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
  EXPECT_EQ(negative.error().fields.at(0).field, "pricing.preemption_notice_minutes");
}

TEST(CostTest, HopelessSpotIsNotViable) {
  SpotParams p;
  p.interruption_rate_per_hour = 20;
  p.restart_minutes = 10;
  auto cost = JobCost(10, 1, 10, 3, p);
  ASSERT_TRUE(cost.ok());
  EXPECT_FALSE(cost->spot.viable);
  EXPECT_FALSE(cost->spot_expected_total.has_value());
}

TEST(CostTest, NegativeInputsNameTheField) {
  SpotParams p;
  p.interruption_rate_per_hour = -1;
  auto run = SpotRun(1, 1, p);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().fields.at(0).field, "pricing.interruption_rate_per_hour");
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
