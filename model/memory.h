// Per-GPU memory of training: model states (weights, gradients, optimizer), activations
// and a reserve, by precision, optimizer, ZeRO stage, tensor/pipeline split and
// activation checkpointing. GB are 10^9 bytes. Pure and deterministic; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "model/constants.h"
#include "model/gpu_spec.h"
#include "model/training_job.h"
#include "model/workload.h"

namespace gpuplan::model {

enum class FitVerdict { kFits, kTight, kDoesNotFit };
std::string_view VerdictName(FitVerdict verdict);  // fits | tight | does_not_fit

struct MemoryBreakdown {
  double weights_gb = 0, gradients_gb = 0, optimizer_gb = 0, activations_gb = 0;
  double overhead_gb = 0;  // CUDA context, NCCL buffers, allocator slack
  double total_gb = 0;     // everything above
  double capacity_gb = 0;  // the GPU's memory
  FitVerdict verdict = FitVerdict::kFits;
};

// Bytes per parameter of each model state before sharding (ZeRO paper convention for
// mixed precision: 2 + 2 + 12 with Adam).
struct StateBytes {
  double weights = 0, gradients = 0, optimizer = 0;
};
StateBytes ModelStateBytesPerParam(Precision precision, Optimizer optimizer);

// Bytes of a training checkpoint of `w` (what a spot job writes and reloads): 16-bit weights
// plus fp32 master weights and Adam's moments, 14 bytes per parameter (the states of
// ModelStateBytesPerParam without the gradients), whatever the job's own precision.
double TrainingCheckpointBytes(const Workload& w);

// Model-state bytes per GPU for `params` parameters split over `layout`.
StateBytes ShardedStateBytes(double params, const ParallelLayout& layout, Precision precision,
                             Optimizer optimizer);

// Transformers: activation elements per token and layer kept on one GPU of the tensor group
// (Korthikanti's count split by tensor parallelism, except the norm/dropout inputs that only
// sequence parallelism splits).
double TensorSplitElementsPerTokenLayer(const Workload& w, const ParallelLayout& layout);

// Activation bytes per GPU for micro-batch `micro_batch`, with `micro_batches` in flight
// per step (pipeline 1F1B keeps min(pipeline, micro_batches) of them on the first stage).
double ActivationBytesPerGpu(const Workload& w, const TrainingJob& job,
                             const ParallelLayout& layout, int micro_batch, int micro_batches,
                             const ModelConstants& c);

MemoryBreakdown TrainingMemory(const Workload& w, const TrainingJob& job,
                               const ParallelLayout& layout, int micro_batch, int micro_batches,
                               const GpuSpec& gpu, const ModelConstants& c);

// The largest micro-batch (<= limit) whose memory verdict is not does_not_fit; 0 if none.
int MaxMicroBatch(const Workload& w, const TrainingJob& job, const ParallelLayout& layout,
                  int micro_batches, const GpuSpec& gpu, const ModelConstants& c, int limit);

}  // namespace gpuplan::model
