#include "api/json_limits.h"

#include <algorithm>

namespace gpuplan::api {

namespace {

// A first, allocation-free pass that counts values and depth and stops at a limit. (A
// parser callback would do the same in one pass, but nlohmann's callback parser is
// quadratic on long arrays: 40 s for 300 000 values.)
class LimitCounter : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit LimitCounter(const JsonLimits& limits) : limits_(limits) {}
  std::string reason;

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    reason = "request body is not valid JSON";
    return false;
  }

 private:
  bool Value() {
    if (++values_ <= limits_.max_values) return true;
    reason = "JSON holds more than " + std::to_string(limits_.max_values) + " values";
    return false;
  }
  bool Open() {
    if (!Value()) return false;
    if (++depth_ <= limits_.max_depth) return true;
    reason = "JSON is nested deeper than " + std::to_string(limits_.max_depth) + " levels";
    return false;
  }
  bool Close() {
    --depth_;
    return true;
  }

  const JsonLimits& limits_;
  size_t values_ = 0, depth_ = 0;
};

// Whether `value` nests deeper than `max_depth` (the root's container is level 1), looking
// no deeper than one level past it.
bool DeeperThan(const nlohmann::json& value, size_t max_depth) {
  if (!value.is_structured()) return false;
  if (max_depth == 0) return true;
  for (const auto& item : value) {
    if (DeeperThan(item, max_depth - 1)) return true;
  }
  return false;
}

// Bodies up to this size are parsed without the counting pass (request bodies of the
// planning routes are a few hundred bytes; imports are counted first).
constexpr size_t kParsedOnceBytes = 64 * 1024;

}  // namespace

JsonLimits LimitsForBody(size_t body_limit) {
  JsonLimits limits;
  limits.max_values = std::max<size_t>(4096, body_limit / 16);
  return limits;
}

ParsedJson ParseBoundedJson(std::string_view text, const JsonLimits& limits) {
  ParsedJson out;
  try {
    // A text of no more bytes than the values allowed cannot hold more values (each takes a
    // byte at least) and, under kParsedOnceBytes, costs little memory even when it nests too
    // deep: it is parsed once, and its depth checked on the tree. The counting pass below says why a text that does not parse was refused (a
    // limit it passes before its error, or the error), as for any other text.
    if (text.size() <= std::min<size_t>(limits.max_values, kParsedOnceBytes)) {
      nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (!doc.is_discarded()) {
        if (DeeperThan(doc, limits.max_depth)) {
          out.error = "JSON is nested deeper than " + std::to_string(limits.max_depth) +
                      " levels";
        } else {
          out.value = std::move(doc);
        }
        return out;
      }
    }
    LimitCounter counter(limits);
    if (!nlohmann::json::sax_parse(text, &counter)) {
      out.error = counter.reason.empty() ? "request body is not valid JSON" : counter.reason;
      return out;
    }
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      out.error = "request body is not valid JSON";
    } else {
      out.value = std::move(doc);
    }
  } catch (const nlohmann::json::exception&) {
    out.error = "request body is not valid JSON";
  }
  return out;
}

}  // namespace gpuplan::api
