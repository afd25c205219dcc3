// Answers counted by kind and status in the load tests (kind -> status -> count, 0 = no
// answer), and the check they share: print one line per kind, fail on any status outside
// 2xx. Header-only; not thread-safe (call after the counting threads have joined).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

namespace gpuplan::testing {

using StatusCounts = std::map<std::string, std::map<int, int>>;

inline void ExpectOnlySuccess(const StatusCounts& statuses) {
  for (const auto& [kind, by_status] : statuses) {
    std::string line = kind + ":";
    for (const auto& [status, count] : by_status) {
      line += " " + std::to_string(status) + "x" + std::to_string(count);
      EXPECT_TRUE(status >= 200 && status < 300) << kind << " answered " << status << " "
                                                 << count << " times";
    }
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace gpuplan::testing
