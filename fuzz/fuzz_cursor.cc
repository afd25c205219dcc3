// List cursors (api/cursor.h). Three checks per input:
//  1. The input text (after the first byte) as a cursor: DecodePosition with 0..3 keys and
//     DecodeCursor must fail cleanly (problem answer) or give a position that re-encodes
//     and decodes to itself.
//  2. A position built from the input (byte 0: key count; bytes 1-8: the sort value, a
//     double, or none when it is not finite; the rest: keys separated by 0xFF) must round
//     trip EncodePosition -> DecodePosition exactly when its keys are UTF-8 (keys that are
//     not UTF-8 are replaced with U+FFFD by EncodeJson by design, see api/json_encode.h).
//  3. A cursor is refused for another query (fingerprint) and another key count.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "api/cursor.h"
#include "db/text.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

bool Same(const api::CursorPosition& a, const api::CursorPosition& b) {
  if (a.keys != b.keys || a.value.has_value() != b.value.has_value()) return false;
  return !a.value || *a.value == *b.value;
}

std::string Describe(const api::CursorPosition& p) {
  std::string out = p.value ? std::to_string(*p.value) : "null";
  for (const auto& k : p.keys) out += " | " + db::Printable(k, 80);
  return out;
}

void DecodeText(const std::string& text, const std::string& fingerprint) {
  for (size_t keys = 0; keys <= 3; ++keys) {
    auto position = api::DecodePosition(text, fingerprint, keys);
    if (!position.ok()) {
      CheckRejection(position.error(), "DecodePosition");
      continue;
    }
    Require(position->keys.size() == keys, "DecodePosition returned the wrong key count");
    std::string again = api::EncodePosition(*position, fingerprint);
    auto back = api::DecodePosition(again, fingerprint, keys);
    Require(back.ok(), "a decoded cursor, encoded again, does not decode", again);
    Require(Same(*position, *back), "a decoded cursor does not survive a re-encoding",
            Describe(*position) + " vs " + Describe(*back));
  }
  auto cursor = api::DecodeCursor(text, fingerprint);
  if (!cursor.ok()) {
    CheckError(cursor.error());
  } else {
    auto back = api::DecodeCursor(api::EncodeCursor(*cursor, fingerprint), fingerprint);
    Require(back.ok() && back->cloud == cursor->cloud && back->region == cursor->region &&
                back->instance_type == cursor->instance_type &&
                back->sort_value.has_value() == cursor->sort_value.has_value(),
            "an offer cursor does not survive a re-encoding");
  }
}

}  // namespace
}  // namespace gpuplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  if (size < 9) return 0;
  std::string rest = Text(data + 9, size - 9);
  std::string fingerprint = api::Fingerprint(rest);
  Require(fingerprint.size() == 16, "Fingerprint is not 16 hex digits", fingerprint);

  DecodeText(Text(data + 1, size - 1), api::Fingerprint(""));
  DecodeText(Text(data + 1, size - 1), fingerprint);

  api::CursorPosition position;
  size_t key_count = data[0] % 4;
  double value;
  std::memcpy(&value, data + 1, sizeof(value));
  if (std::isfinite(value) && (data[0] & 0x80)) position.value = value;
  size_t start = 0;
  for (size_t k = 0; k < key_count; ++k) {
    size_t sep = rest.find('\xff', start);
    position.keys.push_back(rest.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
    start = sep == std::string::npos ? rest.size() : sep + 1;
  }
  std::string text = api::EncodePosition(position, fingerprint);
  auto decoded = api::DecodePosition(text, fingerprint, key_count);
  Require(decoded.ok(), "EncodePosition made a cursor that DecodePosition refuses", text);
  bool utf8 = true;
  for (const auto& key : position.keys) utf8 = utf8 && db::IsValidUtf8(key);
  if (utf8) {
    Require(Same(position, *decoded), "EncodePosition -> DecodePosition changed the position",
            Describe(position) + " vs " + Describe(*decoded));
  }
  auto other_query = api::DecodePosition(text, api::Fingerprint(rest + "x"), key_count);
  Require(!other_query.ok(), "a cursor was accepted for another query");
  auto other_keys = api::DecodePosition(text, fingerprint, key_count + 1);
  Require(!other_keys.ok(), "a cursor was accepted with another key count");
  return 0;
}
