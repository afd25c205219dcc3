// Reads serving_calibration.csv (published vLLM serving runs, db/seed/serving_calibration.md)
// into serving runs: each run's model mapped to a workload preset, its GPU to a GPU spec, its
// engine settings and request stream to the simulation's terms, its figures to measurements.
#pragma once

#include <vector>

#include "db/catalog_batch.h"
#include "db/csv.h"
#include "db/gpu_resolver.h"
#include "model/result.h"
#include "model/serving_calibration.h"

namespace gpuplan::db {

struct ServingCalibrationData {
  std::vector<model::ServingRun> runs;
  std::vector<RowIssue> skipped;  // rows that could not be mapped, with the reason
};

Result<ServingCalibrationData> LoadServingCalibrationData(const CsvTable& table,
                                                          const GpuResolver& resolver);

// The embedded serving_calibration.csv, parsed.
Result<ServingCalibrationData> LoadEmbeddedServingCalibrationData();

}  // namespace gpuplan::db
