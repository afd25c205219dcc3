// How the service's log lines look: "text" (spdlog's default pattern) or "json", one JSON
// object a line: {"ts": UTC time, "level": ..., "msg": ...}, where msg is the message as a
// JSON string, or, for the access log (already a JSON object), that object.
#pragma once

#include <string>

namespace gpuplan::server {

// Sets the default logger's format. `format` is "text" or "json" (others: text).
void UseLogFormat(const std::string& format);

}  // namespace gpuplan::server
