// The one way an answer body is encoded: nlohmann's dump with invalid UTF-8 replaced by
// U+FFFD instead of a type_error 316, so no string that slipped into an answer (a path, a
// value stored before validation existed) can make encoding throw. Never throws: on any
// other failure (bad_alloc) it returns a fixed problem body.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuplan::api {

inline std::string EncodeJson(const nlohmann::json& value) noexcept {
  try {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (...) {
    try {
      return R"({"type":"about:blank","title":"Internal Server Error","status":500,)"
             R"("detail":"the answer could not be encoded"})";
    } catch (...) {
      return std::string();
    }
  }
}

}  // namespace gpuplan::api
