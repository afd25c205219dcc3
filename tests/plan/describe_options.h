// One line of text per recommended option, for tests that compare two recommendations'
// ranked items or Pareto fronts: two lists describe alike only when their options are alike,
// in order (where, what, how many nodes, which price kind, cost, times and reason; each double
// in full: fmt writes the shortest text that reads back the same double).
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/price_kind.h"
#include "plan/recommendation.h"

namespace gpuplan::plan::testing {

inline std::vector<std::string> Describe(const std::vector<RecommendedOption>& options) {
  std::vector<std::string> out;
  out.reserve(options.size());
  for (const RecommendedOption& o : options) {
    out.push_back(fmt::format("{}/{}/{} x{} {} cost {} hours {} p90 {} why '{}'",
                              o.offer.instance.cloud, o.offer.region, o.offer.instance.id, o.nodes,
                              model::PriceKindName(o.price_kind), o.cost, o.hours, o.p90_hours,
                              o.why));
  }
  return out;
}

}  // namespace gpuplan::plan::testing
