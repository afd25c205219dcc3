// Training time: the step time of a workload on a cluster with its breakdown, bottleneck,
// throughput, MFU, scaling efficiency, memory and total time with a P10-P90 range.
// Pure and deterministic; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "model/constants.h"
#include "model/hardware.h"
#include "model/memory.h"
#include "model/training_job.h"
#include "model/workload.h"

namespace gpuplan::model {

struct StepBreakdown {
  double compute_s = 0;        // matmul/conv FLOPs at the achieved tensor/CUDA-core rate
  double memory_s = 0;         // elementwise HBM traffic
  double communication_s = 0;  // exposed tensor-parallel and data-parallel collectives
  double bubble_s = 0;         // pipeline fill and drain
  double optimizer_s = 0;      // the optimizer's pass over the weights
  double input_s = 0;          // waiting for the CPU input pipeline
  double overhead_s = 0;       // CPU launch and framework time not hidden by GPU work
};

// One forward and backward pass of a micro-batch on one GPU, by operator class.
struct MicroStep {
  double gemm_s = 0;    // tensor-core GEMM/conv work, with saturation and kernel floors
  double attention_s = 0;  // the fused attention kernels' share of gemm_s (optimized stacks)
  double memory_s = 0;  // elementwise/normalisation traffic and depthwise work
  double gpu_s = 0;     // gemm_s + memory_s
  double host_s = 0;    // issuing the kernels (framework dispatch)
  double total_s = 0;   // gpu and host overlapped
};

// The SMs of `gpu`, or an estimate from its FP32 rate when the catalog does not state it.
double SmCount(const GpuSpec& gpu);

// Bytes per second `gpu`'s DRAM delivers to streaming kernels: the catalog's published
// achievable bandwidth (a STREAM-like benchmark) when it has one, else eta_bw of the peak.
double DramBandwidth(const GpuSpec& gpu, const ModelConstants& c);

// DramBandwidth in words, for assumptions: "the published achievable 1400 GB/s" or
// "89% of the 900 GB/s peak".
std::string BandwidthBasis(const GpuSpec& gpu, const ModelConstants& c);

// Bytes per second elementwise kernels move on `gpu`: DramBandwidth, in
// series with the SMs' own load/store path (sm_bytes_per_clock per SM per clock), so a
// GPU with few or slow SMs for its bandwidth does not reach its DRAM peak. DRAM alone
// when the catalog has no clock.
double AchievedBandwidth(const GpuSpec& gpu, const ModelConstants& c);

// FLOP/s the fused attention kernels of an optimized stack (FlashAttention-2 class) can use
// on `gpu`: the 16-bit tensor peak, capped at what warp-level mma.sync instructions reach
// (ModelConstants::portable_tensor_flops_per_sm_clock per SM per boost clock) where the SM
// count and clock are known.
double PortableAttentionPeak(const GpuSpec& gpu, const ModelConstants& c);

// DRAM bytes a cast moves per element under the job's low-precision recipe (IsLowPrecisionRecipe):
// NVFP4's, or FP8's by its scaling.
double RecipeCastBytes(const TrainingJob& job, const ModelConstants& c);

MicroStep MicroStepTime(const Workload& w, const TrainingJob& job, const GpuSpec& gpu,
                        const ParallelLayout& layout, int micro_batch, const ModelConstants& c);

struct StepResult {
  double step_time_s = 0;
  StepBreakdown breakdown;
  std::string bottleneck;  // the largest breakdown term's name, e.g. "compute"
  double bottleneck_share = 0;
};

// The step time of `layout` with micro-batch `micro_batch` and `micro_batches` of them per
// optimizer step per GPU. No memory check: callers pick a layout that fits.
StepResult StepTime(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                    const ParallelLayout& layout, int micro_batch, int micro_batches,
                    const ModelConstants& c);

// A layout on which a workload fits: `gpus` GPUs on `nodes` nodes.
struct FittingLayout {
  int gpus = 0;
  int nodes = 0;
  ParallelLayout layout;
  MemoryBreakdown memory;
};

struct TrainingEstimate {
  Precision precision = Precision::kBf16;  // what was estimated (auto resolved)
  ParallelLayout layout;
  int micro_batch = 0;
  int grad_accumulation_steps = 1;
  StepResult step;
  double samples_per_s = 0;
  double tokens_per_s = 0;  // 0 for CNNs
  double mfu = 0;           // model FLOPs / (GPUs x dense peak of the precision)
  // X(n) / (n X(1)): throughput over `data` times the throughput of one replica of the
  // same layout with the same per-replica micro-batch and accumulation.
  double scaling_efficiency = 1;
  MemoryBreakdown memory;
  int max_micro_batch = 0;  // with this layout
  // The fewest GPUs of this node type the job fits on at micro-batch 1 (up to 1024).
  std::optional<FittingLayout> smallest_layout;
  double steps = 0;
  double total_samples = 0;
  double total_tokens = 0;
  double epochs = 0;
  double total_hours = 0, p10_hours = 0, p90_hours = 0;
  // With a fixed duration (TrainingJob::hours) the time has no range; the work done has:
  // P10-P90 of the samples processed. 0 otherwise.
  double work_p10_samples = 0, work_p90_samples = 0;
  double train_flops = 0;  // model FLOPs of the whole job
  std::vector<std::string> assumptions;
  std::vector<std::string> warnings;
};

// Estimates `job` of `w` on `cluster`. Chooses the fastest layout that fits memory
// among the allowed ones (the job's fixed zero stage / tensor / pipeline degrees are
// kept); if none fits, returns the estimate of the plain layout with verdict
// does_not_fit and a warning. Errors (naming the field) for invalid inputs.
// With job.hours (a fixed duration) the work is the whole steps that fit in it: total_hours
// is the duration, P10 = P90, and work_p10/p90_samples carry the range; a duration shorter
// than one step is an error on dataset "hours".
// `find_smallest_layout` = false skips the (costlier) search for the fewest GPUs that fit.
Result<TrainingEstimate> EstimateTraining(const Workload& w, const TrainingJob& job,
                                          const Cluster& cluster,
                                          const ModelConstants& c = DefaultConstants(),
                                          bool find_smallest_layout = true);

// The figures of EstimateTraining(w, job, cluster, c, false), the same values, without
// what a recommendation's options do not show: no assumptions or warnings, no
// max_micro_batch (0) or scaling_efficiency (0), no smallest_layout. For walks that rank
// hundreds of configurations (plan/recommend_training.cc); same errors.
Result<TrainingEstimate> EstimateTrainingFigures(const Workload& w, const TrainingJob& job,
                                                 const Cluster& cluster,
                                                 const ModelConstants& c = DefaultConstants());

// A lower bound (seconds) of the step time of a 16-bit (or fp32/tf32) `job`, any layout and
// micro-batch, on `cluster`: the forward and backward GEMMs of the global batch spread
// evenly over the GPUs at the saturated rate of that precision. 0 when it cannot say. Not
// a bound for FP8 jobs (their output head runs at the 16-bit rate).
// `precision: auto` uses it to skip the 16-bit estimate an FP8 step already beats.
double SixteenBitStepLowerBound(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                                const ModelConstants& c = DefaultConstants());

// The smallest number of GPUs (and their layout) on nodes like `node` on which `w`
// trains with micro-batch 1, trying up to `max_gpus`. nullopt if none.
std::optional<FittingLayout> SmallestFittingLayout(const Workload& w, const TrainingJob& job,
                                                   const NodeSpec& node, int max_gpus,
                                                   const ModelConstants& c = DefaultConstants());

}  // namespace gpuplan::model
