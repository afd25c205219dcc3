// API-key checks for HTTP requests: "Authorization: Bearer <key>". Missing or unknown
// keys answer 401; revoked keys and keys without the scope answer 403 (problem+json).
#pragma once

#include <optional>
#include <string>

#include "db/api_keys.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace gpuplan::db {
class ConnectionPool;
}  // namespace gpuplan::db

namespace gpuplan::api {

// The token of an "Authorization: Bearer <token>" header value (scheme in any case), or
// nullopt when the header is not one.
std::optional<std::string> BearerToken(const std::string& header);

// The key's record when it may act with `scope` ("write" or "admin"; admin keys may
// write); nullopt after writing the 401/403 answer.
std::optional<db::ApiKey> Authorize(db::ConnectionPool& pool, const httplib::Request& req,
                                    httplib::Response& res, const std::string& scope);

}  // namespace gpuplan::api
