#include "plan/measured_runs.h"

#include <algorithm>

namespace gpuplan::plan {

void MeasuredRunIndex::Add(model::Family family, const std::string& gpu_id,
                           const PredictedRun& run) {
  covered_id_ = std::max(covered_id_, run.id);
  if (!run.shared && !run.owner_key_id) return;
  Bucket& bucket = buckets_[{family, gpu_id}];
  if (run.shared) bucket.shared.push_back(run);
  if (run.owner_key_id) {
    bucket.own[*run.owner_key_id].push_back(run);
    if (run.shared) ++bucket.own_shared[*run.owner_key_id];
  }
}

RunSelection MeasuredRunIndex::Select(std::optional<long long> owner, model::Family family,
                                      const std::string& gpu_id, size_t limit) const {
  RunSelection out;
  auto bucket = buckets_.find({family, gpu_id});
  if (bucket == buckets_.end()) return out;
  const Bucket& b = bucket->second;
  static const std::vector<PredictedRun> kNone;
  const std::vector<PredictedRun>* own = &kNone;
  size_t own_shared = 0;
  if (owner) {
    if (auto it = b.own.find(*owner); it != b.own.end()) own = &it->second;
    if (auto it = b.own_shared.find(*owner); it != b.own_shared.end()) own_shared = it->second;
  }
  out.available = own->size() + b.shared.size() - own_shared;
  for (auto it = own->rbegin(); it != own->rend() && out.runs.size() < limit; ++it) {
    out.runs.push_back(*it);
  }
  for (auto it = b.shared.rbegin(); it != b.shared.rend() && out.runs.size() < limit; ++it) {
    if (!(owner && it->owner_key_id == owner)) out.runs.push_back(*it);
  }
  std::sort(out.runs.begin(), out.runs.end(),
            [](const PredictedRun& x, const PredictedRun& y) { return x.id < y.id; });
  return out;
}

}  // namespace gpuplan::plan
