// For tests that compare two recommendations: one line of text per recommended option, and
// the expectation that two answers count and rank the same options.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "model/price_kind.h"
#include "plan/recommendation.h"

namespace gpuplan::plan::testing {

// Two lists describe alike only when their options are alike, in order: where, what, how
// many nodes, which price kind, cost, times and reason (each double in full: fmt writes the
// shortest text that reads back the same double).
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

// `got` counts what `want` counts (considered, feasible, each rejection) and ranks the same
// items and Pareto front, in the same order.
inline void ExpectSameAnswer(const Recommendation& got, const Recommendation& want) {
  EXPECT_EQ(got.considered, want.considered);
  EXPECT_EQ(got.feasible, want.feasible);
  EXPECT_EQ(got.rejected, want.rejected);
  EXPECT_EQ(Describe(got.items), Describe(want.items));
  EXPECT_EQ(Describe(got.pareto_front), Describe(want.pareto_front));
}

}  // namespace gpuplan::plan::testing
