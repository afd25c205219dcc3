// Opaque list cursors: the keyset position plus a fingerprint of the query it belongs
// to, so a cursor replayed against other filters is rejected instead of skipping rows.
#pragma once

#include <string>

#include "db/offer_query.h"
#include "model/result.h"

namespace gpuplan::api {

// A stable 64-bit FNV-1a hash of `text`, as hex.
std::string Fingerprint(const std::string& text);

std::string EncodeCursor(const db::OfferCursor& cursor, const std::string& fingerprint);

// kInvalidArgument naming "cursor" when the text is not a cursor of this query.
Result<db::OfferCursor> DecodeCursor(const std::string& text, const std::string& fingerprint);

}  // namespace gpuplan::api
