// Measured training runs: what a caller timed on real hardware, kept to calibrate later
// estimates of the same GPU and workload family. Each run belongs to the API key that
// recorded it (or to none, from the CLI) and is seen by other keys only when shared.
// The run's request is kept as the JSON text it was given in (`request`): the api layer
// decodes it again to re-predict the run with the current model. Runs are never updated or
// deleted (but with their key): the newest id tells a reader's cache what is new. No HTTP.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

struct Measurement {
  long long id = 0;
  std::optional<long long> owner_key_id;  // the API key that recorded it; none from the CLI
  std::string owner;                      // that key's name ("" for none)
  bool shared = false;
  std::string family;       // workload family, e.g. "encoder"
  std::string workload_id;  // preset id or "custom"
  std::string gpu_id;
  int gpus_per_node = 1, nodes = 1;
  std::string cloud, instance_type;  // when measured on a catalog instance
  int global_batch = 0;
  std::string precision, framework;
  double samples_per_s = 0;   // the measurement, as samples per second
  std::string measured_as;    // what was given: samples_per_s | tokens_per_s | step_time_s
  double measured_value = 0;  // in that unit
  std::string note;
  std::string measured_on;  // YYYY-MM-DD
  std::string created_at;
  std::string request;  // the run as JSON text (workload, hardware, batch, precision...)
};

// The most runs one API key may store (and the CLI without --owner): a write past it is
// refused (kConflict), so what an estimate's calibration reads stays bounded.
inline constexpr long long kMaxRunsPerOwner = 5000;
// The most stored runs, whoever owns them, that the planner's index of runs
// (api/measurements.h) reads and holds, so that rebuilding it after a catalog write costs a
// bounded time: a rebuild reads the newest kRunsIndexedAtRebuild runs, runs recorded later
// are added until the index would pass kMaxIndexedRuns, then it is rebuilt. Older runs stay
// stored and listed but calibrate no estimate.
inline constexpr long long kMaxIndexedRuns = 50000;
inline constexpr long long kRunsIndexedAtRebuild = kMaxIndexedRuns * 4 / 5;

// Which runs a caller sees: its own (owner_key_id) and every shared one.
struct MeasurementQuery {
  std::optional<long long> owner_key_id;  // none: shared runs only
  // Every run, whoever owns it: for the planner's index (api/measurements.h), which applies
  // the same rule per request. Never for a caller's listing.
  bool every_owner = false;
  std::string family;  // "" = any
  std::string gpu_id;  // "" = any
  long long after_id = 0;  // keyset paging: ids above this
  int limit = 1000;
};

class MeasurementStore {
 public:
  explicit MeasurementStore(Connection& db) : db_(db) {}

  // Adds the runs in one transaction and returns them with ids and created_at; nothing is
  // written if one fails (kInvalidArgument naming "<item_prefix><index>"), or if an owner
  // would then store more than kMaxRunsPerOwner runs (kConflict naming the cap).
  Result<std::vector<Measurement>> Add(const std::vector<Measurement>& runs,
                                       const std::string& item_prefix);
  // Visible runs, by id.
  Result<std::vector<Measurement>> List(const MeasurementQuery& query);
  // The after_id that reads only the newest `count` (>= 1) stored runs of every owner: the
  // smallest of their ids less one, or 0 when no more are stored. Errors: kUnavailable.
  Result<long long> AfterNewest(long long count);

 private:
  Connection& db_;
};

}  // namespace gpuplan::db
