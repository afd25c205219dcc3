// The counts of a plan (GPUs, replicas, instances, samples, steps, tokens per sample): their
// maxima, named once here, and the arithmetic that forms them without overflow. Counts are
// formed in floating point or 64 bits and checked against these maxima before they become
// ints, so no answer holds an overflowed, negative or infinite count; a plan that would need
// more is refused naming the field that asked for it (docs/api.md, Limits). Pure; thread-safe.
#pragma once

#include "model/hardware.h"
#include "model/inference.h"
#include "model/training_job.h"
#include "model/workload.h"

namespace gpuplan::model {

// The most GPUs one plan may use in all: a training cluster (nodes x GPUs per node) or a
// serving fleet (replicas x GPUs per replica).
inline constexpr int kMaxTotalGpus = kMaxGpusPerNode * kMaxNodes;  // 262 144
// The most samples per optimizer step (global_batch_size): micro-batches and per-replica
// shares of it stay ints with room to spare.
inline constexpr int kMaxGlobalBatch = 1 << 30;
// The most optimizer steps a training job counts: 2^53, the largest count a double holds
// exactly.
inline constexpr double kMaxTrainingSteps = 9007199254740992.0;
// The most tokens one sample may hold (seq_len, target_len, ViT patches + 1), so token counts
// and their sums stay ints.
inline constexpr int kMaxTokensPerSample = 1 << 24;

// ceil(n / d) for n >= 0 and d >= 1. The sum n + d - 1 is formed in 64 bits, so it cannot
// overflow an int; the quotient is at most n.
constexpr int CeilDiv(int n, int d) {
  return static_cast<int>((static_cast<long long>(n) + d - 1) / d);
}

// Samples `job` processes in all: tokens / tokens per sample, or samples x epochs; 0 for a
// fixed duration (its work is what fits in the hours). Needs a job ValidateJobRequest accepts.
double TotalSamples(const TrainingJob& job, const Workload& workload);

// Instances of `gpus_per_node` GPUs that hold `e`'s replicas (each replica inside one
// instance): 0 when nothing is served.
int ServingInstances(const ServingEstimate& e, int gpus_per_node);

}  // namespace gpuplan::model
