// Parsing a request's JSON with bounded memory: at most `max_depth` levels of nesting and
// `max_values` values in all, so a body of many tiny values ("[{},{},...]", which costs
// ~80 bytes of heap per 3 bytes of text) cannot turn a few MiB into hundreds of MiB.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpuplan::api {

struct JsonLimits {
  size_t max_depth = 64;
  size_t max_values = 65536;
};

// The limits for a body of at most `body_limit` bytes: one value per 16 bytes, at least 4096.
JsonLimits LimitsForBody(size_t body_limit);

struct ParsedJson {
  std::optional<nlohmann::json> value;  // set when the text parsed within the limits
  std::string error;                    // otherwise why not ("not valid JSON", ...)
};

// Never throws for any input text (bad_alloc aside).
ParsedJson ParseBoundedJson(std::string_view text, const JsonLimits& limits);

}  // namespace gpuplan::api
