// Parser of the flat instance-price CSV: one row per (cloud, region, instance type) with
// columns cloud, region, instance_type, gpu, gpu_count, vcpus, memory_gib,
// price_ondemand, price_spot, currency, price_date, source (optional: zone,
// gpu_memory_gb). This is the format of the seeded Alibaba/Huawei file. A row with an
// empty region describes the instance type only. `gpu` is resolved through the synonym
// table of the row's cloud; unknown GPUs skip the row (counted), malformed fields
// reject it (listed with its line and column).
#pragma once

#include "db/catalog_batch.h"
#include "db/csv.h"
#include "db/gpu_resolver.h"
#include "model/result.h"

namespace gpuplan::db {

// Fails (kInvalidArgument naming the column) when a required column is missing:
// cloud, region, instance_type, gpu, gpu_count, price_ondemand, currency, price_date.
Result<CatalogBatch> ParseFlatInstanceCsv(const CsvTable& table, const GpuResolver& resolver);

}  // namespace gpuplan::db
