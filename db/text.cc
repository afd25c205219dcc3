#include "db/text.h"

#include <charconv>
#include <cmath>

namespace gpuplan::db {

std::string_view Trim(std::string_view text) {
  const char* spaces = " \t\r\n";
  size_t begin = text.find_first_not_of(spaces);
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(spaces);
  return text.substr(begin, end - begin + 1);
}

std::optional<double> ParseDouble(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<long long> ParseInteger(std::string_view text) {
  auto value = ParseDouble(text);
  if (!value || std::floor(*value) != *value || std::fabs(*value) > 9e15) return std::nullopt;
  return static_cast<long long>(*value);
}

}  // namespace gpuplan::db
