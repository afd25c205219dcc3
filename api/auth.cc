#include "api/auth.h"

#include <httplib.h>

#include "api/problem.h"
#include "db/database.h"

namespace gpuplan::api {

std::optional<db::ApiKey> Authorize(db::ConnectionPool& pool, const httplib::Request& req,
                                    httplib::Response& res, const std::string& scope) {
  std::string header = req.get_header_value("Authorization");
  const std::string prefix = "Bearer ";
  if (header.size() <= prefix.size() || header.compare(0, prefix.size(), prefix) != 0) {
    res.set_header("WWW-Authenticate", "Bearer");
    WriteProblem(req, res, 401, "this endpoint needs an API key: Authorization: Bearer <key>");
    return std::nullopt;
  }
  auto lease = pool.Acquire();
  auto key = db::ApiKeyStore(*lease).Find(header.substr(prefix.size()));
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
    WriteProblem(req, res, 403, "API key '" + key->name + "' was revoked at " + *key->revoked_at);
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
