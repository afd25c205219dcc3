#include "db/catalog_import.h"

#include <ctime>
#include <optional>

#include "db/catalog_caps.h"
#include "db/field_rules.h"
#include "db/sql.h"
#include "db/write_transaction.h"

namespace gpuplan::db {

namespace {

ImportAudit AuditRow(const ImportOptions& o, const std::string& started, const ImportReport& r,
                     const BatchCounts& c, const std::string& note) {
  return ImportAudit{o.actor, o.format, o.cloud, started, UtcNow(), r.rows_used,
                     c.instance_types.updated + c.prices.updated, r.rows_skipped,
                     r.rows_rejected, o.dry_run, note};
}

// An audit row of an import that wrote nothing, in a transaction of its own.
void AuditAlone(Connection& db, const ImportAudit& audit) {
  WriteTransaction tx(db);
  RecordImport(db, audit);
  tx.commit();
}

// The error of an import that a write committed since its pre-check would take past a cap
// (db/catalog_caps.h), after its transaction rolled back; the audit row says so.
Error Refused(Connection& db, const ImportOptions& options, const std::string& started,
              const ImportOutcome& out, const Error& over_cap) {
  AuditAlone(db, AuditRow(options, started, out.report, BatchCounts{},
                          "refused: " + over_cap.message));
  return over_cap;
}

}  // namespace

Result<ImportOutcome> ImportCatalog(Connection& db, const CatalogBatch& batch,
                                    const ImportOptions& options,
                                    const std::function<void(const ImportOutcome&)>& before_commit) {
  std::string started = UtcNow();
  ImportOutcome out;
  out.report = batch.report;
  Status valid = rules::CheckBatch(batch, std::time(nullptr));
  if (!valid.ok()) return valid.error();
  // Before the write lock: an import too large by itself never holds it.
  Status size = CheckImportSize(batch);
  if (!size.ok()) return size.error();
  try {
    if (!batch.report.rejected.empty() && !options.partial) {
      AuditAlone(db, AuditRow(options, started, out.report, out.counts,
                              "refused: rejected rows, nothing written"));
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
    // Before the write lock: an import that would take the catalog past a cap never holds
    // it (nothing written, no audit row); checked again inside the transaction for a write
    // that committed in between.
    CatalogCount counted;
    Status fits = PrecheckCatalogSize(db, batch, counted);
    if (!fits.ok()) return fits.error();
    if (options.dry_run) {
      Status capped = OkStatus();
      {
        WriteTransaction tx(db);
        capped = CheckCatalogSize(db, batch, counted);
        if (capped.ok()) out.counts = WriteCatalogBatch(db, batch);
      }  // rolls back: a dry run only counts
      if (!capped.ok()) return Refused(db, options, started, out, capped.error());
      AuditAlone(db, AuditRow(options, started, out.report, out.counts, "dry run: nothing written"));
      if (before_commit) before_commit(out);
      return out;
    }
    // The data and its audit row commit together, and the answer is made before the
    // commit: once committed, nothing is left that could fail.
    std::optional<WriteTransaction> tx(std::in_place, db);
    Status capped = CheckCatalogSize(db, batch, counted);
    if (!capped.ok()) {
      tx.reset();  // rolls back before the refusal is audited in a transaction of its own
      return Refused(db, options, started, out, capped.error());
    }
    out.counts = WriteCatalogBatch(db, batch);
    RecordImport(db, AuditRow(options, started, out.report, out.counts, ""));
    out.written = true;
    if (before_commit) before_commit(out);
    tx->commit();
    RefreshPlannerStatistics(db);
    return out;
  } catch (const SqlError& e) {
    Error err = StorageError(e, "the import");
    err.message += "; nothing was written";
    return err;
  }
}

}  // namespace gpuplan::db
