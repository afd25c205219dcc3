// The rows of `aws ec2 describe-spot-price-history` as catalog spot prices: Linux prices of
// instance types the catalog has (others are skipped, counted in the report), each row
// checked by db/field_rules.h (bad rows are rejected rows of the report, line = position
// + 1). The JSON document itself is read by the api layer (api/catalog_io.h).
// Reads the catalog through `catalog` (one lookup per distinct instance type); errors:
// kUnavailable when it fails. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "db/catalog_batch.h"
#include "db/catalog_reader.h"
#include "model/result.h"

namespace gpuplan::db {

// One row of the document, its members as text (empty when absent or not a string).
struct AwsSpotRow {
  bool is_object = true;  // false: the row is not a JSON object (rejected)
  std::string availability_zone, instance_type, product_description, spot_price, timestamp;
};

// The spot prices of `rows` for `cloud` (USD, per instance-hour), stamped with `source`.
Result<CatalogBatch> ParseAwsSpotHistory(const std::vector<AwsSpotRow>& rows,
                                         const std::string& cloud, const std::string& source,
                                         CatalogReader& catalog);

}  // namespace gpuplan::db
