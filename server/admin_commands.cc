#include "server/admin_commands.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "api/catalog_export_writer.h"
#include "api/catalog_io.h"
#include "db/api_keys.h"
#include "db/catalog_export.h"
#include "db/catalog_import.h"
#include "db/catalog_store.h"
#include "db/catalog_writer.h"
#include "db/database.h"
#include "server/app.h"

namespace gpuplan::server {

namespace {

// Opens a prepared (migrated, seeded) database, or prints why not.
std::unique_ptr<SQLite::Database> Open(const std::string& path, std::ostream& err) {
  Status prepared = PrepareDatabase(path);
  if (!prepared.ok()) {
    err << "error: " << prepared.error().message << "\n";
    return nullptr;
  }
  auto db = db::OpenDatabase(path);
  if (!db.ok()) {
    err << "error: " << db.error().message << "\n";
    return nullptr;
  }
  return std::move(db).value();
}

int Fail(const Error& e, std::ostream& err) {
  err << "error: " << e.message << "\n";
  for (const auto& f : e.fields) err << "  " << f.field << ": " << f.detail << "\n";
  return e.code == ErrorCode::kInvalidArgument || e.code == ErrorCode::kConflict ||
                 e.code == ErrorCode::kNotFound
             ? 2
             : 1;
}

}  // namespace

int KeysCreate(const std::string& path, const std::string& name, const std::string& scope,
               std::ostream& out, std::ostream& err) {
  auto db = Open(path, err);
  if (!db) return 1;
  auto key = db::ApiKeyStore(*db).Create(name, scope);
  if (!key.ok()) return Fail(key.error(), err);
  out << key->key << "\n";
  err << "created API key '" << key->record.name << "' (id " << key->record.id << ", scope "
      << key->record.scope << "). It is shown once; only its hash is stored.\n";
  return 0;
}

int KeysList(const std::string& path, std::ostream& out, std::ostream& err) {
  auto db = Open(path, err);
  if (!db) return 1;
  auto keys = db::ApiKeyStore(*db).List();
  if (!keys.ok()) return Fail(keys.error(), err);
  out << "id\tname\tscope\tprefix\tcreated_at\trevoked_at\n";
  for (const auto& k : *keys) {
    out << k.id << "\t" << k.name << "\t" << k.scope << "\t" << k.prefix << "\t" << k.created_at
        << "\t" << k.revoked_at.value_or("-") << "\n";
  }
  return 0;
}

int KeysRevoke(const std::string& path, const std::string& id_or_name, std::ostream& out,
               std::ostream& err) {
  auto db = Open(path, err);
  if (!db) return 1;
  auto key = db::ApiKeyStore(*db).Revoke(id_or_name);
  if (!key.ok()) return Fail(key.error(), err);
  out << "revoked API key '" << key->name << "' (id " << key->id << ")\n";
  return 0;
}

int RunImport(const ImportCommand& c, std::ostream& out, std::ostream& err) {
  std::ifstream file(c.file, std::ios::binary);
  if (!file) {
    err << "error: cannot read " << c.file << "\n";
    return 1;
  }
  std::stringstream buffer;
  buffer << file.rdbuf();
  auto db = Open(c.db, err);
  if (!db) return 1;
  db::CatalogStore store(*db);
  api::ImportRequest request{c.format, c.cloud, db::UtcNow(), "import by cli at " + db::UtcNow()};
  auto batch = api::ParseImport(request, buffer.str(), store);
  if (!batch.ok()) return Fail(batch.error(), err);
  std::string cloud = c.cloud.empty() && c.format == "aws-spot-history" ? "aws" : c.cloud;
  auto outcome = db::ImportCatalog(*db, *batch, db::ImportOptions{"cli", c.format, cloud, c.dry_run, c.partial});
  if (!outcome.ok()) return Fail(outcome.error(), err);
  const db::BatchCounts& k = outcome->counts;
  nlohmann::json report = {{"written", outcome->written},
                           {"rows", {{"read", outcome->report.rows_read},
                                     {"accepted", outcome->report.rows_used},
                                     {"skipped", outcome->report.rows_skipped},
                                     {"rejected", outcome->report.rows_rejected}}},
                           {"skipped_by_reason", outcome->report.skipped_by_reason},
                           {"instance_types", {{"inserted", k.instance_types.inserted},
                                               {"updated", k.instance_types.updated}}},
                           {"prices", {{"inserted", k.prices.inserted}, {"updated", k.prices.updated}}}};
  out << report.dump(2) << "\n";
  return 0;
}

int RunExport(const std::string& path, const std::string& format, std::ostream& out,
              std::ostream& err) {
  auto db = Open(path, err);
  if (!db) return 1;
  auto snapshot = db::CatalogSnapshot::Open(*db);
  if (!snapshot.ok()) return Fail(snapshot.error(), err);
  auto writer = api::ExportWriter::Start(std::move(snapshot).value(),
                                         format == "csv" ? api::ExportFormat::kCsv
                                                         : api::ExportFormat::kJson,
                                         db::UtcNow());
  if (!writer.ok()) return Fail(writer.error(), err);
  try {
    std::string piece;
    while ((*writer)->Next(piece)) {
      out << piece;
      piece.clear();
    }
  } catch (const std::exception&) {
    return Fail(Error::Unavailable("the catalog could not be read"), err);
  }
  if (format != "csv") out << "\n";
  return 0;
}

}  // namespace gpuplan::server
