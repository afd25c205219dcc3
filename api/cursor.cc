#include "api/cursor.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace gpuplan::api {

namespace {

std::string ToHex(const std::string& bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

bool FromHex(const std::string& hex, std::string& out) {
  if (hex.size() % 2 != 0) return false;
  out.clear();
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = value(hex[i]), lo = value(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

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
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

std::string EncodeCursor(const db::OfferCursor& cursor, const std::string& fingerprint) {
  nlohmann::json j = {{"q", fingerprint},
                      {"c", cursor.cloud},
                      {"r", cursor.region},
                      {"i", cursor.instance_type},
                      {"v", cursor.sort_value ? nlohmann::json(*cursor.sort_value)
                                              : nlohmann::json(nullptr)}};
  return ToHex(j.dump());
}

Result<db::OfferCursor> DecodeCursor(const std::string& text, const std::string& fingerprint) {
  std::string raw;
  if (!FromHex(text, raw)) return BadCursor("not a cursor returned by this API");
  nlohmann::json j = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("q") || !j["q"].is_string() || !j.contains("c") ||
      !j["c"].is_string() || !j.contains("r") || !j["r"].is_string() || !j.contains("i") ||
      !j["i"].is_string() || !j.contains("v") || !(j["v"].is_null() || j["v"].is_number())) {
    return BadCursor("not a cursor returned by this API");
  }
  if (j["q"].get<std::string>() != fingerprint) {
    return BadCursor("it was issued for different filters or sort");
  }
  db::OfferCursor cursor;
  cursor.cloud = j["c"].get<std::string>();
  cursor.region = j["r"].get<std::string>();
  cursor.instance_type = j["i"].get<std::string>();
  if (j["v"].is_number()) cursor.sort_value = j["v"].get<double>();
  return cursor;
}

}  // namespace gpuplan::api
