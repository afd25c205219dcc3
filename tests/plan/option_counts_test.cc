// OptionCounts: what a recommendation walk counts per block, added up and written into the
// answer's `considered` and `rejected` once; the reasons it shares with plan::Infeasible
// have the same names in both (the answer's `rejected.does_not_fit` is an option's
// `does_not_fit`).
#include <gtest/gtest.h>

#include "plan/feasibility.h"
#include "plan/recommend_walk.h"

namespace gpuplan::plan {
namespace {

TEST(OptionCountsTest, AddUpAndWriteOnlyWhatWasCounted) {
  OptionCounts a, b;
  a.considered = 5;
  a.Reject(Rejection::kNoPrice);
  a.Reject(Rejection::kNoPrice);
  b.considered = 3;
  b.Reject(Rejection::kOverMaxGpus);
  a += b;
  Recommendation out;
  out.considered = 1;
  out.rejected = RejectedAtZero({Rejection::kDoesNotFit, Rejection::kNoPrice});
  a.AddTo(out);
  EXPECT_EQ(out.considered, 9);
  const std::map<std::string, int> want = {
      {"does_not_fit", 0}, {"no_price", 2}, {"over_max_gpus", 1}};
  EXPECT_EQ(out.rejected, want);
}

TEST(OptionCountsTest, ReasonsSharedWithInfeasibleHaveItsNames) {
  const std::pair<Rejection, Infeasible> shared[] = {
      {Rejection::kDoesNotFit, Infeasible::kDoesNotFit},
      {Rejection::kNoPrice, Infeasible::kNoPrice},
      {Rejection::kOverDeadline, Infeasible::kOverDeadline},
      {Rejection::kOverBudget, Infeasible::kOverBudget},
      {Rejection::kSloNotMet, Infeasible::kSloNotMet},
      {Rejection::kDoubtfulPrice, Infeasible::kDoubtfulPrice},
  };
  for (const auto& [rejection, infeasible] : shared) {
    EXPECT_EQ(model::EnumName(kRejectionNames, rejection), InfeasibleName(infeasible));
  }
  // Every reason has its own name.
  for (size_t i = 0; i < kRejectionNames.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(kRejectionNames[i].second), i);
    for (size_t j = 0; j < i; ++j) EXPECT_NE(kRejectionNames[i].first, kRejectionNames[j].first);
  }
}

}  // namespace
}  // namespace gpuplan::plan
