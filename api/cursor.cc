#include "api/cursor.h"

#include "api/json_encode.h"

#include <cstdint>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "db/text.h"

namespace gpuplan::api {

namespace {

Error BadCursor(const std::string& why) {
  return Error::Invalid("cursor", "cursor is not valid for this query: " + why);
}

}  // namespace

std::string Fingerprint(const std::string& text) {
  uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

std::string EncodePosition(const CursorPosition& position, const std::string& fingerprint) {
  nlohmann::json j = {{"q", fingerprint},
                      {"k", position.keys},
                      {"v", position.value ? nlohmann::json(*position.value) : nlohmann::json(nullptr)}};
  return db::HexEncode(EncodeJson(j));
}

Result<CursorPosition> DecodePosition(const std::string& text, const std::string& fingerprint,
                                      size_t key_count) {
  auto raw = db::HexDecode(text);
  if (!raw) return BadCursor("not a cursor returned by this API");
  nlohmann::json j = nlohmann::json::parse(*raw, nullptr, /*allow_exceptions=*/false);
  bool shaped = j.is_object() && j.contains("q") && j["q"].is_string() && j.contains("k") &&
                j["k"].is_array() && j["k"].size() == key_count && j.contains("v") &&
                (j["v"].is_null() || j["v"].is_number());
  if (shaped) {
    for (const auto& k : j["k"]) shaped = shaped && k.is_string();
  }
  if (!shaped) return BadCursor("not a cursor returned by this API");
  if (j["q"].get<std::string>() != fingerprint) {
    return BadCursor("it was issued for different filters or sort");
  }
  CursorPosition position;
  position.keys = j["k"].get<std::vector<std::string>>();
  if (j["v"].is_number()) position.value = j["v"].get<double>();
  return position;
}

std::string EncodeCursor(const db::OfferCursor& cursor, const std::string& fingerprint) {
  return EncodePosition({cursor.sort_value, {cursor.cloud, cursor.region, cursor.instance_type}},
                        fingerprint);
}

Result<db::OfferCursor> DecodeCursor(const std::string& text, const std::string& fingerprint) {
  auto position = DecodePosition(text, fingerprint, 3);
  if (!position.ok()) return position.error();
  return db::OfferCursor{position->value, position->keys[0], position->keys[1], position->keys[2]};
}

}  // namespace gpuplan::api
