// Operator commands on a database file: API keys, bulk import, export.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

namespace gpuplan::db {
class Connection;
}  // namespace gpuplan::db

namespace gpuplan::server {

// Opens the database file at `path`, migrated and seeded (server/app.h PrepareDatabase);
// nullptr after printing "error: ..." on `err` when it cannot.
std::unique_ptr<db::Connection> OpenPreparedDatabase(const std::string& path, std::ostream& err);

// keys create: prints the new key once. Returns the exit code.
int KeysCreate(const std::string& db, const std::string& name, const std::string& scope,
               std::ostream& out, std::ostream& err);
int KeysList(const std::string& db, std::ostream& out, std::ostream& err);
int KeysRevoke(const std::string& db, const std::string& id_or_name, std::ostream& out,
               std::ostream& err);

struct ImportCommand {
  std::string db, format, cloud, file;
  bool dry_run = false, partial = false;
};
// Imports `file` like POST /api/v1/catalog/import (actor "cli"); prints the report as JSON.
int RunImport(const ImportCommand& command, std::ostream& out, std::ostream& err);

struct MeasurementsImportCommand {
  std::string db, file;
  std::string owner;  // API key name whose runs they are ("" = none: usable only if shared)
  bool shared = false;  // every row shared, whatever its `shared` column says
};
// Imports a CSV of measured runs (one transaction; any bad row refuses the file, naming its
// line and column). Columns: workload, gpu | cloud + instance_type, gpus_per_node, nodes,
// global_batch_size, micro_batch_size, precision, framework, one of samples_per_s,
// tokens_per_s, step_time_s, measured_on, note, shared. Prints the ids as JSON.
int RunMeasurementsImport(const MeasurementsImportCommand& command, std::ostream& out,
                          std::ostream& err);

// Writes the catalog as gpuplan JSON or CSV to `out`.
int RunExport(const std::string& db, const std::string& format, std::ostream& out,
              std::ostream& err);

}  // namespace gpuplan::server
