#include "server/admin_commands.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "server/cli_errors.h"
#include "api/catalog_export_writer.h"
#include "api/catalog_io.h"
#include "api/field_names.h"
#include "db/api_keys.h"
#include "db/catalog_export.h"
#include "db/catalog_import.h"
#include "db/catalog_store.h"
#include "db/catalog_writer.h"
#include "db/cached_catalog.h"
#include "db/csv.h"
#include "db/database.h"
#include "db/measurements.h"
#include "api/measurements.h"
#include "server/app.h"

namespace gpuplan::server {

std::unique_ptr<db::Connection> OpenPreparedDatabase(const std::string& path, std::ostream& err) {
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

namespace {

// One CSV row of measured runs as the JSON body POST /api/v1/measurements takes.
nlohmann::json RunBody(const db::CsvTable& table, const db::CsvRow& row, bool all_shared) {
  auto field = [&](const char* name) {
    return std::string(db::CsvTable::Field(row, table.Column(name)));
  };
  auto number = [&](const char* name, nlohmann::json& into, const char* key) {
    std::string v = field(name);
    if (v.empty()) return;
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (end && *end == '\0') {
      into[key] = d;
    } else {
      into[key] = v;  // the decoder names the field and says it is not a number
    }
  };
  nlohmann::json body = nlohmann::json::object();
  body["workload"] = field("workload");
  nlohmann::json hardware = nlohmann::json::object();
  if (!field("instance_type").empty() || !field("cloud").empty()) {
    hardware["cloud"] = field("cloud");
    hardware["instance_type"] = field("instance_type");
  } else {
    hardware["gpu"] = field("gpu");
    number("gpus_per_node", hardware, "gpus_per_node");
  }
  number("nodes", hardware, "nodes");
  body["hardware"] = hardware;
  number("global_batch_size", body, "global_batch_size");
  number("micro_batch_size", body, "micro_batch_size");
  for (const char* key : {"precision", "framework", "measured_on", "note"}) {
    if (!field(key).empty()) body[key] = field(key);
  }
  nlohmann::json measured = nlohmann::json::object();
  for (const char* key : {"samples_per_s", "tokens_per_s", "step_time_s"}) {
    number(key, measured, key);
  }
  body["measured"] = measured;
  std::string shared = field("shared");
  body["shared"] = all_shared || shared == "true" || shared == "1" || shared == "yes";
  return body;
}

}  // namespace

int RunMeasurementsImport(const MeasurementsImportCommand& command, std::ostream& out,
                          std::ostream& err) {
  std::ifstream in(command.file, std::ios::binary);
  if (!in) {
    err << "error: cannot read " << command.file << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto table = db::ParseCsv(text.str());
  if (!table.ok()) return ReportError(table.error(), err);
  auto db = OpenPreparedDatabase(command.db, err);
  if (!db) return 1;
  std::optional<long long> owner;
  if (!command.owner.empty()) {
    auto keys = db::ApiKeyStore(*db).List();
    if (!keys.ok()) return ReportError(keys.error(), err);
    for (const auto& k : *keys) {
      if (k.name == command.owner) owner = k.id;
    }
    if (!owner) {
      err << "error: no API key named '" << command.owner << "' (see gpuplan keys list)\n";
      return 2;
    }
  }
  std::vector<db::Measurement> rows;
  std::vector<FieldError> errors;
  db::CachedCatalog catalog(*db);
  for (const db::CsvRow& row : table->rows()) {
    auto run = api::DecodeMeasurement(RunBody(*table, row, command.shared));
    Status checked = run.ok() ? api::CheckRun(catalog, *run) : Status(run.error());
    if (!checked.ok()) {
      for (const FieldError& f : checked.error().fields) {
        errors.push_back({"line " + std::to_string(row.line) + " " + api::WireName(f), f.detail});
      }
      if (checked.error().fields.empty()) {
        errors.push_back({"line " + std::to_string(row.line), checked.error().message});
      }
      continue;
    }
    run->row.owner_key_id = owner;
    rows.push_back(run->row);
  }
  if (!errors.empty()) {
    return ReportError(Error{ErrorCode::kInvalidArgument,
                      std::to_string(errors.size()) + " problem(s); nothing was imported", errors},
                err);
  }
  if (rows.empty()) {
    err << "error: the file has no runs\n";
    return 2;
  }
  auto stored = db::MeasurementStore(*db).Add(rows, "row ");
  if (!stored.ok()) return ReportError(stored.error(), err);
  nlohmann::json ids = nlohmann::json::array();
  for (const auto& m : *stored) ids.push_back(m.id);
  out << nlohmann::json{{"imported", stored->size()}, {"ids", ids}}.dump() << "\n";
  return 0;
}

int KeysCreate(const std::string& path, const std::string& name, const std::string& scope,
               std::ostream& out, std::ostream& err) {
  auto db = OpenPreparedDatabase(path, err);
  if (!db) return 1;
  auto key = db::ApiKeyStore(*db).Create(name, scope);
  if (!key.ok()) return ReportError(key.error(), err);
  out << key->key << "\n";
  err << "created API key '" << key->record.name << "' (id " << key->record.id << ", scope "
      << key->record.scope << "). It is shown once; only its hash is stored.\n";
  return 0;
}

int KeysList(const std::string& path, std::ostream& out, std::ostream& err) {
  auto db = OpenPreparedDatabase(path, err);
  if (!db) return 1;
  auto keys = db::ApiKeyStore(*db).List();
  if (!keys.ok()) return ReportError(keys.error(), err);
  out << "id\tname\tscope\tprefix\tcreated_at\trevoked_at\n";
  for (const auto& k : *keys) {
    out << k.id << "\t" << k.name << "\t" << k.scope << "\t" << k.prefix << "\t" << k.created_at
        << "\t" << k.revoked_at.value_or("-") << "\n";
  }
  return 0;
}

int KeysRevoke(const std::string& path, const std::string& id_or_name, std::ostream& out,
               std::ostream& err) {
  auto db = OpenPreparedDatabase(path, err);
  if (!db) return 1;
  auto key = db::ApiKeyStore(*db).Revoke(id_or_name);
  if (!key.ok()) return ReportError(key.error(), err);
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
  auto db = OpenPreparedDatabase(c.db, err);
  if (!db) return 1;
  db::CatalogStore store(*db);
  api::ImportRequest request{c.format, c.cloud, db::UtcNow(), "import by cli at " + db::UtcNow()};
  auto batch = api::ParseImport(request, buffer.str(), store);
  if (!batch.ok()) return ReportError(batch.error(), err);
  std::string cloud = api::ImportCloud(c.format, c.cloud);
  auto outcome = db::ImportCatalog(*db, *batch, db::ImportOptions{"cli", c.format, cloud, c.dry_run, c.partial});
  if (!outcome.ok()) return ReportError(outcome.error(), err);
  const db::BatchCounts& k = outcome->counts;
  nlohmann::json report = {{"written", outcome->written},
                           {"rows", {{"read", outcome->report.rows_read},
                                     {"accepted", outcome->report.rows_used},
                                     {"skipped", outcome->report.rows_skipped},
                                     {"rejected", outcome->report.rows_rejected}}},
                           {"skipped_by_reason", outcome->report.skipped_by_reason},
                           {"instance_types", {{"inserted", k.instance_types.inserted},
                                               {"updated", k.instance_types.updated}}},
                           {"prices", {{"inserted", k.prices.inserted}, {"updated", k.prices.updated}}},
                           {"spot_bands", k.spot_bands}};
  out << report.dump(2) << "\n";
  return 0;
}

int RunExport(const std::string& path, const std::string& format, std::ostream& out,
              std::ostream& err) {
  auto db = OpenPreparedDatabase(path, err);
  if (!db) return 1;
  auto snapshot = db::CatalogSnapshot::Open(*db);
  if (!snapshot.ok()) return ReportError(snapshot.error(), err);
  auto writer = api::ExportWriter::Start(std::move(snapshot).value(),
                                         format == "csv" ? api::CatalogExportFormat::kCsv
                                                         : api::CatalogExportFormat::kJson,
                                         db::UtcNow());
  if (!writer.ok()) return ReportError(writer.error(), err);
  try {
    std::string piece;
    while ((*writer)->Next(piece)) {
      out << piece;
      piece.clear();
    }
  } catch (const std::exception&) {
    return ReportError(Error::Unavailable("the catalog could not be read"), err);
  }
  if (format != "csv") out << "\n";
  return 0;
}

}  // namespace gpuplan::server
