// API keys: created once (the plain key is returned only then), stored as a SHA-256
// hash, listed, revoked, and checked. Scopes: "write" (catalog writes and imports) and
// "admin" (everything write may, and key management).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

struct ApiKey {
  long long id = 0;
  std::string name;
  std::string scope;  // write | admin
  std::string prefix;  // the first characters of the key, to tell keys apart
  std::string created_at;
  std::optional<std::string> revoked_at;
};

struct NewApiKey {
  ApiKey record;
  std::string key;  // the plain key: shown once, never stored
};

// Hex SHA-256 of `text`.
std::string Sha256Hex(const std::string& text);

class ApiKeyStore {
 public:
  explicit ApiKeyStore(Connection& db) : db_(db) {}

  // kInvalidArgument for an empty name or unknown scope; kConflict if the name is taken.
  Result<NewApiKey> Create(const std::string& name, const std::string& scope);
  Result<std::vector<ApiKey>> List();
  // Revokes by id (digits) or name. kNotFound if no such key; revoking twice is fine.
  Result<ApiKey> Revoke(const std::string& id_or_name);
  // The key's record (revoked ones too: the caller decides 401 vs 403); kNotFound if the
  // key is unknown.
  Result<ApiKey> Find(const std::string& key);

 private:
  Connection& db_;
};

}  // namespace gpuplan::db
