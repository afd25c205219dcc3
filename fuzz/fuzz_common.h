// Shared pieces of the libFuzzer targets (fuzz/*.cc): a seeded in-memory catalog, the
// server's own body reader and error renderer, and invariant checks that abort (so
// libFuzzer records the input) when an answer could not be sent.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "db/catalog_store.h"
#include "model/result.h"

namespace gpuplan::fuzz {

// Prints `what` (and the detail) to stderr and aborts: an invariant of the code under
// test does not hold for this input.
[[noreturn]] void Fail(std::string_view what, std::string_view detail = "");
inline void Require(bool condition, std::string_view what, std::string_view detail = "") {
  if (!condition) Fail(what, detail);
}

// A catalog store over a private in-memory SQLite database, migrated and seeded with the
// embedded seed (db/seed/), created on first use. No file or network is touched. Targets
// use it read-only (fuzz_import writes only in rolled-back dry runs and clears the audit).
db::CatalogStore& SeededStore();
// Defines libFuzzer's initializer so that the seeded catalog is built once, before the
// first input (not timed as part of it).
#define GPUPLAN_FUZZ_SEED_STORE_FIRST()               \
  extern "C" int LLVMFuzzerInitialize(int*, char***) { \
    gpuplan::fuzz::SeededStore();                      \
    return 0;                                          \
  }
db::Connection& SeededDatabase();

// A fixed "now" for rules that compare with the clock, so runs are reproducible.
inline constexpr std::time_t kFixedNow = 1798761600;  // 2027-01-01T00:00:00Z
inline constexpr const char* kFixedNowText = "2027-01-01T00:00:00Z";

// The fuzz input as text.
inline std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A request with `method` to `path` carrying `body` as JSON, as the handlers see it.
httplib::Request BodyRequest(const std::string& method, const std::string& path, std::string body);
inline httplib::Request PostRequest(const std::string& path, std::string body) {
  return BodyRequest("POST", path, std::move(body));
}

// The server's body reader (api::ReadJsonBody with the endpoint's limit from
// api::BodyLimit): the parsed object, or nullopt after checking that the problem answer
// it wrote is a well-formed problem+json.
std::optional<nlohmann::json> ReadBody(const httplib::Request& req);

// Renders `error` as the server does (api::WriteError) and checks the answer: a 4xx/5xx
// status and a JSON body that is the real problem (not the fixed fallback that
// WriteError sends when building the problem threw).
// `status`, when not 0, is WriteError's status override and must be the answer's status.
void CheckErrorAnswer(const httplib::Request& req, const Error& error, int status = 0);
// The same for an error without a request at hand.
void CheckError(const Error& error);

// Encodes `value` with api::EncodeJson and checks that the text parses back.
void CheckEncodes(const nlohmann::json& value);
// Checks an answer already encoded (api::JsonWriter): UTF-8 that parses as JSON.
void CheckEncodedText(const std::string& text, std::string_view who);

// A decoder's or parser's rejection of the input (`what` names it): bad input must be
// kInvalidArgument (a 4xx, never a 5xx), and its problem answer must render, for `req`
// when there is one.
void CheckRejection(const Error& error, std::string_view what,
                    const httplib::Request* req = nullptr);

// The answer a handler would send: the encoded value, or the problem answer.
template <typename T>
void CheckAnswer(const httplib::Request& req, const Result<T>& answer) {
  if (answer.ok()) {
    if constexpr (std::is_same_v<T, std::string>) {
      CheckEncodedText(*answer, "JsonWriter");
    } else {
      CheckEncodes(*answer);
    }
  } else {
    CheckErrorAnswer(req, answer.error());
  }
}

}  // namespace gpuplan::fuzz
