// What a parser of an external catalog format produces, and its report. A batch is
// written to the database by WriteCatalogBatch in the caller's transaction.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "db/catalog_types.h"
#include "model/gpu_spec.h"

namespace gpuplan::db {

struct RowIssue {
  int line = 0;        // 1-based line in the source file
  std::string reason;  // readable; names the column where one is at fault
};

struct ImportReport {
  int rows_read = 0;
  int rows_used = 0;       // rows that contributed an instance type or a price
  int rows_skipped = 0;    // rows deliberately left out (counted by reason)
  int rows_rejected = 0;   // rows that are malformed (listed in `rejected`)
  std::map<std::string, int> skipped_by_reason;
  std::vector<RowIssue> rejected;
  int spot_above_ondemand = 0;  // spot observations priced above the region's on-demand
  // Rows used after a data-error rule changed a value (a 0.0 price read as missing, a GPU
  // count corrected to the published size, a placeholder vCPU figure dropped...), by rule.
  std::map<std::string, int> corrected_by_reason;

  void Skip(const std::string& reason) {
    ++rows_skipped;
    ++skipped_by_reason[reason];
  }
  void Correct(const std::string& reason) { ++corrected_by_reason[reason]; }
  void Reject(int line, std::string reason) {
    ++rows_rejected;
    rejected.push_back({line, std::move(reason)});
  }
};

struct CatalogBatch {
  // Reference data, written first (the native gpuplan format carries them).
  std::vector<model::GpuSpec> gpus;
  std::vector<Cloud> clouds;
  std::vector<Region> regions;
  std::vector<FxRate> fx_rates;
  std::vector<InstanceType> instance_types;  // unique by (cloud, id)
  std::vector<PriceObservation> prices;
  // Spot interruption bands (db/spot_bands.h): they replace every band of each (cloud,
  // region) they name.
  std::vector<SpotBand> spot_bands;
  // cloud -> "cloud" when the file lists every instance type at one price in every region
  // it names (Lambda, OCI), else "region"; set by parsers that can tell (db/skypilot_parser.h).
  std::map<std::string, std::string> price_scopes;
  ImportReport report;
};

}  // namespace gpuplan::db
