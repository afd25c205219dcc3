#include "model/training_job.h"

#include "model/counts.h"
#include "model/enum_names.h"

#include <array>
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace gpuplan::model {

namespace {

constexpr EnumNames<Optimizer, 4> kOptimizers = {{
    {"adamw", Optimizer::kAdamW}, {"adam", Optimizer::kAdam},
    {"lamb", Optimizer::kLamb},   {"sgd", Optimizer::kSgd}}};
constexpr EnumNames<Checkpointing, 3> kCheckpointing = {{
    {"none", Checkpointing::kNone}, {"selective", Checkpointing::kSelective},
    {"full", Checkpointing::kFull}}};
constexpr EnumNames<Framework, 3> kFrameworks = {{{"eager", Framework::kEager},
                                                   {"optimized", Framework::kOptimized},
                                                   {"auto", Framework::kAuto}}};

constexpr EnumNames<Fp8Scaling, 3> kFp8Scalings = {{{"delayed", Fp8Scaling::kDelayed},
                                                     {"current", Fp8Scaling::kCurrent},
                                                     {"mxfp8", Fp8Scaling::kMxfp8}}};

}  // namespace

std::optional<Fp8Scaling> ParseFp8Scaling(std::string_view t) { return ParseEnum(kFp8Scalings, t); }
std::string_view Fp8ScalingName(Fp8Scaling s) { return EnumName(kFp8Scalings, s); }
std::optional<Optimizer> ParseOptimizer(std::string_view t) { return ParseEnum(kOptimizers, t); }
std::optional<Checkpointing> ParseCheckpointing(std::string_view t) {
  return ParseEnum(kCheckpointing, t);
}
std::optional<Framework> ParseFramework(std::string_view t) { return ParseEnum(kFrameworks, t); }
std::string_view OptimizerName(Optimizer o) { return EnumName(kOptimizers, o); }
std::string_view CheckpointingName(Checkpointing c) { return EnumName(kCheckpointing, c); }
std::string_view FrameworkName(Framework f) { return EnumName(kFrameworks, f); }

Framework ResolveFramework(Framework f, const Workload& w) {
  if (f != Framework::kAuto) return f;
  return IsTransformer(w.family) ? Framework::kOptimized : Framework::kEager;
}

Precision AutoTrainingPrecision(const GpuSpec& gpu, Framework f, const Workload& w,
                                Fp8Scaling scaling) {
  if (f == Framework::kOptimized && IsTransformer(w.family) && gpu.fp8_tflops > 0 &&
      (scaling != Fp8Scaling::kMxfp8 || SupportsMicroscaling(gpu))) {
    return Precision::kFp8;
  }
  return AutoPrecision(gpu);
}

std::string AutoTrainingPrecisionAssumption(const GpuSpec& gpu, Framework f, const Workload& w,
                                            Fp8Scaling scaling) {
  if (AutoTrainingPrecision(gpu, f, w, scaling) == Precision::kFp8) {
    return "precision auto: fp8 (" + gpu.id +
           " has FP8 tensor cores and the optimized stack trains transformers with an FP8 "
           "recipe: projections in FP8, attention, head and optimizer in BF16/FP32); ask for "
           "bf16 to estimate without FP8" +
           (gpu.fp4_tflops > 0 ? "; auto never picks nvfp4 (a recipe that trades accuracy "
                                 "for speed): ask for it to estimate 4-bit projections"
                               : "");
  }
  std::string line = AutoPrecisionAssumption(gpu);
  if (gpu.fp8_tflops > 0 && IsTransformer(w.family)) {
    if (f != Framework::kOptimized) {
      line += "; not fp8: FP8 recipes need the optimized framework";
    } else {
      line += "; not fp8: fp8_scaling mxfp8 needs block-scaled tensor cores (Blackwell), which " +
              gpu.id + " lacks; delayed or current scaling estimates FP8 here";
    }
  }
  return line;
}

double ActivationBytes(Precision p) {
  return (p == Precision::kFp32 || p == Precision::kTf32) ? 4.0 : 2.0;
}

bool IsMixedPrecision(Precision p) {
  return p == Precision::kFp16 || p == Precision::kBf16 || IsLowPrecisionRecipe(p);
}

bool IsLowPrecisionRecipe(Precision p) { return p == Precision::kFp8 || p == Precision::kNvfp4; }

double TotalSamples(const TrainingJob& job, const Workload& workload) {
  if (job.hours > 0) return 0;
  return job.tokens > 0 ? job.tokens / TokensPerSample(workload) : job.samples * job.epochs;
}

namespace {

// The dataset needs at most kMaxTrainingSteps steps of the global batch (which is >= 1).
Status CheckStepCount(const TrainingJob& job, const Workload& workload) {
  if (job.hours > 0) return OkStatus();  // the steps are what fits in the hours
  const double steps = std::ceil(TotalSamples(job, workload) / job.global_batch);
  if (steps <= kMaxTrainingSteps) return OkStatus();
  const char* field = job.tokens > 0 ? "tokens" : job.epochs > 1 ? "epochs" : "samples";
  return Error::Invalid({Part::kDataset, field},
                        fmt::format("the dataset needs {:.4g} optimizer steps of "
                                    "global_batch_size {}: over the maximum of 2^53 ({:.4g}) steps",
                                    steps, job.global_batch, kMaxTrainingSteps));
}

}  // namespace

Status ValidateJobRequest(const TrainingJob& job, const Workload& workload) {
  if (job.precision == Precision::kInt8) {
    return Error::Invalid({Part::kJob, "precision"},
                          "int8 is an inference precision, not a training one");
  }
  if (IsLowPrecisionRecipe(job.precision) && !job.precision_auto) {
    const std::string name(PrecisionName(job.precision));
    if (!IsTransformer(workload.family)) {
      return Error::Invalid({Part::kJob, "precision"},
                            name +
                                " training recipes (Transformer Engine, torchao) cover "
                                "transformer linear layers; a " +
                                std::string(FamilyName(workload.family)) + " has none");
    }
    if (ResolveFramework(job.framework, workload) != Framework::kOptimized) {
      return Error::Invalid({Part::kJob, "precision"},
                            name +
                                " training needs a low-precision recipe (Transformer Engine, "
                                "torchao): choose framework optimized or auto, not eager");
    }
  }
  bool has_tokens = job.tokens > 0;
  bool has_hours = job.hours > 0;
  if (!(job.samples >= 0) || !(job.tokens >= 0) || !(job.hours >= 0) ||
      !std::isfinite(job.samples) || !std::isfinite(job.tokens) || !std::isfinite(job.hours)) {
    return Error::Invalid({Part::kDataset, ""},
                          "dataset sizes and hours must be finite and not negative");
  }
  if (has_hours && has_tokens) {
    return Error::Invalid({Part::kDataset, "hours"}, "give either tokens or hours, not both");
  }
  if (!has_hours) {  // with hours, the work is what the hours process
    if (!has_tokens && !(job.samples > 0)) {
      return Error::Invalid({Part::kDataset, "samples"},
                            "dataset needs samples (and epochs), tokens or hours");
    }
    if (has_tokens && workload.family == Family::kCnn) {
      return Error::Invalid({Part::kDataset, "tokens"},
                            "a cnn workload is sized in samples, not tokens");
    }
    if (has_tokens && TokensPerSample(workload) <= 0) {
      return Error::Invalid({Part::kWorkload, "seq_len"},
                            "seq_len must be positive for a " +
                                std::string(FamilyName(workload.family)) +
                                " workload sized in tokens");
    }
    if (!has_tokens && (!(job.epochs > 0) || !std::isfinite(job.epochs))) {
      return Error::Invalid({Part::kDataset, "epochs"}, "epochs must be positive");
    }
  }
  if (job.global_batch < 1 || job.global_batch > kMaxGlobalBatch) {
    return Error::Invalid({Part::kJob, "global_batch_size"},
                          "global_batch_size must be from 1 to " + std::to_string(kMaxGlobalBatch));
  }
  if (job.micro_batch < 0) {
    return Error::Invalid({Part::kJob, "micro_batch_size"}, "micro_batch_size must be at least 1");
  }
  if (job.micro_batch > job.global_batch) {
    return Error::Invalid({Part::kJob, "micro_batch_size"},
                          "micro_batch_size must not exceed global_batch_size");
  }
  if (job.zero_stage < -1 || job.zero_stage > 3) {
    return Error::Invalid({Part::kJob, "zero_stage"}, "zero_stage must be 0, 1, 2 or 3");
  }
  if (job.tensor_parallel < 0 || job.pipeline_parallel < 0) {
    return Error::Invalid({Part::kJob, "tensor_parallel"}, "parallel degrees must be positive");
  }
  if (job.tensor_parallel > 1 && !IsTransformer(workload.family)) {
    return Error::Invalid({Part::kJob, "tensor_parallel"},
                          "tensor parallelism applies to transformers only");
  }
  if (job.tensor_parallel > 1 && workload.heads > 0 && workload.heads % job.tensor_parallel != 0) {
    return Error::Invalid({Part::kJob, "tensor_parallel"},
                          "tensor_parallel " + std::to_string(job.tensor_parallel) +
                              " does not divide the " + std::to_string(workload.heads) +
                              " attention heads");
  }
  if (job.context_parallel < 0 || job.virtual_pipeline_stages < 0) {
    return Error::Invalid(
        {Part::kJob, job.context_parallel < 0 ? "context_parallel" : "virtual_pipeline_stages"},
        "parallel degrees must be positive");
  }
  if (job.context_parallel > 1) {
    if (!IsTransformer(workload.family) || workload.family == Family::kEncoderDecoder) {
      return Error::Invalid({Part::kJob, "context_parallel"},
                            "context parallelism splits the sequence of a decoder, encoder, "
                            "ViT or MoE transformer");
    }
    if (ResolveFramework(job.framework, workload) != Framework::kOptimized) {
      return Error::Invalid({Part::kJob, "context_parallel"},
                            "context parallelism is Megatron's (ring attention): choose "
                            "framework optimized or auto");
    }
    // Causal load balancing splits each sequence into 2 x context_parallel chunks.
    const int tokens = TokensPerSample(workload);
    if (tokens % (2 * job.context_parallel) != 0) {
      return Error::Invalid({Part::kJob, "context_parallel"},
                            "the " + std::to_string(tokens) +
                                " tokens of a sequence do not split into 2 x context_parallel = " +
                                std::to_string(2 * job.context_parallel) + " equal chunks");
    }
  }
  if (job.virtual_pipeline_stages > 1) {
    if (job.pipeline_parallel < 2) {
      return Error::Invalid({Part::kJob, "virtual_pipeline_stages"},
                            "interleaving needs pipeline_parallel of 2 or more");
    }
    if (ResolveFramework(job.framework, workload) != Framework::kOptimized) {
      return Error::Invalid({Part::kJob, "virtual_pipeline_stages"},
                            "the interleaved schedule is Megatron's: choose framework "
                            "optimized or auto");
    }
    const long long chunks =
        static_cast<long long>(job.pipeline_parallel) * job.virtual_pipeline_stages;
    if (KernelLayers(workload) % chunks != 0) {
      return Error::Invalid(
          {Part::kJob, "virtual_pipeline_stages"},
          "pipeline_parallel x virtual_pipeline_stages = " + std::to_string(chunks) +
              " does not divide the " + std::to_string(KernelLayers(workload)) + " layers");
    }
  }
  if (job.pipeline_parallel > 1 && IsTransformer(workload.family) &&
      job.pipeline_parallel > KernelLayers(workload)) {
    return Error::Invalid({Part::kJob, "pipeline_parallel"},
                          "pipeline_parallel " + std::to_string(job.pipeline_parallel) +
                              " exceeds the " + std::to_string(KernelLayers(workload)) + " layers");
  }
  if (job.sequence_parallel.value_or(false) && !IsTransformer(workload.family)) {
    return Error::Invalid({Part::kJob, "sequence_parallel"},
                          "sequence parallelism applies to transformers only");
  }
  if (job.tensor_parallel_overlap && !IsTransformer(workload.family)) {
    return Error::Invalid({Part::kJob, "tensor_parallel_overlap"},
                          "tensor-parallel overlap applies to transformers only");
  }
  return CheckStepCount(job, workload);
}

namespace {

// "; precision auto trains in fp8 here (or 16-bit where an FP8 step is slower)": what a
// request refused for its precision would run with precision auto, its recipe as asked.
std::string AutoChoiceNote(const GpuSpec& gpu, const TrainingJob& job, const Workload& w) {
  const Precision p =
      AutoTrainingPrecision(gpu, ResolveFramework(job.framework, w), w, job.fp8_scaling);
  return "; precision auto trains in " + std::string(PrecisionName(p)) + " here" +
         (p == Precision::kFp8 ? " (or 16-bit where an FP8 step is slower)" : "");
}

}  // namespace

Status ValidateJob(const TrainingJob& job, const Workload& workload, const GpuSpec& gpu) {
  Status request = ValidateJobRequest(job, workload);
  if (!request.ok()) return request;
  if (PeakTflops(gpu, job.precision) <= 0) {
    return Error::Invalid({Part::kJob, "precision"},
                          std::string(PrecisionName(job.precision)) + " is not supported by " +
                              gpu.id +
                              (job.precision == Precision::kNvfp4
                                   ? " (it has no FP4 tensor rate: NVFP4 training needs "
                                     "Blackwell)" +
                                         AutoChoiceNote(gpu, job, workload)
                                   : ""))
        .Because(Refusal::kPrecisionUnsupported);
  }
  // The recipes keep attention, the output head and the norms in 16-bit.
  if (IsLowPrecisionRecipe(job.precision) && !(SixteenBitPeakTflops(gpu) > 0)) {
    return Error::Invalid({Part::kJob, "precision"},
                          std::string(PrecisionName(job.precision)) +
                              " recipes run attention and the output head in BF16/FP16, and " +
                              gpu.id + " has no 16-bit tensor rate")
        .Because(Refusal::kPrecisionUnsupported);
  }
  if (job.precision == Precision::kFp8 && job.fp8_scaling == Fp8Scaling::kMxfp8 &&
      !SupportsMicroscaling(gpu)) {
    return Error::Invalid({Part::kJob, "fp8_scaling"},
                          "mxfp8 block scaling needs tensor cores that read MX block scales "
                          "(Blackwell); " + gpu.id + " scales FP8 per tensor: use delayed or current")
        .Because(Refusal::kPrecisionUnsupported);
  }
  return OkStatus();
}

}  // namespace gpuplan::model
