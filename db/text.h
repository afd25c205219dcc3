// Strict parsing of numbers from text fields: the whole field must be the number.
#pragma once

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

}  // namespace gpuplan::db
