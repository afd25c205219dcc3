#include "db/text.h"

#include <cctype>

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <ctime>
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
  if (text.front() == '+') {
    text.remove_prefix(1);
    if (text.empty() || text.front() == '-' || text.front() == '+') return std::nullopt;
  }
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

std::string HexEncode(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

std::optional<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = value(hex[i]), lo = value(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

namespace {

// Length of the well-formed UTF-8 sequence at text[i], or 0 when it is not one.
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlongs
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // no overlongs
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8SequenceLength(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool GpuIdMatches(std::string_view gpu_id, std::string_view wanted) {
  std::string id = AsciiLower(gpu_id), want = AsciiLower(wanted);
  return id == want || id.rfind(want + "-", 0) == 0;
}

bool HasControlCharacter(std::string_view text) {
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

bool HasControlOrLineBreak(std::string_view text) {
  if (HasControlCharacter(text)) return true;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    auto next = static_cast<unsigned char>(text[i + 1]);
    if (c == 0xC2 && next >= 0x80 && next <= 0x9F) return true;  // C1: U+0080..U+009F
    if (c == 0xE2 && next == 0x80 && i + 2 < text.size()) {
      auto last = static_cast<unsigned char>(text[i + 2]);
      if (last == 0xA8 || last == 0xA9) return true;  // U+2028, U+2029
    }
  }
  return false;
}

std::string Printable(std::string_view text, size_t max_bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  bool cut = text.size() > max_bytes;
  if (cut) text = text.substr(0, max_bytes);
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t n = Utf8SequenceLength(text, i);
    if (n > 1) {
      std::string_view sequence = text.substr(i, n);
      if (HasControlOrLineBreak(sequence)) {  // C1, U+2028, U+2029: escaped byte by byte
        for (unsigned char b : sequence) {
          out += "\\x";
          out.push_back(kHex[b >> 4]);
          out.push_back(kHex[b & 15]);
        }
      } else {
        out.append(sequence);
      }
      i += n;
      continue;
    }
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (n == 1 && c >= 0x20 && c != 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
    ++i;
  }
  if (cut) out += "...";
  return out;
}

std::string FormatHours(double hours) {
  if (!std::isfinite(hours) || hours < 0) return "-";
  if (hours < 1) return fmt::format("{:.0f} min", hours * 60);
  if (hours < 48) return fmt::format("{:.1f} h", hours);
  double days = std::floor(hours / 24);
  double rest = std::round(hours - days * 24);
  if (rest >= 24) {
    days += 1;
    rest = 0;
  }
  return fmt::format("{:.0f} d", days) + (rest > 0 ? fmt::format(" {:.0f} h", rest) : "");
}

std::string FormatUtc(std::time_t t, const char* format) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof(buffer), format, &tm);
  return buffer;
}

std::string UtcNow() {
  return FormatUtc(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
}

}  // namespace gpuplan::db
