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
// Data-error rules (issue 27; each counted in report.corrected_by_reason or
// skipped_by_reason, never silent):
//  - A price of 0 (0.0, "0.00") is missing, not free: GCP a4-highgpu-8g hosts, Vast's spot
//    placeholder. A row left with neither price is skipped; one with only a spot price is a
//    spot-only offer.
//  - A fractional AcceleratorCount (AWS g6f/gr6f: 0.125..0.5 of an L4) is skipped.
//  - `sizes` (db/seed/instance_gpus.csv): an instance type whose published size names another
//    GPU or count than the row (Azure v6 lists Standard_ND96isr_H100_v5 with 12 GPUs; it has
//    8) is corrected to the published one.
//  - GpuInfo memory (normalised by db/gpu_info.h) that contradicts the resolved GPU's spec by
//    more than 10 % skips the row: the name is then not that GPU (an 8 GB RTX 3060 Ti named
//    "RTX3060", a 48 GB card named "RTX4090").
//  - vCPUs and MemoryGiB that only repeat the type name's "-<vCPUs>-<MiB>" suffix (Vast's
//    "1x-H200-32-65536" at 32 / 64.0) are placeholders: left unknown.
//  - A region written as a location, "Texas, US, NA" (Vast), becomes region "us-texas" with
//    its country and continent (db/location_region.h), added to batch.regions.
//  - batch.price_scopes[cloud] = "cloud" when some instance type is listed in two regions or
//    more and no type has two different on-demand prices (Lambda, OCI), else "region".
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

// Published instance sizes: (cloud, instance type) -> the GPU and count the cloud's own size
// table gives, with that table as the source (db/seed/instance_gpus.csv).
struct PublishedSize {
  std::string gpu_id;
  int gpu_count = 0;
  std::string source;
};
using PublishedSizes = std::map<std::pair<std::string, std::string>, PublishedSize>;

struct SkypilotOptions {
  std::string cloud;        // the cloud the file describes, e.g. "aws"
  std::string observed_at;  // date stamped on every price observation
  std::string source;       // attribution stamped on every record
  std::string currency = "USD";
  const GcpAttachRules* attach = nullptr;  // host + GPU composition rules, if any
  const PublishedSizes* sizes = nullptr;   // published GPU counts, if any
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
