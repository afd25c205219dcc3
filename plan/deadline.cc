#include "plan/deadline.h"

#include <optional>

namespace gpuplan::plan {

namespace {
thread_local std::optional<std::chrono::steady_clock::time_point> deadline;
}  // namespace

void SetRequestDeadline(std::chrono::milliseconds budget) {
  if (budget.count() <= 0) {
    deadline.reset();
  } else {
    deadline = std::chrono::steady_clock::now() + budget;
  }
}

void CheckDeadline() {
  if (deadline && std::chrono::steady_clock::now() > *deadline) throw DeadlineExceeded();
}

}  // namespace gpuplan::plan
