#include "model/spot_interruption.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/cost.h"

namespace gpuplan::model {
namespace {

TEST(SpotInterruptionTest, MonthlyFractionIsAConstantHazard) {
  // A month at the hazard leaves the fraction's complement uninterrupted.
  for (double p : {0.0, 0.025, 0.05, 0.125, 0.2, 0.5}) {
    double lambda = HourlyHazardOfMonthlyFraction(p);
    EXPECT_NEAR(1 - std::exp(-lambda * kHoursPerMonth), p, 1e-12) << p;
  }
  EXPECT_NEAR(HourlyHazardOfMonthlyFraction(kOpenBandUpperFraction), 1 / kHoursPerMonth, 1e-15);
  // Out-of-range data is clamped, never infinite or negative.
  EXPECT_EQ(HourlyHazardOfMonthlyFraction(-1), 0);
  EXPECT_NEAR(HourlyHazardOfMonthlyFraction(1), 1 / kHoursPerMonth, 1e-15);
}

TEST(SpotInterruptionTest, BandsGiveTheirMidpointAndEdges) {
  struct Case {
    double low;
    std::optional<double> high;
    double rate;  // -ln(1 - midpoint) / 730
  };
  for (const Case& c : {Case{0, 0.05, 3.46819e-05}, Case{0.10, 0.15, 1.829197e-04},
                        Case{0.20, std::nullopt, 7.369281e-04}}) {
    InterruptionRate r = RateOfMonthlyBand(c.low, c.high);
    EXPECT_NEAR(r.per_hour, c.rate, c.rate * 1e-5);
    EXPECT_NEAR(r.low_per_hour, HourlyHazardOfMonthlyFraction(c.low), 1e-15);
    EXPECT_NEAR(r.high_per_hour,
                HourlyHazardOfMonthlyFraction(c.high.value_or(kOpenBandUpperFraction)), 1e-15);
    EXPECT_LE(r.low_per_hour, r.per_hour);
    EXPECT_LE(r.per_hour, r.high_per_hour);
  }
  // Higher bands, higher rates.
  EXPECT_LT(RateOfMonthlyBand(0, 0.05).per_hour, RateOfMonthlyBand(0.05, 0.10).per_hour);
  EXPECT_LT(RateOfMonthlyBand(0.15, 0.20).per_hour, RateOfMonthlyBand(0.20, std::nullopt).per_hour);
}

TEST(SpotInterruptionTest, TheRatesRangeWidensTheSpotRange) {
  SpotParams p;
  p.interruption_rate_per_hour = 0.02;
  p.checkpoint_write_minutes = 2;
  auto expected = SpotRun(500, 8, p);
  ASSERT_TRUE(expected.ok());
  WallRange fixed = SpotWallRange(450, 560, 8, p, *expected);
  SpotRange banded = SpotRangeOverRates(500, 450, 560, 8, p, *expected, 0.005, 0.05);
  EXPECT_LE(banded.p10_wall_hours, fixed.p10_hours);
  EXPECT_GT(banded.p90_wall_hours, fixed.p90_hours);
  EXPECT_LT(banded.p10_billable_hours, expected->billable_hours);
  EXPECT_GT(banded.p90_billable_hours, expected->billable_hours);
  EXPECT_LE(banded.p10_wall_hours, expected->wall_hours);
  EXPECT_GE(banded.p90_wall_hours, expected->wall_hours);
  // A range of one rate is SpotWallRange's.
  SpotRange point = SpotRangeOverRates(500, 450, 560, 8, p, *expected, 0.02, 0.02);
  EXPECT_NEAR(point.p10_wall_hours, fixed.p10_hours, 1e-9);
  EXPECT_NEAR(point.p90_wall_hours, fixed.p90_hours, 1e-9);
  // A high edge at which the job never finishes: an infinite P90, never a finite guess.
  SpotRange hopeless = SpotRangeOverRates(500, 450, 560, 8, p, *expected, 0.005, 50);
  EXPECT_TRUE(std::isinf(hopeless.p90_wall_hours));
  EXPECT_TRUE(std::isinf(hopeless.p90_billable_hours));
}

}  // namespace
}  // namespace gpuplan::model
