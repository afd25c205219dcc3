// Parser of the SkyPilot catalog format (`vms.csv` of skypilot-org/skypilot-catalog),
// for any cloud. Columns are matched by header name. Rules:
//  - A row with InstanceType and AcceleratorName is a GPU instance (AWS, Azure, Lambda...).
//    On-demand price of a region = the cheapest row; spot is kept per availability zone.
//  - A row with AcceleratorName but no InstanceType is a GPU bundle that attaches to a
//    host VM of the same zone (GCP). A host row (no AcceleratorName) becomes an offer
//    when `GcpAttachRules` says which GPUs it carries (A2/A3/A4/G2), or, for N1 hosts,
//    for each listed usual combination "host+NxGPU". Price = host + bundle, per zone.
//  - An empty price means "not offered", never zero. An accelerator that is not a known
//    GPU, or a fractional GPU count, skips the row (counted by reason). A malformed
//    number or a row without a region rejects the row (listed with its line).
//  - Spot prices above the region's on-demand price are kept and counted.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "db/catalog_batch.h"
#include "db/csv.h"
#include "db/gpu_resolver.h"
#include "model/result.h"

namespace gpuplan::db {

struct GcpAttachRules {
  // machine type -> (accelerator name, count) it always carries
  std::map<std::string, std::pair<std::string, int>> machine_gpus;
  // (accelerator name, count) -> N1 host machine types it is usually attached to
  std::multimap<std::pair<std::string, int>, std::string> n1_hosts;
};

struct SkypilotOptions {
  std::string cloud;        // the cloud the file describes, e.g. "aws"
  std::string observed_at;  // date stamped on every price observation
  std::string source;       // attribution stamped on every record
  std::string currency = "USD";
  const GcpAttachRules* attach = nullptr;  // host + GPU composition rules, if any
};

// The offer name of an N1 host with attached GPUs, e.g. "n1-standard-8+1xT4".
std::string AttachedOfferName(const std::string& host, int count,
                              const std::string& accelerator);

// Fails (kInvalidArgument naming the column) when a required column is missing:
// InstanceType, AcceleratorName, AcceleratorCount, Region, Price, SpotPrice; naming "rows"
// when the table has more than kMaxImportRows data rows (db/catalog_caps.h).
Result<CatalogBatch> ParseSkypilotCatalog(const CsvTable& table, const SkypilotOptions& options,
                                          const GpuResolver& resolver);

}  // namespace gpuplan::db
