#include "plan/spot_risk.h"

#include <fmt/format.h>

#include "plan/training_cost.h"

namespace gpuplan::plan {

SpotRisk SpotRiskOf(const db::Offer* offer, const PricingRequest& pricing) {
  SpotRisk risk;
  const double asked = pricing.spot_params.interruption_rate_per_hour;
  risk.rate = {asked, asked, asked};
  if (pricing.rate_given) {
    risk.source = SpotRisk::Source::kRequest;
    return risk;
  }
  if (offer && offer->spot_band) {
    const db::SpotBand& band = *offer->spot_band;
    risk.source = SpotRisk::Source::kBand;
    risk.band = &band;
    risk.rate = model::RateOfMonthlyBand(band.low_fraction, band.high_fraction);
  }
  return risk;
}

std::string SpotRiskAssumption(const SpotRisk& risk) {
  switch (risk.source) {
    case SpotRisk::Source::kRequest:
      return "";
    case SpotRisk::Source::kDefault: {
      model::SpotParams params;
      params.interruption_rate_per_hour = risk.rate.per_hour;
      return DefaultRateAssumption(params);
    }
    case SpotRisk::Source::kBand:
      break;
  }
  const db::SpotBand& b = *risk.band;
  return fmt::format(
      "spot interruption rate {:.3g} per node-hour (range {:.3g} to {:.3g}) from the AWS Spot "
      "Instance Advisor band {} of {} {} {} (data of {}): the band's monthly fraction of "
      "instances interrupted, at its midpoint, as a constant hazard -ln(1 - p) / 730 h{}; the "
      "range feeds the P10 / P90 of the spot time and cost (docs/model.md)",
      risk.rate.per_hour, risk.rate.low_per_hour, risk.rate.high_per_hour, b.label, b.cloud,
      b.region, b.instance_type, b.observed_at.substr(0, 10),
      b.high_fraction ? "" : " (the open band is taken up to 63.2%: one interruption per node "
                             "per month)");
}

std::string SpotRiskInWords(const SpotRisk& risk) {
  std::string source = risk.source == SpotRisk::Source::kBand
                           ? "AWS Spot Advisor band " + risk.band->label
                           : SpotRiskSourceName(risk.source);
  return fmt::format("interruption rate {:.3g}/node-h ({})", risk.rate.per_hour, source);
}

const char* SpotRiskSourceName(SpotRisk::Source source) {
  switch (source) {
    case SpotRisk::Source::kRequest:
      return "request";
    case SpotRisk::Source::kBand:
      return "aws-spot-advisor";
    case SpotRisk::Source::kDefault:
      break;
  }
  return "default";
}

}  // namespace gpuplan::plan
