#include "api/auth.h"

#include <httplib.h>

#include <cctype>

#include "api/problem.h"
#include "db/database.h"

namespace gpuplan::api {

std::optional<std::string> BearerToken(const std::string& header) {
  // RFC 9110 11.1: the scheme is case-insensitive; one or more spaces follow it.
  const std::string scheme = "bearer";
  if (header.size() <= scheme.size() + 1) return std::nullopt;
  for (size_t i = 0; i < scheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i]) return std::nullopt;
  }
  size_t start = header.find_first_not_of(' ', scheme.size());
  if (start == scheme.size() || start == std::string::npos) return std::nullopt;
  size_t end = header.find_last_not_of(' ');
  std::string token = header.substr(start, end - start + 1);
  if (token.empty() || token.size() > 256) return std::nullopt;
  return token;
}

std::optional<db::ApiKey> Authorize(db::ConnectionPool& pool, const httplib::Request& req,
                                    httplib::Response& res, const std::string& scope) {
  auto token = BearerToken(req.get_header_value("Authorization"));
  if (!token) {
    res.set_header("WWW-Authenticate", "Bearer");
    WriteProblem(req, res, 401, "this endpoint needs an API key: Authorization: Bearer <key>");
    return std::nullopt;
  }
  auto lease = pool.Acquire();
  auto key = db::ApiKeyStore(*lease).Find(*token);
  if (!key.ok()) {
    if (key.error().code != ErrorCode::kNotFound) {
      WriteError(req, res, key.error());
    } else {
      res.set_header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
      WriteProblem(req, res, 401, "unknown API key");
    }
    return std::nullopt;
  }
  if (key->revoked_at) {
    // Nothing about the key itself: whoever holds a leaked, revoked key learns nothing more.
    WriteProblem(req, res, 403, "this API key was revoked");
    return std::nullopt;
  }
  if (scope == "admin" && key->scope != "admin") {
    WriteProblem(req, res, 403, "API key '" + key->name + "' has scope " + key->scope +
                                    "; this needs admin");
    return std::nullopt;
  }
  return *key;
}

}  // namespace gpuplan::api
