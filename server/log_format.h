// How the service's log lines look: "text" (spdlog's default pattern) or "json", one JSON
// object a line: {"ts": UTC time, "level": ..., "msg": ...}, where msg is the message as a
// JSON string, or, for the access log (AccessLog(), whose messages are JSON objects in json
// mode), that object.
#pragma once

#include <string>

#include <spdlog/logger.h>

namespace gpuplan::server {

// Sets the default logger's format. `format` is "text" or "json" (others: text).
void UseLogFormat(const std::string& format);

// The logger of the one line per request: the default logger's sinks and format, under the
// name "access" (made on first use, after UseLogFormat).
spdlog::logger& AccessLog();

}  // namespace gpuplan::server
