// POST /api/v1/catalog/import bodies: api::ParseImport against the seeded in-memory
// catalog for each format, then what PostImport does with the batch: db::ImportCatalog
// as a dry run with partial=true (db::rules::CheckBatch, then every write in a
// transaction that is rolled back) and the report rendered as JSON before the
// "commit". The catalog must be unchanged afterwards; the audit rows that dry runs leave
// are deleted so memory stays flat.
// Byte 0 chooses the request: format = b % 4 (skypilot, aws-spot-history, gpuplan,
// aws-spot-advisor); cloud = one of aws, gcp, azure, "" by (b / 4) % 4 (skypilot without a
// cloud is refused).

#include <cstddef>
#include <cstdint>

#include "api/catalog_io.h"
#include "api/catalog_requests.h"
#include "api/json_encode.h"
#include "db/catalog_import.h"
#include "db/sql.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

long long CatalogSize() {
  return SeededDatabase()
      .execAndGet("SELECT (SELECT count(*) FROM gpus) + (SELECT count(*) FROM clouds) + "
                  "(SELECT count(*) FROM regions) + (SELECT count(*) FROM fx_rates) + "
                  "(SELECT count(*) FROM instance_types) + (SELECT count(*) FROM prices) + "
                  "(SELECT count(*) FROM spot_interruption_bands)")
      .getInt64();
}

long long SeedSize() {
  static const long long size = CatalogSize();
  return size;
}

}  // namespace
}  // namespace gpuplan::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gpuplan::fuzz::SeedSize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  if (size == 0) return 0;
  static const char* kFormats[] = {"skypilot", "aws-spot-history", "gpuplan", "aws-spot-advisor"};
  static const char* kClouds[] = {"aws", "gcp", "azure", ""};
  api::ImportRequest request;
  request.format = kFormats[data[0] % 4];
  request.cloud = kClouds[(data[0] / 4) % 4];
  request.observed_at = "2026-11-01T00:00:00Z";
  request.source = "import by fuzz at 2026-11-01T00:00:00Z";
  std::string body = Text(data + 1, size - 1);

  auto batch = api::ParseImport(request, body, SeededStore());
  if (!batch.ok()) {
    CheckRejection(batch.error(), "ParseImport");
    return 0;
  }
  db::ImportOptions options{"fuzz", request.format,
                            request.cloud.empty() && request.format == "aws-spot-history" ? "aws"
                                                                                         : request.cloud,
                            /*dry_run=*/true, /*partial=*/true};
  std::string answer;
  auto outcome = db::ImportCatalog(SeededDatabase(), *batch, options, [&](const db::ImportOutcome& o) {
    answer = api::EncodeJson(api::ImportReportJson(o, options));
  });
  SeededDatabase().exec("DELETE FROM imports");
  if (!outcome.ok()) {
    CheckError(outcome.error());
  } else {
    Require(!outcome->written, "a dry run says it wrote");
    Require(!nlohmann::json::parse(answer, nullptr, false).is_discarded(),
            "the import report is not JSON", answer);
  }
  Require(CatalogSize() == SeedSize(), "a dry-run import changed the catalog");
  return 0;
}
