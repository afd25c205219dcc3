// What is being trained how: dataset size, batch, precision, optimizer, memory options
// and parallel layout. Zero values mean "choose for me" where documented.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/gpu_spec.h"
#include "model/result.h"
#include "model/workload.h"

namespace gpuplan::model {

enum class Optimizer { kAdamW, kAdam, kLamb, kSgd };
enum class Checkpointing { kNone, kSelective, kFull };
// kEager: PyTorch/TensorFlow without fused attention (what the calibration data ran).
// kOptimized: Megatron/FSDP-class stacks with FlashAttention and fused kernels, and a search
// over tensor/pipeline parallelism and ZeRO-1/2/3 (FSDP) for the fastest layout that fits.
// kAuto: current practice, resolved by ResolveFramework: optimized for transformer families
// (every mainstream stack ships fused attention), eager for the others.
enum class Framework { kEager, kOptimized, kAuto };
// How an FP8 recipe scales tensors before casting: kDelayed from an amax history (Transformer
// Engine's default recipe), kCurrent from the tensor's own amax, one more read of it
// (torchao float8's tensorwise default, TE's Float8CurrentScaling), kMxfp8 per block of 32
// elements with an 8-bit power-of-two scale (OCP MX; TE's MXFP8BlockScaling), which only
// GPUs with block-scaled tensor cores run (SupportsMicroscaling: Blackwell); precision auto
// then answers 16-bit on other FP8 GPUs, and a reference run on one uses delayed scaling.
enum class Fp8Scaling { kDelayed, kCurrent, kMxfp8 };

std::optional<Optimizer> ParseOptimizer(std::string_view text);  // adamw|adam|lamb|sgd
std::optional<Checkpointing> ParseCheckpointing(std::string_view text);  // none|selective|full
std::optional<Framework> ParseFramework(std::string_view text);  // eager|optimized|auto
std::string_view OptimizerName(Optimizer o);
std::string_view CheckpointingName(Checkpointing c);
std::string_view FrameworkName(Framework f);
std::optional<Fp8Scaling> ParseFp8Scaling(std::string_view text);  // delayed|current|mxfp8
std::string_view Fp8ScalingName(Fp8Scaling s);

// The split of the GPUs: tensor x pipeline x context x data = total GPUs.
struct ParallelLayout {
  int tensor = 1;
  int pipeline = 1;
  int data = 1;
  // 0 = plain data parallel; 1 = sharded optimizer states (Megatron's distributed optimizer,
  // ZeRO-1); 2 = and gradients; 3 = and weights (FSDP / ZeRO-3). Any stage combines with
  // tensor, pipeline and context parallelism (FSDP x TP x PP x CP).
  int zero_stage = 0;
  // Context parallelism: each sequence split over `context` GPUs (ring attention passes the
  // keys and values around; the causal load balancing of Megatron's CP).
  int context = 1;
  // Interleaved 1F1B: each GPU holds `virtual_stages` non-adjacent chunks of layers, which
  // divides the pipeline bubble by it at the cost of as many more stage-to-stage sends.
  int virtual_stages = 1;
  // Megatron sequence parallelism: the norm and dropout activations that tensor parallelism
  // replicates are split over the tensor group too (same communication volume: reduce-
  // scatter + all-gather in place of each all-reduce).
  bool sequence_parallel = false;
  int Gpus() const { return tensor * pipeline * context * data; }
};

struct TrainingJob {
  double samples = 0;  // dataset samples per epoch (images, sequences)
  double epochs = 1;
  double tokens = 0;   // alternatively: total training tokens (sequence workloads)
  double hours = 0;    // alternatively: a fixed duration of training; the work is what it processes
  int global_batch = 0;  // samples per optimizer step, over all GPUs
  int micro_batch = 0;   // samples per GPU per forward/backward; 0 = largest that fits
  Precision precision = Precision::kBf16;
  bool precision_auto = false;  // run AutoPrecision(gpu) instead of `precision` (assumption)
  Optimizer optimizer = Optimizer::kAdamW;
  Checkpointing checkpointing = Checkpointing::kNone;
  Framework framework = Framework::kEager;
  Fp8Scaling fp8_scaling = Fp8Scaling::kDelayed;  // precision fp8 only
  int zero_stage = -1;        // -1 = choose
  int tensor_parallel = 0;    // 0 = choose
  int pipeline_parallel = 0;  // 0 = choose
  int context_parallel = 0;   // 0 = choose (searched for sequences of kLongSequence tokens+)
  // Interleaved 1F1B chunks per GPU; 0 = none (plain 1F1B, Megatron's default: interleaving
  // needs a virtual pipeline size in the launch config, so it is never assumed).
  int virtual_pipeline_stages = 0;
  // nullopt = the stack's practice: on with tensor parallelism in optimized stacks.
  std::optional<bool> sequence_parallel;
  // Async tensor-parallel overlap (Megatron's tp_comm_overlap, PyTorch's async TP): the
  // tensor-parallel collectives run beside the GEMMs they feed; only what outlasts them is
  // exposed.
  bool tensor_parallel_overlap = false;
};

// Sequences at least this long make the layout search try context parallelism.
inline constexpr int kLongSequence = 16384;

// What kAuto runs for `w` (kOptimized for transformers, else kEager); other values as given.
Framework ResolveFramework(Framework f, const Workload& w);

// What precision "auto" trains `w` in on `gpu` with the resolved framework `f` and the
// request's FP8 recipe `scaling`: fp8 where the stack has FP8 recipes (kOptimized: Transformer
// Engine / torchao float8), the model is a transformer and the GPU has FP8 tensor cores (and,
// for kMxfp8, block-scaled ones: SupportsMicroscaling); else AutoPrecision(gpu) (bf16, ...).
Precision AutoTrainingPrecision(const GpuSpec& gpu, Framework f, const Workload& w,
                                Fp8Scaling scaling);
// The assumption line naming that choice and why.
std::string AutoTrainingPrecisionAssumption(const GpuSpec& gpu, Framework f, const Workload& w,
                                            Fp8Scaling scaling);

// Bytes per element of activations and of the weights the GPU computes with.
double ActivationBytes(Precision p);
bool IsMixedPrecision(Precision p);  // fp16, bf16, fp8, nvfp4: fp32 master weights
// A low-precision training recipe (fp8, nvfp4): the layers' projections run in it, with their
// inputs and output gradients cast each micro-step and the weights once a step; the output
// head, attention, norms and optimizer stay in BF16/FP32. Transformers on the optimized
// stack only (Transformer Engine, torchao).
bool IsLowPrecisionRecipe(Precision p);

// Checks the job against the workload and the GPU. Errors name the field by type: dataset
// fields (also past kMaxTrainingSteps), the job's "global_batch_size", "precision",
// "zero_stage", the workload's "seq_len"...
Status ValidateJob(const TrainingJob& job, const Workload& workload, const GpuSpec& gpu);
// The checks of ValidateJob that do not depend on the GPU (dataset, batch sizes, degrees,
// int8, tensor parallelism of a non-transformer): errors of the request itself, whatever
// hardware it would run on.
Status ValidateJobRequest(const TrainingJob& job, const Workload& workload);

}  // namespace gpuplan::model
