// The CSV importers below the HTTP layer: db::ParseCsv, then db::ParseSkypilotCatalog
// (as cloud "aws" without host rules, and as "gcp" with the seed's GcpAttachRules) and
// db::ParseFlatInstanceCsv, with the GPU resolver of the seeded catalog (GPU ids and the
// synonym table; built once). Each batch is checked with db::rules::CheckBatch (what
// ImportCatalog does before writing); errors go through the problem renderer.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "db/csv.h"
#include "db/field_rules.h"
#include "db/flat_csv_parser.h"
#include "db/seeder.h"
#include "db/skypilot_parser.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

struct Context {
  db::GpuResolver resolver;
  db::GcpAttachRules attach;
};

const Context& TheContext() {
  static const Context* context = [] {
    auto* c = new Context;
    auto resolver = SeededStore().LoadGpuResolver();
    if (!resolver.ok()) Fail("cannot load the GPU resolver", resolver.error().message);
    c->resolver = std::move(resolver).value();
    auto rules = db::LoadGcpAttachRules();
    if (!rules.ok()) Fail("cannot load the GCP attach rules", rules.error().message);
    c->attach = std::move(rules).value();
    return c;
  }();
  return *context;
}

void CheckBatch(const Result<db::CatalogBatch>& batch) {
  if (!batch.ok()) return CheckRejection(batch.error(), "a CSV parser");
  const db::ImportReport& r = batch->report;
  Require(r.rows_read >= 0 && r.rows_used >= 0 && r.rows_skipped >= 0 && r.rows_rejected >= 0,
          "an import report with a negative count");
  Require(static_cast<size_t>(r.rows_rejected) == r.rejected.size(),
          "rows_rejected does not match the rejected list");
  Status valid = db::rules::CheckBatch(*batch, kFixedNow);
  if (!valid.ok()) CheckError(valid.error());
  if (!r.rejected.empty()) {
    Error e{ErrorCode::kInvalidArgument, "rows are invalid", {}};
    for (const db::RowIssue& issue : r.rejected) {
      if (e.fields.size() == 100) break;
      e.fields.push_back({"line " + std::to_string(issue.line), issue.reason});
    }
    CheckError(e);
  }
}

}  // namespace
}  // namespace gpuplan::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gpuplan::fuzz::TheContext();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  auto table = db::ParseCsv(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!table.ok()) {
    CheckRejection(table.error(), "ParseCsv");
    return 0;
  }
  int last_line = 1;
  for (const db::CsvRow& row : table->rows()) {
    // (>=, not >: with CR-only line ends several rows share one physical line)
    Require(row.line >= last_line, "CSV rows whose start lines go backwards");
    last_line = row.line;
  }
  const Context& context = TheContext();
  db::SkypilotOptions options;
  options.cloud = "aws";
  options.observed_at = "2026-11-01";
  options.source = "fuzz";
  CheckBatch(db::ParseSkypilotCatalog(*table, options, context.resolver));
  options.cloud = "gcp";
  options.attach = &context.attach;
  CheckBatch(db::ParseSkypilotCatalog(*table, options, context.resolver));
  CheckBatch(db::ParseFlatInstanceCsv(*table, context.resolver));
  return 0;
}
