#include "db/location_region.h"

#include <array>
#include <vector>

#include "db/field_rules.h"
#include "db/text.h"

namespace gpuplan::db {

namespace {

const char* ContinentName(std::string_view code) {
  static constexpr std::array<std::pair<std::string_view, const char*>, 7> kContinents{{
      {"AF", "Africa"}, {"AN", "Antarctica"}, {"AS", "Asia"}, {"EU", "Europe"},
      {"NA", "North America"}, {"OC", "Oceania"}, {"SA", "South America"}}};
  for (const auto& [c, name] : kContinents) {
    if (c == code) return name;
  }
  return nullptr;
}

// The ASCII letter of a Latin-1 letter U+00C0..U+00FF (lower case), or 0.
char FoldLatin1(unsigned code) {
  static constexpr const char* kFold =
      "aaaaaaaceeeeiiiidnooooo-ouuuuythsaaaaaaaceeeeiiiidnooooo-ouuuuyty";
  if (code < 0xC0 || code > 0xFF) return 0;
  char c = kFold[code - 0xC0];
  return c == '-' ? 0 : c;
}

bool IsAsciiLetterOrDigit(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string Slug(std::string_view text) {
  std::string out;
  auto push = [&](char c) {
    if (c == '-') {
      if (!out.empty() && out.back() != '-') out.push_back('-');
    } else {
      out.push_back(c);
    }
  };
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      push(IsAsciiLetterOrDigit(c) ? AsciiLower(std::string(1, static_cast<char>(c)))[0] : '-');
    } else if ((c & 0xE0) == 0xC0 && i + 1 < text.size()) {
      unsigned code = ((c & 0x1F) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3F);
      ++i;
      char folded = FoldLatin1(code);
      push(folded ? folded : '-');
    } else {
      push('-');
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::vector<std::string_view> SplitComma(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    parts.push_back(Trim(text.substr(start, comma == std::string_view::npos ? text.npos
                                                                             : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

}  // namespace

std::optional<Region> LocationRegion(const std::string& cloud, std::string_view location) {
  if (!IsValidUtf8(location)) return std::nullopt;
  auto parts = SplitComma(location);
  if (parts.size() != 3) return std::nullopt;
  std::string_view place = parts[0], country = parts[1], continent = parts[2];
  const char* continent_name = ContinentName(continent);
  if (country.size() != 2 || !continent_name) return std::nullopt;
  for (char c : country) {
    if (c < 'A' || c > 'Z') return std::nullopt;
  }
  std::string id = AsciiLower(country);
  std::string slug = Slug(place);
  if (!slug.empty()) id += "-" + slug;
  if (id.size() > rules::kMaxNameBytes) id.resize(rules::kMaxNameBytes);
  while (id.back() == '-') id.pop_back();
  if (rules::CheckName(id)) return std::nullopt;
  std::string display = place.empty() ? std::string(country)
                                      : std::string(place) + ", " + std::string(country);
  return Region{cloud, id, display, std::string(country), continent_name};
}

}  // namespace gpuplan::db
