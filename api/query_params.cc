#include "api/query_params.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace gpuplan::api {

std::string PercentEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char ch : value) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += kHex[ch >> 4];
      out += kHex[ch & 15];
    }
  }
  return out;
}

QueryParams::QueryParams(const std::multimap<std::string, std::string>& params,
                         std::initializer_list<std::string_view> allowed)
    : params_(params) {
  for (auto it = params.begin(); it != params.end(); it = params.upper_bound(it->first)) {
    const std::string& name = it->first;
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      Fail(name, "unknown query parameter '" + name + "'");
    } else if (params.count(name) > 1) {
      Fail(name, "query parameter '" + name + "' is given more than once");
    }
  }
}

std::optional<std::string> QueryParams::Raw(const std::string& name) {
  auto it = params_.find(name);
  if (it == params_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::string QueryParams::String(const std::string& name, const std::string& fallback) {
  return Raw(name).value_or(fallback);
}

std::optional<long long> QueryParams::Integer(const std::string& name, long long min,
                                              long long max) {
  auto raw = Raw(name);
  if (!raw) return std::nullopt;
  long long value = 0;
  auto [ptr, ec] = std::from_chars(raw->data(), raw->data() + raw->size(), value);
  if (ec != std::errc() || ptr != raw->data() + raw->size() || value < min || value > max) {
    Fail(name, name + " must be an integer from " + std::to_string(min) + " to " +
                   std::to_string(max) + ", got '" + *raw + "'");
    return std::nullopt;
  }
  return value;
}

std::optional<double> QueryParams::Number(const std::string& name, double min) {
  auto raw = Raw(name);
  if (!raw) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(raw->data(), raw->data() + raw->size(), value);
  if (ec != std::errc() || ptr != raw->data() + raw->size() || !std::isfinite(value) ||
      value < min) {
    Fail(name, fmt::format("{} must be a number >= {:g}, got '{}'", name, min, *raw));
    return std::nullopt;
  }
  return value;
}

std::string QueryParams::Choice(const std::string& name,
                                std::initializer_list<std::string_view> choices,
                                const std::string& fallback) {
  auto raw = Raw(name);
  if (!raw) return fallback;
  if (std::find(choices.begin(), choices.end(), *raw) != choices.end()) return *raw;
  std::string list;
  for (std::string_view c : choices) list += (list.empty() ? "" : ", ") + std::string(c);
  Fail(name, name + " must be one of " + list + ", got '" + *raw + "'");
  return fallback;
}

void QueryParams::Fail(const std::string& name, const std::string& detail) {
  errors_.push_back({name, detail});
}

Error QueryParams::error() const {
  Error e{ErrorCode::kInvalidArgument, "", errors_};
  e.message = errors_.size() == 1 ? errors_.front().detail
                                  : std::to_string(errors_.size()) + " invalid query parameters";
  return e;
}

}  // namespace gpuplan::api
