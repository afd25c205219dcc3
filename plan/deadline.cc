#include "plan/deadline.h"

#include <optional>

namespace gpuplan::plan {

namespace {

struct Clock {
  std::chrono::milliseconds budget;
  std::chrono::steady_clock::time_point planning_until;
  std::chrono::steady_clock::time_point deadline;
};
thread_local std::optional<Clock> request_clock;

}  // namespace

void SetRequestDeadline(std::chrono::milliseconds budget) {
  if (budget.count() <= 0) {
    request_clock.reset();
    return;
  }
  auto now = std::chrono::steady_clock::now();
  auto planning = std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget * kPlanningShare);
  request_clock = Clock{budget, now + planning, now + budget};
}

void RestartRequestDeadline() {
  if (request_clock) SetRequestDeadline(request_clock->budget);
}

void CheckDeadline() {
  if (request_clock && std::chrono::steady_clock::now() > request_clock->deadline) throw DeadlineExceeded();
}

bool PlanningTimeUp() { return Past(PlanningDeadline()); }

std::optional<std::chrono::steady_clock::time_point> PlanningDeadline() {
  if (!request_clock) return std::nullopt;
  return request_clock->planning_until;
}

bool Past(const std::optional<std::chrono::steady_clock::time_point>& deadline) {
  return deadline && std::chrono::steady_clock::now() > *deadline;
}

}  // namespace gpuplan::plan
