#include "server/request_head.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace gpuplan::server {

namespace {

constexpr std::array<std::string_view, 7> kMethods = {"GET",   "HEAD",   "POST",   "PUT",
                                                      "PATCH", "DELETE", "OPTIONS"};

bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

// C0 controls and DEL; HTAB too unless `tab_allowed`.
bool HasControl(std::string_view s, bool tab_allowed) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && !(tab_allowed && c == '\t')) || c == 0x7F) return true;
  }
  return false;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A decimal number without sign; nullopt when empty, not digits or too large (so a
// list "0-1,2-3" fails where its first range ends).
std::optional<size_t> ParseDecimal(std::string_view s) {
  size_t value = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

RequestHeadChecker::State RequestHeadChecker::Fail(int status, std::string field,
                                                   std::string detail) {
  status_ = status;
  field_ = std::move(field);
  detail_ = std::move(detail);
  return State::kMalformed;
}

RequestHeadChecker::State RequestHeadChecker::SkipEmptyLine() {
  if (status_ != 0) return State::kMalformed;
  if (++empty_lines_ > kMaxEmptyLinesBeforeRequest) {
    return Fail(400, "request line", "more than 8 empty lines before the request line");
  }
  return State::kIncomplete;
}

RequestHeadChecker::State RequestHeadChecker::Check(std::string_view bytes) {
  if (status_ != 0) return State::kMalformed;
  if (head_length_ != 0) return State::kComplete;
  while (true) {
    size_t lf = bytes.find('\n', checked_);
    size_t limit = request_line_seen_ ? kMaxFieldLineBytes : kMaxRequestLineBytes;
    size_t line_bytes = (lf == std::string_view::npos ? bytes.size() : lf + 1) - checked_;
    if (line_bytes > limit) {
      return request_line_seen_
                 ? Fail(431, "header", "a header line is over the limit of 8192 bytes")
                 : Fail(414, "request line", "the request line is over the limit of 8192 bytes");
    }
    if (lf == std::string_view::npos) return State::kIncomplete;
    if (lf == checked_ || bytes[lf - 1] != '\r') {
      return Fail(400, request_line_seen_ ? "header" : "request line",
                  "every line of a request head must end with CRLF");
    }
    size_t begin = checked_;
    std::string_view line = bytes.substr(begin, lf - 1 - begin);
    checked_ = lf + 1;
    State state;
    if (!request_line_seen_) {
      request_line_seen_ = true;
      state = CheckRequestLine(line);
    } else if (line.empty()) {
      head_length_ = checked_;
      return State::kComplete;
    } else {
      state = CheckFieldLine(line, begin);
    }
    if (state == State::kMalformed) return state;
  }
}

RequestHeadChecker::State RequestHeadChecker::CheckRequestLine(std::string_view line) {
  size_t first_space = line.find(' ');
  size_t second_space =
      first_space == std::string_view::npos ? first_space : line.find(' ', first_space + 1);
  if (second_space == std::string_view::npos || line.find(' ', second_space + 1) != line.npos) {
    return Fail(400, "request line", "the request line must be: method SP target SP HTTP-version");
  }
  std::string_view method = line.substr(0, first_space);
  std::string_view target = line.substr(first_space + 1, second_space - first_space - 1);
  std::string_view version = line.substr(second_space + 1);
  if (!IsToken(method)) return Fail(400, "method", "the request method is not a token");
  if (target.empty() || HasControl(target, false)) {
    return Fail(400, "request target", "the request target must be non-empty, without control characters");
  }
  bool versioned = version.size() == 8 && version.substr(0, 5) == "HTTP/" && IsDigit(version[5]) &&
                   version[6] == '.' && IsDigit(version[7]);
  if (!versioned) return Fail(400, "HTTP version", "the HTTP version must be HTTP/1.1 or HTTP/1.0");
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return Fail(505, "HTTP version", "this server speaks HTTP/1.1 and HTTP/1.0 only");
  }
  for (std::string_view known : kMethods) {
    if (method == known) return State::kIncomplete;
  }
  return Fail(501, "method",
              "the request method is not implemented; methods are case-sensitive: GET, HEAD, "
              "POST, PUT, PATCH, DELETE, OPTIONS");
}

RequestHeadChecker::State RequestHeadChecker::CheckFieldLine(std::string_view line, size_t begin) {
  if (line.front() == ' ' || line.front() == '\t') {
    return Fail(400, "header", "folded header lines (obs-fold) are not accepted");
  }
  size_t colon = line.find(':');
  std::string_view name = line.substr(0, colon);
  if (colon == std::string_view::npos || !IsToken(name)) {
    return Fail(400, "header", "a header line must be: name \":\" value, the name a token");
  }
  std::string shown = "header " + std::string(name.substr(0, 60));  // a token: plain ASCII
  std::string_view value = line.substr(colon + 1);
  if (HasControl(value, true)) {
    return Fail(400, shown, shown + " must be text without control characters");
  }
  if (EqualsIgnoringCase(name, "Content-Length")) {
    std::string_view digits = TrimSpaces(value);
    if (content_length_seen_ || digits.empty() || digits.size() > 19 ||
        !std::all_of(digits.begin(), digits.end(), IsDigit)) {
      return Fail(400, shown, "Content-Length must be one decimal number, sent once");
    }
    content_length_seen_ = true;
  }
  if (EqualsIgnoringCase(name, "Range")) {
    range_lines_.push_back(Line{begin, checked_, std::string(TrimSpaces(value))});
  }
  return State::kIncomplete;
}

bool IsByteRangeUnit(std::string_view value) {
  value = TrimSpaces(value);
  return value.size() >= 6 && EqualsIgnoringCase(value.substr(0, 6), "bytes=");
}

std::optional<ByteRange> ParseSingleByteRange(std::string_view value, size_t length) {
  value = TrimSpaces(value);
  if (length == 0 || !IsByteRangeUnit(value)) return std::nullopt;
  std::string_view spec = TrimSpaces(value.substr(6));
  size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  std::string_view first_text = spec.substr(0, dash), last_text = spec.substr(dash + 1);
  if (first_text.empty()) {  // the last n bytes
    auto suffix = ParseDecimal(last_text);
    if (!suffix || *suffix == 0) return std::nullopt;
    return ByteRange{*suffix >= length ? 0 : length - *suffix, length - 1};
  }
  auto first = ParseDecimal(first_text);
  if (!first || *first >= length) return std::nullopt;
  if (last_text.empty()) return ByteRange{*first, length - 1};
  auto last = ParseDecimal(last_text);
  if (!last || *last < *first) return std::nullopt;
  return ByteRange{*first, std::min(*last, length - 1)};
}

}  // namespace gpuplan::server
