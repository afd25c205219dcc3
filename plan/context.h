// What every planning question reads: the catalog, prices in the request's currency and
// hardware resolution. One PlanContext per request, used on one thread; it does not own the
// catalog (which must outlive it) and cannot be copied (the resolver quotes with the
// context's own Pricing).
#pragma once

#include <ctime>

#include "db/catalog_reader.h"
#include "plan/hardware.h"
#include "plan/pricing.h"

namespace gpuplan::plan {

struct PlanContext {
  // `now`: the request's clock, for the age of prices (plan/price_quality.h).
  PlanContext(db::CatalogReader& reader, std::time_t now)
      : catalog(reader), pricing(reader, now), hardware(reader, pricing) {}
  PlanContext(const PlanContext&) = delete;
  PlanContext& operator=(const PlanContext&) = delete;

  db::CatalogReader& catalog;
  Pricing pricing;
  HardwareResolver hardware;
};

}  // namespace gpuplan::plan
