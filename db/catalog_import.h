// Writing a parsed import in one BEGIN IMMEDIATE transaction: all rows or none (unless
// partial), a dry run that writes nothing, and an `imports` audit row in every case. The
// audit row of a written import is in the same transaction as its data, so a crash leaves
// both or neither.
#pragma once

#include <functional>
#include <string>

#include "db/catalog_batch.h"
#include "db/catalog_writer.h"
#include "db/sql.h"
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

// The batch is first checked against db/field_rules.h (kInvalidArgument naming
// "/<table>/<i>/<field>" when a parser let something through). With rejected rows and
// !partial, nothing is written and the result is kInvalidArgument listing up to 100
// rejected rows as fields "line N" (the audit row is still recorded). Caps
// (db/catalog_caps.h): a batch over a cap by itself is kInvalidArgument naming "rows",
// "instance_types" or "prices" before any transaction (no audit row, as for CheckBatch);
// one that would take the catalog past a cap is the same error after its transaction
// rolled back (a dry run too), with an audit row saying so. `before_commit`,
// when given, runs with the outcome just before the commit (for a dry run: after the
// rollback), so a caller can build its answer while the write can still be undone; if it
// throws, nothing is written. Busy after the busy timeout: kUnavailable.
Result<ImportOutcome> ImportCatalog(Connection& db, const CatalogBatch& batch,
                                    const ImportOptions& options,
                                    const std::function<void(const ImportOutcome&)>& before_commit = {});

}  // namespace gpuplan::db
