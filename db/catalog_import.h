// Writing a parsed import in one transaction: all rows or none (unless partial), a dry
// run that writes nothing, and an `imports` audit row in every case.
#pragma once

#include <SQLiteCpp/Database.h>

#include <string>

#include "db/catalog_batch.h"
#include "db/catalog_writer.h"
#include "model/result.h"

namespace gpuplan::db {

struct ImportOptions {
  std::string actor;  // API key name, or "cli"
  std::string format;
  std::string cloud;
  bool dry_run = false;
  bool partial = false;  // keep valid rows when some are rejected
};

struct ImportOutcome {
  ImportReport report;
  BatchCounts counts;
  bool written = false;  // false for dry runs and refused imports
};

// With rejected rows and !partial, nothing is written and the result is kInvalidArgument
// listing up to 100 rejected rows as fields "line N" (the audit row is still recorded).
Result<ImportOutcome> ImportCatalog(SQLite::Database& db, const CatalogBatch& batch,
                                    const ImportOptions& options);

}  // namespace gpuplan::db
