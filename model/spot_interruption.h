// Spot interruption rates from a published monthly interruption frequency, such as the
// bands of the AWS Spot Instance Advisor ("<5%", "5-10%", ... ">20%" of a type's spot
// capacity reclaimed in the trailing month). Pure and deterministic; thread-safe.
//
// The conversion (docs/model.md, "Spot interruption rates"): a band says that a fraction p
// of the instances running through a month is interrupted in it. With a constant hazard
// lambda per node-hour (interruptions a Poisson process, as model/cost.h assumes), the
// chance that a node runs a month of kHoursPerMonth hours uninterrupted is
// exp(-lambda * kHoursPerMonth) = 1 - p, so lambda = -ln(1 - p) / kHoursPerMonth.
// A band [low, high] gives the rate at its midpoint fraction as the value, and the rates at
// its edges as the range that the P10 / P90 of a spot cost use.
#pragma once

#include <optional>

namespace gpuplan::model {

// Hours in a month of a service that runs around the clock (365 x 24 / 12).
inline constexpr double kHoursPerMonth = 730;

// The upper edge taken for an open band (">20%"): 1 - 1/e = 0.632, the fraction at which the
// hazard is one interruption per node per month (1/730 per hour). Past it a monthly fraction
// says little (every node would be interrupted about once a month or more), and it bounds the
// band at about 4.5 times the hazard of its lower edge: pessimistic without being unbounded.
inline constexpr double kOpenBandUpperFraction = 0.63212055882855767;

// The hourly hazard per node of a monthly interrupted fraction `fraction` in [0, 1):
// -ln(1 - fraction) / kHoursPerMonth. A fraction outside [0, 1) is clamped into
// [0, kOpenBandUpperFraction] (callers validate their data first).
double HourlyHazardOfMonthlyFraction(double fraction);

// A rate per node-hour and the range it is known within.
struct InterruptionRate {
  double per_hour = 0;       // the band's midpoint fraction, as a hazard
  double low_per_hour = 0;   // the band's lower edge
  double high_per_hour = 0;  // the band's upper edge (kOpenBandUpperFraction when open)
};

// The rate of a band of monthly fractions [low_fraction, high_fraction] (nullopt: open,
// taken as kOpenBandUpperFraction). Preconditions: 0 <= low <= high < 1.
InterruptionRate RateOfMonthlyBand(double low_fraction, std::optional<double> high_fraction);

}  // namespace gpuplan::model
