// Parser of gpus.csv (the GPU spec sheet): columns by header name; numbers that are
// "n/a" or empty mean "the GPU has no such unit" and read as 0 (launch_price_usd: "n/a" or
// empty is "no published price", nullopt).
#pragma once

#include <vector>

#include "db/csv.h"
#include "model/gpu_spec.h"
#include "model/result.h"

namespace gpuplan::db {

// Fails with kInvalidArgument naming the line and column of the first bad row.
Result<std::vector<model::GpuSpec>> ParseGpuCsv(const CsvTable& table);

}  // namespace gpuplan::db
