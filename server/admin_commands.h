// Operator commands on a database file: API keys, bulk import, export.
#pragma once

#include <iosfwd>
#include <string>

namespace gpuplan::server {

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

// Writes the catalog as gpuplan JSON or CSV to `out`.
int RunExport(const std::string& db, const std::string& format, std::ostream& out,
              std::ostream& err);

}  // namespace gpuplan::server
