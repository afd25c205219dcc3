// Reading a price observation from a statement whose first nine columns are cloud,
// instance_type, region, zone, kind, price_per_hour, currency, observed_at, source.
#pragma once

#include "db/catalog_types.h"
#include "db/sql.h"

namespace gpuplan::db {

inline constexpr const char* kPriceColumns =
    "cloud, instance_type, region, zone, kind, price_per_hour, currency, observed_at, source";

inline PriceObservation ReadPriceRow(Statement& s) {
  return {s.getColumn(0).getString(), s.getColumn(1).getString(), s.getColumn(2).getString(),
          s.getColumn(3).getString(), s.getColumn(4).getString(), s.getColumn(5).getDouble(),
          s.getColumn(6).getString(), s.getColumn(7).getString(), s.getColumn(8).getString()};
}

}  // namespace gpuplan::db
