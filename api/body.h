// Reading a JSON request body with a size limit: 413 above the limit, 400 for malformed
// JSON or a body that is not a JSON object, problem+json in both cases.
#pragma once

#include <optional>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace gpuplan::api {

inline constexpr size_t kDefaultBodyLimit = 1 << 20;  // 1 MiB
inline constexpr size_t kBatchBodyLimit = 8 << 20;    // 8 MiB for :batch

// The parsed object, or nullopt after writing the problem answer to `res`.
std::optional<nlohmann::json> ReadJsonBody(const httplib::Request& req, httplib::Response& res,
                                           size_t limit = kDefaultBodyLimit);

}  // namespace gpuplan::api
