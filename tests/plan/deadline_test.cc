// The per-request work clock (plan/deadline.h): the planning share, the hard deadline, and
// the restart once the body is read.
#include "plan/deadline.h"

#include <gtest/gtest.h>

#include <thread>

namespace gpuplan::plan {
namespace {

using std::chrono::milliseconds;

TEST(DeadlineTest, PlanningTimeIsUpAtItsShareAndTheDeadlineThrowsAfter) {
  SetRequestDeadline(milliseconds(200));
  EXPECT_FALSE(PlanningTimeUp());
  EXPECT_NO_THROW(CheckDeadline());
  std::this_thread::sleep_for(milliseconds(120));  // past 0.5 x 200 ms
  EXPECT_TRUE(PlanningTimeUp());
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_THROW(CheckDeadline(), DeadlineExceeded);
  SetRequestDeadline(milliseconds(0));  // no deadline
  EXPECT_FALSE(PlanningTimeUp());
  EXPECT_NO_THROW(CheckDeadline());
}

// A slow upload spends the clock set at admission; the handler starts it again.
TEST(DeadlineTest, ARestartGivesTheWholeBudgetAgain) {
  SetRequestDeadline(milliseconds(200));
  std::this_thread::sleep_for(milliseconds(120));
  ASSERT_TRUE(PlanningTimeUp());
  RestartRequestDeadline();
  EXPECT_FALSE(PlanningTimeUp());
  EXPECT_NO_THROW(CheckDeadline());
  SetRequestDeadline(milliseconds(0));
  RestartRequestDeadline();  // still none
  EXPECT_FALSE(PlanningTimeUp());
}

}  // namespace
}  // namespace gpuplan::plan
