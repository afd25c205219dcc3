// Reading a JSON request body with a size limit: 413 above the limit, 400 for malformed
// JSON, JSON over the nesting/value limits of api/json_limits.h, or a body that is not a
// JSON object; problem+json in each case.
#pragma once

#include <optional>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "api/request_admission.h"

namespace gpuplan::api {


// The parsed object, or nullopt after writing the problem answer to `res`.
std::optional<nlohmann::json> ReadJsonBody(const httplib::Request& req, httplib::Response& res,
                                           size_t limit = kDefaultBodyLimit);

}  // namespace gpuplan::api
