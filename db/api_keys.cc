#include "db/api_keys.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cctype>

#include "db/catalog_writer.h"
#include "db/sql.h"
#include "db/write_transaction.h"
#include "db/text.h"

namespace gpuplan::db {

namespace {

ApiKey Read(Statement& s) {
  ApiKey k;
  k.id = s.getColumn(0).getInt64();
  k.name = s.getColumn(1).getString();
  k.scope = s.getColumn(2).getString();
  k.prefix = s.getColumn(3).getString();
  k.created_at = s.getColumn(4).getString();
  if (!s.getColumn(5).isNull()) k.revoked_at = s.getColumn(5).getString();
  return k;
}

constexpr const char* kColumns = "id, name, scope, prefix, created_at, revoked_at";

}  // namespace

std::string Sha256Hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

Result<NewApiKey> ApiKeyStore::Create(const std::string& name, const std::string& scope) {
  if (name.empty() || name.size() > 100) {
    return Error::Invalid("name", "name must be 1 to 100 characters");
  }
  if (scope != "write" && scope != "admin") {
    return Error::Invalid("scope", "scope must be write or admin");
  }
  unsigned char random[32];
  if (RAND_bytes(random, sizeof(random)) != 1) return Error::Internal("no random bytes");
  NewApiKey out;
  out.key = "gpk_" + HexEncode(std::string_view(reinterpret_cast<const char*>(random), sizeof(random)));
  return GuardSqlite([&]() -> Result<NewApiKey> {
    Statement exists(db_, "SELECT 1 FROM api_keys WHERE name = ?");
    exists.bind(1, name);
    if (exists.executeStep()) {
      return Error{ErrorCode::kConflict, "an API key named '" + name + "' exists", {}};
    }
    Statement insert(db_,
                             "INSERT INTO api_keys (name, key_hash, scope, prefix, created_at) "
                             "VALUES (?, ?, ?, ?, ?) RETURNING id");
    insert.bind(1, name);
    insert.bind(2, Sha256Hex(out.key));
    insert.bind(3, scope);
    insert.bind(4, out.key.substr(0, 12));
    insert.bind(5, UtcNow());
    insert.executeStep();
    const long long id = insert.getColumn(0).getInt64();
    insert.reset();
    Statement read(db_, std::string("SELECT ") + kColumns + " FROM api_keys WHERE id = ?");
    read.bind(1, id);
    read.executeStep();
    out.record = Read(read);
    return out;
  });
}

Result<std::vector<ApiKey>> ApiKeyStore::List() {
  return GuardSqlite([&]() -> Result<std::vector<ApiKey>> {
    Statement s(db_, std::string("SELECT ") + kColumns + " FROM api_keys ORDER BY id");
    std::vector<ApiKey> keys;
    while (s.executeStep()) keys.push_back(Read(s));
    return keys;
  });
}

Result<ApiKey> ApiKeyStore::Revoke(const std::string& id_or_name) {
  return GuardSqlite([&]() -> Result<ApiKey> {
    bool numeric = !id_or_name.empty() &&
                   std::all_of(id_or_name.begin(), id_or_name.end(), ::isdigit);
    Statement update(db_, numeric ? "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?"
                                          : "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE name = ?");
    update.bind(1, UtcNow());
    update.bind(2, id_or_name);
    if (update.exec() == 0) return Error::NotFound("no API key '" + id_or_name + "'");
    Statement read(db_, std::string("SELECT ") + kColumns + " FROM api_keys WHERE " +
                                    (numeric ? "id" : "name") + " = ?");
    read.bind(1, id_or_name);
    read.executeStep();
    return Read(read);
  });
}

Result<ApiKey> ApiKeyStore::Find(const std::string& key) {
  return GuardSqlite([&]() -> Result<ApiKey> {
    Statement s(db_, std::string("SELECT ") + kColumns + " FROM api_keys WHERE key_hash = ?");
    s.bind(1, Sha256Hex(key));
    if (!s.executeStep()) return Error::NotFound("unknown API key");
    return Read(s);
  });
}

}  // namespace gpuplan::db
