#include "server/log_format.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "api/json_encode.h"

namespace gpuplan::server {

namespace {

constexpr std::string_view kAccessLogger = "access";

// %* : the message as a JSON value (an object as is, anything else as a string).
class JsonMessage : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view text(msg.payload.data(), msg.payload.size());
    std::string out = msg.logger_name == kAccessLogger
                          ? std::string(text)  // already a JSON object (api/middleware.cc)
                          : api::EncodeJson(nlohmann::json(std::string(text)));
    dest.append(out.data(), out.data() + out.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return spdlog::details::make_unique<JsonMessage>();
  }
};

}  // namespace

void UseLogFormat(const std::string& format) {
  if (format != "json") return;
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<JsonMessage>('*').set_pattern(
      R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l","msg":%*})");
  spdlog::set_formatter(std::move(formatter));
}

spdlog::logger& AccessLog() {
  static const std::shared_ptr<spdlog::logger> log =
      spdlog::default_logger()->clone(std::string(kAccessLogger));
  return *log;
}

}  // namespace gpuplan::server
