// Opaque list cursors: a keyset position (an optional sort value and the unique key of the
// last item) plus a fingerprint of the query it belongs to, so a cursor replayed against
// other filters is rejected instead of skipping rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/offer_query.h"
#include "model/result.h"

namespace gpuplan::api {

// A stable 64-bit FNV-1a hash of `text`, as hex.
std::string Fingerprint(const std::string& text);

struct CursorPosition {
  std::optional<double> value;
  std::vector<std::string> keys;
};

std::string EncodePosition(const CursorPosition& position, const std::string& fingerprint);
// kInvalidArgument naming "cursor" when the text is not a cursor of this query with
// `key_count` keys.
Result<CursorPosition> DecodePosition(const std::string& text, const std::string& fingerprint,
                                      size_t key_count);

// Offer listings: (sort value, cloud, region, instance type).
std::string EncodeCursor(const db::OfferCursor& cursor, const std::string& fingerprint);
Result<db::OfferCursor> DecodeCursor(const std::string& text, const std::string& fingerprint);

}  // namespace gpuplan::api
