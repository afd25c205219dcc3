#include "api/json_limits.h"

#include <algorithm>

namespace gpuplan::api {

namespace {

struct LimitReached {
  std::string reason;
};

}  // namespace

JsonLimits LimitsForBody(size_t body_limit) {
  JsonLimits limits;
  limits.max_values = std::max<size_t>(4096, body_limit / 16);
  return limits;
}

ParsedJson ParseBoundedJson(std::string_view text, const JsonLimits& limits) {
  size_t values = 0;
  auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    using Event = nlohmann::json::parse_event_t;
    if (static_cast<size_t>(depth) > limits.max_depth) {
      throw LimitReached{"JSON is nested deeper than " + std::to_string(limits.max_depth) +
                         " levels"};
    }
    if (event == Event::value || event == Event::object_start || event == Event::array_start) {
      if (++values > limits.max_values) {
        throw LimitReached{"JSON holds more than " + std::to_string(limits.max_values) +
                           " values"};
      }
    }
    return true;
  };
  ParsedJson out;
  try {
    nlohmann::json doc = nlohmann::json::parse(text, callback, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      out.error = "request body is not valid JSON";
    } else {
      out.value = std::move(doc);
    }
  } catch (const LimitReached& limit) {
    out.error = limit.reason;
  } catch (const nlohmann::json::exception&) {
    out.error = "request body is not valid JSON";
  }
  return out;
}

}  // namespace gpuplan::api
