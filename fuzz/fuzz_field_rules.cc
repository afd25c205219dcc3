// The field rules every catalog write obeys (db/field_rules.h) and the text helpers of
// db/text.h, on the input as one value. Beyond "no crash", the documented contracts are
// checked (abort = finding):
//  - Printable: UTF-8, no C0/C1 control character, DEL, U+2028 or U+2029, bounded by
//    4 x max_bytes + 3;
//  - every rule's reason is UTF-8 without control characters and of bounded size (it
//    quotes the value through Printable), so it can go into any answer or log line;
//  - CheckCatalogId / CheckName / CheckZone / CheckCurrency accept exactly what their
//    comments say;
//  - ParseTimestamp refuses what CheckTimestamp refuses for format reasons;
//  - ParseDouble gives finite numbers only; HexDecode(HexEncode(x)) == x.
// Byte 0 picks Printable's max_bytes (0..255) and CheckText's limit; the rest is the value.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "db/field_rules.h"
#include "db/text.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

namespace rules = db::rules;

bool AsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool DocumentedCatalogId(std::string_view v) {
  if (v.empty() || v.size() > rules::kMaxIdBytes) return false;
  for (char c : v) {
    if (!AsciiAlnum(c) && std::string_view("._-+:@()=").find(c) == std::string_view::npos) return false;
  }
  return true;
}

bool DocumentedName(std::string_view v) {
  if (v.empty() || v.size() > rules::kMaxNameBytes || !AsciiAlnum(v.front())) return false;
  for (char c : v) {
    if (!AsciiAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool DocumentedCurrency(std::string_view v) {
  if (v.size() != 3) return false;
  for (char c : v) {
    if (c < 'A' || c > 'Z') return false;
  }
  return true;
}

void CheckReason(const rules::Reason& reason, std::string_view rule) {
  if (!reason) return;
  Require(!reason->empty(), "an empty reason", rule);
  Require(db::IsValidUtf8(*reason), "a rule's reason is not UTF-8", rule);
  Require(!db::HasControlOrLineBreak(*reason), "a rule's reason has a control character", rule);
  Require(reason->size() <= 1024, "a rule's reason is not bounded", rule);
}

void Agrees(const rules::Reason& reason, bool documented, std::string_view rule,
            std::string_view value) {
  CheckReason(reason, rule);
  if (documented && reason) Fail(std::string(rule) + " refused a value its comment allows", value);
  if (!documented && !reason) Fail(std::string(rule) + " accepted a value its comment forbids", value);
}

}  // namespace
}  // namespace gpuplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  if (size == 0) return 0;
  size_t max_bytes = data[0];
  std::string_view value(reinterpret_cast<const char*>(data + 1), size - 1);

  // db/text.h
  std::string shown = db::Printable(value, max_bytes);
  Require(db::IsValidUtf8(shown), "Printable output is not UTF-8", shown);
  Require(!db::HasControlOrLineBreak(shown), "Printable output has a control character", shown);
  Require(shown.size() <= 4 * max_bytes + 3, "Printable output is longer than 4 x max_bytes + 3");
  if (value.size() <= max_bytes && db::IsValidUtf8(value) && !db::HasControlOrLineBreak(value) &&
      value.find('\\') == std::string_view::npos) {
    Require(shown == value, "Printable changed text that is already printable", value);
  }
  std::string_view trimmed = db::Trim(value);
  Require(trimmed.size() <= value.size(), "Trim grew its input");
  if (auto d = db::ParseDouble(value)) Require(std::isfinite(*d), "ParseDouble gave a non-finite number", value);
  if (auto i = db::ParseInteger(value)) {
    auto d = db::ParseDouble(value);
    Require(d && static_cast<double>(*i) == *d, "ParseInteger disagrees with ParseDouble", value);
  }
  auto hex = db::HexDecode(db::HexEncode(value));
  Require(hex && *hex == value, "HexDecode(HexEncode(x)) != x");
  if (auto raw = db::HexDecode(value)) {
    Require(raw->size() * 2 == value.size(), "HexDecode gave the wrong length");
  }

  // db/field_rules.h
  Agrees(rules::CheckCatalogId(value), DocumentedCatalogId(value), "CheckCatalogId", value);
  Agrees(rules::CheckName(value), DocumentedName(value), "CheckName", value);
  Agrees(rules::CheckZone(value), value.empty() || DocumentedName(value), "CheckZone", value);
  Agrees(rules::CheckCurrency(value), DocumentedCurrency(value), "CheckCurrency", value);
  size_t text_limit = data[0] % 2 ? rules::kMaxTextBytes : max_bytes;
  Agrees(rules::CheckText(value, text_limit),
         value.size() <= text_limit && db::IsValidUtf8(value) && !db::HasControlOrLineBreak(value),
         "CheckText", value);

  auto t = rules::ParseTimestamp(value);
  if (t) Require(value.size() >= 10 && value.size() <= 40, "ParseTimestamp accepted a length outside 10..40", value);
  auto stamp_reason = rules::CheckTimestamp(value, kFixedNow);
  CheckReason(stamp_reason, "CheckTimestamp");
  if (!t) Require(stamp_reason.has_value(), "CheckTimestamp accepted what ParseTimestamp refuses", value);
  if (t && !stamp_reason) Require(*t <= kFixedNow + rules::kFutureSkewSeconds, "CheckTimestamp accepted the future", value);

  if (auto d = db::ParseDouble(value)) {
    CheckReason(rules::CheckPrice(*d), "CheckPrice");
    CheckReason(rules::CheckFxRate(*d), "CheckFxRate");
    if (!rules::CheckPrice(*d)) Require(*d > 0 && *d <= rules::kMaxPricePerHour, "CheckPrice accepted an out-of-range price", value);
  }
  if (auto i = db::ParseInteger(value)) {
    auto reason = rules::CheckGpuCount(*i);
    CheckReason(reason, "CheckGpuCount");
    Require(reason.has_value() == (*i < 1 || *i > rules::kMaxGpuCount), "CheckGpuCount disagrees with its range", value);
  }
  // Doubles straight from the bytes, NaN and infinities included.
  if (value.size() >= sizeof(double)) {
    double d;
    std::memcpy(&d, value.data(), sizeof(d));
    auto price = rules::CheckPrice(d);
    CheckReason(price, "CheckPrice");
    Require(price.has_value() == !(std::isfinite(d) && d > 0 && d <= rules::kMaxPricePerHour),
            "CheckPrice disagrees with its range");
    CheckReason(rules::CheckFxRate(d), "CheckFxRate");
  }
  return 0;
}
