#include "db/catalog_import.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Transaction.h>

namespace gpuplan::db {

namespace {

void Audit(SQLite::Database& db, const ImportOptions& o, const std::string& started,
           const ImportReport& r, const BatchCounts& c, const std::string& note) {
  SQLite::Transaction tx(db);
  RecordImport(db, ImportAudit{o.actor, o.format, o.cloud, started, UtcNow(), r.rows_used,
                               c.instance_types.updated + c.prices.updated, r.rows_skipped,
                               r.rows_rejected, o.dry_run, note});
  tx.commit();
}

}  // namespace

Result<ImportOutcome> ImportCatalog(SQLite::Database& db, const CatalogBatch& batch,
                                    const ImportOptions& options) {
  std::string started = UtcNow();
  ImportOutcome out;
  out.report = batch.report;
  try {
    if (!batch.report.rejected.empty() && !options.partial) {
      Audit(db, options, started, out.report, out.counts, "refused: rejected rows, nothing written");
      Error e{ErrorCode::kInvalidArgument,
              std::to_string(batch.report.rows_rejected) +
                  " rows are invalid; nothing was imported (partial=true keeps the valid rows)",
              {}};
      for (const RowIssue& issue : batch.report.rejected) {
        if (e.fields.size() == 100) break;
        e.fields.push_back({"line " + std::to_string(issue.line), issue.reason});
      }
      return e;
    }
    {
      SQLite::Transaction tx(db);
      out.counts = WriteCatalogBatch(db, batch);
      if (!options.dry_run) {
        tx.commit();
        out.written = true;
      }
    }  // a dry run rolls back here
    Audit(db, options, started, out.report, out.counts,
          options.dry_run ? "dry run: nothing written" : "");
    return out;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(std::string("import failed, nothing written: ") + e.what());
  }
}

}  // namespace gpuplan::db
