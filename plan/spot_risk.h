// The interruption rate a spot cost uses for one offer, and where it comes from: the
// request's own rate when it gives one; else the offer's AWS Spot Instance Advisor band
// (db::SpotBand, converted by model/spot_interruption.h: the band's midpoint as the rate, its
// edges as the range that the P10 / P90 of a spot cost use); else the default of
// model::SpotParams (0.1 per node-hour), the same for every cloud (docs/model.md).
// Pure functions of their arguments; thread-safe.
#pragma once

#include <string>

#include "db/catalog_types.h"
#include "model/spot_interruption.h"
#include "plan/requests.h"

namespace gpuplan::plan {

struct SpotRisk {
  enum class Source { kRequest, kBand, kDefault };
  Source source = Source::kDefault;
  model::InterruptionRate rate;  // per node-hour; low = high = per_hour unless from a band
  // The band (Source::kBand): the offer's own, valid while the offer (or a copy) is.
  const db::SpotBand* band = nullptr;
  bool has_range() const { return rate.low_per_hour < rate.high_per_hour; }
};

// The risk of `offer` (null: explicit hardware, no band) under `pricing`.
SpotRisk SpotRiskOf(const db::Offer* offer, const PricingRequest& pricing);

// The assumption an answer names about the rate: "spot interruption rate 0.000183 per
// node-hour (range 0.000144 to 0.000223) from the AWS Spot Instance Advisor band 10-15% of
// aws us-east-1 p4d.24xlarge (data of 2025-06-28): ...", or the default's (and "" for the
// request's own rate, which needs no assumption).
std::string SpotRiskAssumption(const SpotRisk& risk);

// The rate and its source in a few words, for an option's `why`: "interruption rate
// 0.000183/node-h (AWS Spot Advisor band 10-15%)", "... (default)", "... (request)".
std::string SpotRiskInWords(const SpotRisk& risk);

// Short words for the source, as answers name it: "request", "aws-spot-advisor", "default".
const char* SpotRiskSourceName(SpotRisk::Source source);

}  // namespace gpuplan::plan
