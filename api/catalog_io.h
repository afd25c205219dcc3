// The catalog's import formats: the native gpuplan JSON (lossless; exported by
// api/catalog_export_writer.h), AWS `describe-spot-price-history` JSON, the AWS Spot
// Instance Advisor's spot-advisor-data.json (interruption bands, db/spot_bands.h) and
// SkyPilot CSV,
// and the bodies of single-resource writes. JSON lives here, not in db/.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/catalog_batch.h"
#include "db/csv.h"
#include "db/catalog_store.h"
#include "model/result.h"

namespace gpuplan::api {

// Writes' bodies. `path_id` (from the URL) wins; a different id in the body is an error.
Result<model::GpuSpec> DecodeGpu(const nlohmann::json& body, const std::string& path_id);
Result<db::InstanceType> DecodeInstanceType(const nlohmann::json& body,
                                            const std::string& path_cloud,
                                            const std::string& path_id);
// {"prices": [...]} with at most `max_items`; observed_at defaults to `now`.
Result<std::vector<db::PriceObservation>> DecodePrices(const nlohmann::json& body,
                                                       const std::string& now, size_t max_items);

// The same, keeping going past bad items: every error found, and the items that decoded
// with their positions in the request (so their own checks can be reported at once).
struct DecodedPrices {
  std::vector<db::PriceObservation> items;
  std::vector<size_t> index;  // items[k] is prices[index[k]] of the request
  std::vector<FieldError> errors;
};
DecodedPrices DecodeEveryPrice(const nlohmann::json& body, const std::string& now,
                               size_t max_items);

struct ImportRequest {
  std::string format;       // skypilot | aws-spot-history | aws-spot-advisor | gpuplan
  std::string cloud;        // required for skypilot; aws by default for the aws-* formats
  std::string observed_at;  // stamped on SkyPilot prices and spot bands (default: now)
  std::string source;       // attribution stamped on imported records
};

// The cloud an import of `format` writes: `cloud`, or "aws" for the aws-* formats when
// `cloud` is empty.
std::string ImportCloud(const std::string& format, const std::string& cloud);

// Parses an import body into a batch: malformed documents are errors (naming the line or
// pointer); malformed rows are rejected rows of the batch's report.
Result<db::CatalogBatch> ParseImport(const ImportRequest& request, const std::string& body,
                                     db::CatalogStore& store);

// The skypilot format of ParseImport over a table already read (`gpuplan catalog refresh`
// leaves out rows without a GPU first): the same checks, resolver and GCP attach rules.
Result<db::CatalogBatch> ParseSkypilotTable(const ImportRequest& request,
                                            const db::CsvTable& table, db::CatalogStore& store);

}  // namespace gpuplan::api
