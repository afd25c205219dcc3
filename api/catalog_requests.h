// Pieces of the catalog write/history routes that the fuzz targets call directly, so they
// exercise the server's own code rather than a copy: the spot-history query reader and
// the import report.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/query_params.h"
#include "db/catalog_import.h"
#include "db/catalog_store.h"
#include "model/result.h"

namespace gpuplan::api {

struct SpotHistoryQuery {
  db::CatalogStore::SpotQuery query;  // `after` set from the cursor, `limit` as asked
  std::string fingerprint;            // of the filters, for the next cursor
};

// Reads cloud, instance_type (both required), region, zone, since, until, limit (1..10 000,
// default 1 000) and cursor from `q`; kInvalidArgument naming each bad parameter.
Result<SpotHistoryQuery> ReadSpotHistoryQuery(QueryParams& q);

// The answer to an import: options echoed, row counts, rejected rows, written counts.
nlohmann::json ImportReportJson(const db::ImportOutcome& outcome, const db::ImportOptions& options);

}  // namespace gpuplan::api
