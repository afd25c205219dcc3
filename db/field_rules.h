// The one set of rules every catalog write obeys, whatever its path: the JSON write
// endpoints, the SkyPilot, aws-spot-history and gpuplan importers, the CLI import and
// the seed. Each check takes the value and returns nullopt when it is acceptable, else a
// readable reason that quotes the value safely (cut and escaped, see Printable). No check
// uses a regex, allocates in proportion to its input beyond the quoted reason, or throws.
//
// CheckBatch applies them to a whole parsed batch; ImportCatalog and the admin writes call
// it before their transaction, so nothing invalid is ever stored.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

#include "db/catalog_batch.h"
#include "model/result.h"

namespace gpuplan::db::rules {

inline constexpr size_t kMaxIdBytes = 128;         // GPU and instance type ids
inline constexpr size_t kMaxNameBytes = 64;        // cloud, region and zone ids
inline constexpr size_t kMaxTextBytes = 1000;      // names, sources, notes
inline constexpr size_t kMaxLabelBytes = 200;      // a planning request's workload name
inline constexpr int kMaxGpuCount = 1024;          // GPUs in one instance
inline constexpr double kMaxPricePerHour = 1e7;    // in the price's own currency
inline constexpr double kMaxFxUnitsPerUsd = 1e9;
inline constexpr int kMinYear = 2000;
inline constexpr long kFutureSkewSeconds = 15 * 60;  // clocks of callers may run ahead

using Reason = std::optional<std::string>;

// GPU and instance type ids: 1..128 bytes of ASCII letters, digits and . _ - + : @ ( ) =
// (no spaces, slashes, '?', '#', '%', quotes or control characters).
Reason CheckCatalogId(std::string_view value);
// Cloud ids, regions: 1..64 bytes of ASCII letters, digits, '-', '_' and '.', starting
// with a letter or digit.
Reason CheckName(std::string_view value);
// Zones: empty (the whole region) or a name as above.
Reason CheckZone(std::string_view value);
// Free text (names, vendors, sources, notes: every text field that can reach an answer or
// an export), the one character set of docs/api.md "Text fields": well-formed UTF-8 of at
// most `max_bytes`, without C0 or C1 control characters (U+0000..U+001F, U+007F..U+009F,
// NEL U+0085 among them) or the line and paragraph separators U+2028 and U+2029
// (db::HasControlOrLineBreak), so that no text starts a new line in a YAML 1.1 reader.
Reason CheckText(std::string_view value, size_t max_bytes = kMaxTextBytes);
// ISO 4217 code: three upper-case ASCII letters.
Reason CheckCurrency(std::string_view value);
Reason CheckGpuCount(long long value);
// A price per hour: finite, > 0 and <= kMaxPricePerHour (an empty price means "not
// offered" and is never stored as 0).
Reason CheckPrice(double value);
Reason CheckFxRate(double units_per_usd);

// Seconds since the epoch (UTC) of an ISO 8601 date "YYYY-MM-DD" (midnight UTC) or
// date-time "YYYY-MM-DDTHH:MM[:SS[.fraction]][Z|+HH:MM|-HH:MM|+HHMM]" (no zone = UTC),
// or nullopt when it is not one or not a real calendar instant. At most 40 bytes.
std::optional<std::time_t> ParseTimestamp(std::string_view value);
// A timestamp as above, in year kMinYear or later and not after now + kFutureSkewSeconds.
Reason CheckTimestamp(std::string_view value, std::time_t now);

// The one stored form of an instant, so that SQL's string order (ORDER BY, MAX, >=) is the
// order in time: "YYYY-MM-DD" when it is exactly midnight UTC, else "YYYY-MM-DDTHH:MM:SSZ"
// (fractions of a second dropped). Instants before year 0001 or after 9999 are clamped to
// those years' first and last second. Migration 7 rewrites older rows the same way.
std::string FormatTimestamp(std::time_t t);
// ParseTimestamp then FormatTimestamp: "2026-11-01T06:28+14:00" -> "2026-10-31T16:28:00Z";
// nullopt when `value` is not a timestamp.
std::optional<std::string> CanonicalTimestamp(std::string_view value);
// CanonicalTimestamp, or `value` unchanged when it is not a timestamp (callers that have
// validated already, and query bounds that are checked elsewhere).
std::string CanonicalOrSame(std::string_view value);

// Every record of `batch` against the rules above (whether a price's instance type or an
// instance type's GPU exists is the store's check, not this one). The first failures (at
// most 100) as kInvalidArgument fields "/<table>/<index>/<field>".
Status CheckBatch(const CatalogBatch& batch, std::time_t now);

}  // namespace gpuplan::db::rules
