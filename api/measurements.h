// Measured runs in and out of JSON: decoding a run (POST /api/v1/measurements, the CLI's CSV
// import), checking it against the model, rendering it, and loading the runs a caller may
// use into a training request. Field errors carry JSON pointers ("/measured/step_time_s").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>

#include "api/auth.h"
#include "api/json_writer.h"
#include "db/cached_catalog.h"
#include "db/catalog_reader.h"
#include "db/measurements.h"
#include "db/sql.h"
#include "model/result.h"
#include "plan/run_calibration.h"

namespace gpuplan::api {

struct RecordedRun {
  plan::MeasuredRun run;
  db::Measurement row;  // owner, gpu and counts are filled by CheckRun
  plan::RunPrediction prediction;
};

// A run body: a training request's workload, hardware, batch, precision (required, not
// auto), framework and layout, plus measured: {samples_per_s | tokens_per_s | step_time_s},
// note, measured_on (YYYY-MM-DD, default today) and shared (default false).
Result<RecordedRun> DecodeMeasurement(const nlohmann::json& body);
// Re-predicts the run (its GPU and hardware must exist) and fills the row's GPU and counts.
Status CheckRun(db::CatalogReader& catalog, RecordedRun& run);

// Whose measured runs a planning request may use: the API key's (and shared runs) when the
// request carries an Authorization header, shared runs only (`owner` none) when it does not.
// A key that is given must be valid: false after writing the 401/403.
bool MeasurementOwner(db::ConnectionPool& pool, const httplib::Request& req,
                      httplib::Response& res, std::optional<long long>& owner);

// Gives `request` the runs `owner` (an API key id; none = anonymous) may use: its own and
// shared ones (the planner picks those of the estimate's GPU and family). The newest stored
// runs (db::kMaxIndexedRuns bounds them, whoever owns them) are decoded and predicted once
// per catalog generation and kept in `catalog`'s snapshot (plan::MeasuredRunIndex); runs
// recorded since are added on the next request, so a planning request reads and decodes
// no runs itself. The request that finds the index out of date updates it on `db`
// (`catalog`'s connection); requests meanwhile do not wait: they use the index as it was,
// without the runs being added or, after a catalog write, the previous generation's
// (the same runs, predicted by the catalog before that write). Runs whose stored request
// no longer decodes or predicts are skipped. Errors: kUnavailable.
Status AttachMeasurements(db::CachedCatalog& catalog, db::Connection& db,
                          std::optional<long long> owner, plan::TrainingRequest& request);
// Other requests use no measured runs (estimates of training only are calibrated).
template <typename Request>
Status AttachMeasurements(db::CachedCatalog&, db::Connection&, std::optional<long long>,
                          Request&) {
  return OkStatus();
}
// Whether AttachMeasurements reads runs for `Request` (then the caller is identified).
template <typename Request>
inline constexpr bool kUsesMeasurements = std::is_same_v<Request, plan::TrainingRequest>;

void WriteMeasurement(JsonWriter& out, const db::Measurement& m,
                      const std::optional<plan::RunPrediction>& prediction);

}  // namespace gpuplan::api
