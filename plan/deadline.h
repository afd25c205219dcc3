// A per-request work deadline. The server sets it when a request is admitted; loops whose
// work grows with the request (recommendation candidates, batch scenarios) call
// CheckDeadline(), which throws DeadlineExceeded once it has passed. The HTTP layer (server/app.cc)
// answers that with 503 and Retry-After. Thread-local: one request per thread.
#pragma once

#include <chrono>
#include <stdexcept>

namespace gpuplan::plan {

class DeadlineExceeded : public std::runtime_error {
 public:
  DeadlineExceeded() : std::runtime_error("the request needed more work than one request may do") {}
};

// Starts the clock for the request on this thread; zero or negative means no deadline.
void SetRequestDeadline(std::chrono::milliseconds budget);
// Throws DeadlineExceeded when this thread's request is past its deadline.
void CheckDeadline();

}  // namespace gpuplan::plan
