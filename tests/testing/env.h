// Test settings from the environment. Header-only; thread-safe (reads only).
#pragma once

#include <cstdlib>

namespace gpuplan::testing {

// The positive integer in environment variable `name` (a test's duration in seconds, e.g.
// GPUPLAN_LOAD_SECONDS under the slower sanitizer build), else `fallback`.
inline int EnvSeconds(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

}  // namespace gpuplan::testing
