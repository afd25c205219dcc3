// Measured runs as estimates use them: every stored run predicted once with the current
// model and catalog, grouped by workload family and GPU, and the runs one estimate may use
// (the caller's own and shared ones, at most kMaxRunsPerEstimate). A MeasuredRunIndex is
// built by api/measurements.cc once per catalog generation, extended as runs are recorded,
// kept in db::CachedCatalog's snapshot and never changed once shared: const methods are
// thread-safe. No I/O.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/workload.h"

namespace gpuplan::plan {

// One estimate uses at most this many runs of its GPU and family: the caller's own first,
// then shared ones, each the most recently recorded first. The answer says when it cut.
inline constexpr size_t kMaxRunsPerEstimate = 200;

// A stored run and what the model predicts for it.
struct PredictedRun {
  long long id = 0;                       // measurements.id: recorded later = larger
  std::optional<long long> owner_key_id;  // none: imported by the CLI without --owner
  bool shared = false;
  double measured_over_predicted = 0;     // > 0
};

// The runs one estimate uses.
struct RunSelection {
  std::vector<PredictedRun> runs;  // by id, ascending; at most the limit asked
  size_t available = 0;            // the runs the caller may use, before the limit
};

class MeasuredRunIndex {
 public:
  // Adds `run`, predicted on `gpu_id`. Ids must grow from one call to the next. A run that
  // is neither shared nor owned is seen by nobody and not kept.
  void Add(model::Family family, const std::string& gpu_id, const PredictedRun& run);
  // Every run with an id up to this one has been considered (added or skipped).
  long long covered_id() const { return covered_id_; }
  void set_covered_id(long long id) { covered_id_ = id; }

  // The runs of `family` on `gpu_id` that `owner` may use (its own and shared ones; none:
  // shared ones only): its own first, then the others, each newest first, at most `limit`.
  RunSelection Select(std::optional<long long> owner, model::Family family,
                      const std::string& gpu_id, size_t limit) const;

 private:
  struct Bucket {
    std::vector<PredictedRun> shared;                    // every shared run, by id
    std::map<long long, std::vector<PredictedRun>> own;  // by owner, shared or not, by id
    std::map<long long, size_t> own_shared;              // how many of those are shared
  };
  std::map<std::pair<model::Family, std::string>, Bucket> buckets_;
  long long covered_id_ = 0;
};

// The runs a training request may be calibrated by: `index` as `owner` sees it.
struct MeasuredRuns {
  std::shared_ptr<const MeasuredRunIndex> index;  // null: no runs
  std::optional<long long> owner;                 // an API key id; none: anonymous
};

}  // namespace gpuplan::plan
