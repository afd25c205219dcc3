// Text helpers shared by every layer that reads outside input: strict parsing of numbers
// from text fields (the whole field must be the number), UTF-8 validation, and quoting
// of untrusted text for messages and logs.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan::db {

std::string_view Trim(std::string_view text);

// A finite decimal number ("1", "8.0", "-2.5e3"), or nullopt (also for "" and "n/a").
std::optional<double> ParseDouble(std::string_view text);

// A whole number, also written as a float with a zero fraction ("8.0"), or nullopt.
std::optional<long long> ParseInteger(std::string_view text);

// Lower-case hex of `bytes`, and back (nullopt for odd lengths or non-hex characters).
std::string HexEncode(std::string_view bytes);
std::optional<std::string> HexDecode(std::string_view hex);

// True when `text` is well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, nothing
// above U+10FFFF). NUL bytes are well-formed; callers that refuse them check separately.
bool IsValidUtf8(std::string_view text);

// ASCII letters lower-cased; other bytes as they are.
std::string AsciiLower(std::string_view text);

// A catalog GPU id `gpu_id` is `wanted`, or of its family ("A100" matches "A100-80GB-SXM4"),
// ignoring ASCII case: how filters and constraints name GPUs.
bool GpuIdMatches(std::string_view gpu_id, std::string_view wanted);

// True when `text` has a C0 control character (U+0000..U+001F) or DEL.
bool HasControlCharacter(std::string_view text);

// True when `text` has a code point that controls a terminal or breaks a line for some
// reader: C0 (U+0000..U+001F), DEL and C1 (U+007F..U+009F, NEL U+0085 among them), or the
// line and paragraph separators U+2028 and U+2029 (line breaks to YAML 1.1 parsers such as
// PyYAML, libyaml and go-yaml, and to JavaScript). Bytes that are not UTF-8 are not looked
// at: check IsValidUtf8 first.
bool HasControlOrLineBreak(std::string_view text);

// `text` made safe to print: printable ASCII and valid UTF-8 as they are; control
// characters (C0, DEL, C1), U+2028, U+2029, backslash and bytes that are not valid UTF-8
// as \xNN per byte (\n, \r, \t by name). Longer than `max_bytes` input is cut and marked with "...". Never throws.
std::string Printable(std::string_view text, size_t max_bytes = 200);

// A duration in hours as a person reads it: "45 min" under an hour, "6.6 h" under 48 h,
// else "3 d 4 h"; "-" when not finite or negative.
std::string FormatHours(double hours);

// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string UtcNow();
// `t` in UTC by strftime's `format` (thread-safe: gmtime_r).
std::string FormatUtc(std::time_t t, const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace gpuplan::db
