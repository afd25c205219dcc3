// Region ids for catalogs that name a location instead of a region: SkyPilot's Vast catalog
// writes "Texas, US, NA" (state or city, ISO 3166 country, continent code), with the first
// part sometimes empty (", US, NA"). Such a location becomes a region id that passes
// rules::CheckName ("us-texas", "us") and a Region record that carries the location's own
// country and continent, so that every region has its metadata. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "db/catalog_types.h"

namespace gpuplan::db {

// The region of `location` for `cloud`, or nullopt when it is not "place, CC, CONT" with a
// two-letter country and a known continent code (AF AN AS EU NA OC SA).
// id: lower-case country, then the place folded to ASCII (Latin-1 letters lose their
// accents, other characters become '-'): "Bács-Kiskun, HU, EU" -> "hu-bacs-kiskun".
// display_name: "Bács-Kiskun, HU" (the place as written), or the country code alone.
std::optional<Region> LocationRegion(const std::string& cloud, std::string_view location);

}  // namespace gpuplan::db
