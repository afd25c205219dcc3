#include "plan/measured_runs.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpuplan::plan {
namespace {

using model::Family;

std::vector<long long> Ids(const RunSelection& s) {
  std::vector<long long> ids;
  for (const PredictedRun& r : s.runs) ids.push_back(r.id);
  return ids;
}

// Runs 1-6 on L4 (cnn): 1, 2, 5 shared by nobody's key (CLI); 3 key 7 private; 4 key 7
// shared; 6 key 8 private. Run 9 has neither owner nor share: nobody sees it.
MeasuredRunIndex Index() {
  MeasuredRunIndex index;
  auto add = [&](long long id, std::optional<long long> owner, bool shared) {
    index.Add(Family::kCnn, "L4", PredictedRun{id, owner, shared, 0.9});
  };
  add(1, std::nullopt, true);
  add(2, std::nullopt, true);
  add(3, 7, false);
  add(4, 7, true);
  add(5, std::nullopt, true);
  add(6, 8, false);
  add(9, std::nullopt, false);
  return index;
}

TEST(MeasuredRunIndexTest, AKeySeesItsOwnAndSharedRunsAnonymousSharedOnly) {
  MeasuredRunIndex index = Index();
  EXPECT_EQ(Ids(index.Select(7, Family::kCnn, "L4", 100)), (std::vector<long long>{1, 2, 3, 4, 5}));
  EXPECT_EQ(index.Select(7, Family::kCnn, "L4", 100).available, 5u);
  EXPECT_EQ(Ids(index.Select(8, Family::kCnn, "L4", 100)), (std::vector<long long>{1, 2, 4, 5, 6}));
  EXPECT_EQ(Ids(index.Select(std::nullopt, Family::kCnn, "L4", 100)),
            (std::vector<long long>{1, 2, 4, 5}));
  EXPECT_EQ(index.Select(std::nullopt, Family::kCnn, "L4", 100).available, 4u);
  EXPECT_TRUE(index.Select(7, Family::kCnn, "T4", 100).runs.empty());
  EXPECT_TRUE(index.Select(7, Family::kEncoder, "L4", 100).runs.empty());
  EXPECT_EQ(index.covered_id(), 9);
}

TEST(MeasuredRunIndexTest, TheCapKeepsTheCallersOwnRunsThenTheNewestShared) {
  MeasuredRunIndex index = Index();
  // Key 7: its own 3 and 4 first, then the newest other shared run, 5.
  RunSelection seven = index.Select(7, Family::kCnn, "L4", 3);
  EXPECT_EQ(Ids(seven), (std::vector<long long>{3, 4, 5}));
  EXPECT_EQ(seven.available, 5u);
  // Key 8: its own 6, then the newest shared 5 and 4.
  EXPECT_EQ(Ids(index.Select(8, Family::kCnn, "L4", 3)), (std::vector<long long>{4, 5, 6}));
  EXPECT_EQ(Ids(index.Select(std::nullopt, Family::kCnn, "L4", 2)), (std::vector<long long>{4, 5}));
}

}  // namespace
}  // namespace gpuplan::plan
