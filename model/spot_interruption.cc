#include "model/spot_interruption.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::model {

double HourlyHazardOfMonthlyFraction(double fraction) {
  double p = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, kOpenBandUpperFraction);
  return -std::log1p(-p) / kHoursPerMonth;
}

InterruptionRate RateOfMonthlyBand(double low_fraction, std::optional<double> high_fraction) {
  const double high = high_fraction.value_or(kOpenBandUpperFraction);
  return {HourlyHazardOfMonthlyFraction((low_fraction + high) / 2),
          HourlyHazardOfMonthlyFraction(low_fraction), HourlyHazardOfMonthlyFraction(high)};
}

}  // namespace gpuplan::model
