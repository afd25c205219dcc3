// A per-request work deadline. The server sets it when a request is admitted, and the
// route handler restarts it once the body has been read (api/route_table.cc). Loops whose
// work grows with the request call one of two checks:
//  - PlanningTimeUp(), in loops that can answer with what they have (the recommendation
//    planner walking the catalog's offers): true once the request has used
//    kPlanningShare of its budget, so the loop stops and the partial answer, which says
//    so, is ranked and rendered in the time left;
//  - CheckDeadline(), in loops whose answer is all or nothing (batch scenarios): throws
//    DeadlineExceeded once the deadline has passed; the HTTP layer (api/middleware.cc) answers
//    that with 503 and Retry-After.
// Thread-local: one request per thread.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>

namespace gpuplan::plan {

class DeadlineExceeded : public std::runtime_error {
 public:
  DeadlineExceeded() : std::runtime_error("the request needed more work than one request may do") {}
};

// The part of a request's budget a planning loop may spend before it stops early; the rest
// is left for ranking and rendering what it found.
inline constexpr double kPlanningShare = 0.5;

// Starts the clock for the request on this thread; zero or negative means no deadline.
void SetRequestDeadline(std::chrono::milliseconds budget);
// Starts this thread's clock again with the budget it was set with (nothing without a
// deadline): the handler's work begins once the body is read, and a slow upload must not
// spend the planning budget.
void RestartRequestDeadline();
// Throws DeadlineExceeded when this thread's request is past its deadline.
void CheckDeadline();
// True when this thread's request has used kPlanningShare of its budget (never without a
// deadline).
bool PlanningTimeUp();
// The time at which this thread's request has used kPlanningShare of its budget (none
// without a deadline): for work the request hands to other threads (plan/worker_pool.h),
// which have no clock of their own.
std::optional<std::chrono::steady_clock::time_point> PlanningDeadline();
// Whether `deadline` (none: never) has passed; any thread.
bool Past(const std::optional<std::chrono::steady_clock::time_point>& deadline);

}  // namespace gpuplan::plan
