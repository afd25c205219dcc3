#include "model/memory.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::model {

std::string_view VerdictName(FitVerdict verdict) {
  switch (verdict) {
    case FitVerdict::kFits: return "fits";
    case FitVerdict::kTight: return "tight";
    case FitVerdict::kDoesNotFit: return "does_not_fit";
  }
  return "does_not_fit";
}

StateBytes ModelStateBytesPerParam(Precision precision, Optimizer optimizer) {
  bool sgd = optimizer == Optimizer::kSgd;
  if (IsMixedPrecision(precision)) {
    // 16-bit weights and gradients; fp32 master weights plus the optimizer's moments.
    return {2, 2, sgd ? 8.0 : 12.0};
  }
  return {4, 4, sgd ? 4.0 : 8.0};
}

double TrainingCheckpointBytes(const Workload& w) {
  const StateBytes s = ModelStateBytesPerParam(Precision::kBf16, Optimizer::kAdam);
  return (s.weights + s.optimizer) * ParamsTotal(w);
}

StateBytes ShardedStateBytes(double params, const ParallelLayout& layout, Precision precision,
                             Optimizer optimizer) {
  StateBytes per = ModelStateBytesPerParam(precision, optimizer);
  double local = params / (layout.tensor * layout.pipeline);
  // ZeRO/FSDP shard over every replica of the weights: the data and context groups.
  double d = std::max(1, layout.data) * std::max(1, layout.context);
  StateBytes out{per.weights * local, per.gradients * local, per.optimizer * local};
  if (layout.zero_stage >= 1) out.optimizer /= d;
  if (layout.zero_stage >= 2) out.gradients /= d;
  if (layout.zero_stage >= 3) out.weights /= d;
  return out;
}

// Activation elements per token and layer on one GPU of the tensor group: Korthikanti's
// 10 s b h bytes (5 h elements: the inputs of the two norms, their dropouts and the residual)
// are replicated on every tensor rank unless sequence parallelism splits them; the rest
// is split by tensor parallelism.
double TensorSplitElementsPerTokenLayer(const Workload& w, const ParallelLayout& layout) {
  double all = ActivationElementsPerTokenLayer(w);
  if (layout.tensor <= 1 || layout.sequence_parallel || w.family == Family::kRnn) {
    return all / layout.tensor;
  }
  double replicated = std::min(all, 5.0 * w.hidden);
  return replicated + (all - replicated) / layout.tensor;
}

namespace {

double TransformerActivationBytes(const Workload& w, const TrainingJob& job,
                                  const ParallelLayout& layout, int b) {
  double beta = ActivationBytes(job.precision);
  // Context parallelism gives each GPU 1/context of every sequence's tokens.
  double tokens = static_cast<double>(b) * TokensPerSample(w) / layout.context;
  // No saved attention probabilities (Korthikanti's 5as^2b bytes), whatever the framework:
  // every current stack, eager PyTorch 2 included (scaled_dot_product_attention), runs a
  // memory-efficient attention kernel, so what fits does not depend on the speed profile
  // (the framework changes the step time only; issue 23).
  double per_token_layer = TensorSplitElementsPerTokenLayer(w, layout);
  double layer_bytes = tokens * per_token_layer * beta;
  // Token-layers on this GPU (encoder-decoders: encoder and decoder layers together).
  double token_layers = b * TokenLayers(w) / layout.pipeline / layout.context;
  if (job.checkpointing == Checkpointing::kFull) {
    // Only each layer's input is kept (split over the tensor group by sequence
    // parallelism, else whole on each), plus one layer's activations during its backward.
    double input_split = layout.sequence_parallel ? layout.tensor : 1;
    return token_layers * w.hidden * beta / input_split + layer_bytes;
  }
  return token_layers * per_token_layer * beta;
}

double LogitBytes(const Workload& w, const TrainingJob& job, const ParallelLayout& layout,
                  int b) {
  if (w.vocab <= 0 || w.family == Family::kVit || w.family == Family::kCnn) return 0;
  double tokens = static_cast<double>(b) * TokensPerSample(w);
  double share = w.family == Family::kEncoder ? 0.15
                 : w.family == Family::kRnn   ? 0.5
                 : w.family == Family::kEncoderDecoder
                     ? static_cast<double>(w.target_len) / TokensPerSample(w)
                     : 1.0;
  // Logits in the compute precision plus the fp32 softmax/cross-entropy buffer.
  return tokens * share * w.vocab * (ActivationBytes(job.precision) + 4) / layout.tensor /
         layout.context;
}

}  // namespace

double ActivationBytesPerGpu(const Workload& w, const TrainingJob& job,
                             const ParallelLayout& layout, int micro_batch, int micro_batches,
                             const ModelConstants& c) {
  double beta = ActivationBytes(job.precision);
  double in_flight = std::min(std::max(1, layout.pipeline), std::max(1, micro_batches));
  if (layout.virtual_stages > 1 && layout.pipeline > 1) {
    // The interleaved schedule's warm-up holds more micro-batches on the first stage
    // (Narayanan et al. 2021; Korthikanti et al. 2022: x (1 + (p - 1) / (p v))).
    in_flight *= 1 + (layout.pipeline - 1.0) / (layout.pipeline * layout.virtual_stages);
  }
  double bytes = 0;
  if (w.family == Family::kCnn) {
    double scale = ImageScale(w);
    bytes = micro_batch * w.activation_elements_per_sample * scale * beta *
            c.cnn_saved_elements_per_activation;
    if (job.checkpointing == Checkpointing::kFull) bytes *= 0.35;
    return bytes / layout.pipeline;
  }
  if (w.family == Family::kRnn) {
    double tokens = static_cast<double>(micro_batch) * w.seq_len;
    bytes = tokens * w.layers * ActivationElementsPerTokenLayer(w) * beta / layout.tensor /
            layout.pipeline;
  } else {
    bytes = TransformerActivationBytes(w, job, layout, micro_batch);
  }
  return bytes * in_flight + LogitBytes(w, job, layout, micro_batch);
}

namespace {

// GB of model states and activations (what must fit in the usable memory), summed in the one
// order TrainingMemory and MaxMicroBatch share, so both give the same verdict.
double NeedGb(const StateBytes& states, double activation_bytes) {
  return states.weights / 1e9 + states.gradients / 1e9 + states.optimizer / 1e9 +
         activation_bytes / 1e9;
}

double UsableGb(const GpuSpec& gpu, const ModelConstants& c) {
  return gpu.memory_gb * c.usable_memory_fraction - c.memory_reserve_gb;
}

}  // namespace

MemoryBreakdown TrainingMemory(const Workload& w, const TrainingJob& job,
                               const ParallelLayout& layout, int micro_batch, int micro_batches,
                               const GpuSpec& gpu, const ModelConstants& c) {
  MemoryBreakdown m;
  StateBytes states = ShardedStateBytes(ParamsTotal(w), layout, job.precision, job.optimizer);
  m.weights_gb = states.weights / 1e9;
  m.gradients_gb = states.gradients / 1e9;
  m.optimizer_gb = states.optimizer / 1e9;
  double activations = ActivationBytesPerGpu(w, job, layout, micro_batch, micro_batches, c);
  m.activations_gb = activations / 1e9;
  m.capacity_gb = gpu.memory_gb;
  double usable = UsableGb(gpu, c);
  m.overhead_gb = gpu.memory_gb - usable;
  double need = NeedGb(states, activations);
  m.total_gb = need + m.overhead_gb;
  if (need <= c.tight_fraction * usable) {
    m.verdict = FitVerdict::kFits;
  } else if (need <= usable) {
    m.verdict = FitVerdict::kTight;
  } else {
    m.verdict = FitVerdict::kDoesNotFit;
  }
  return m;
}

int MaxMicroBatch(const Workload& w, const TrainingJob& job, const ParallelLayout& layout,
                  int micro_batches, const GpuSpec& gpu, const ModelConstants& c, int limit) {
  // TrainingMemory's verdict (not does_not_fit), with the states computed once.
  const StateBytes states =
      ShardedStateBytes(ParamsTotal(w), layout, job.precision, job.optimizer);
  const double usable = UsableGb(gpu, c);
  auto fits_with = [&](double activation_bytes) {
    return NeedGb(states, activation_bytes) <= usable;
  };
  auto fits = [&](int b) {
    return fits_with(ActivationBytesPerGpu(w, job, layout, b, micro_batches, c));
  };
  if (limit < 1) return 0;
  const double a1 = ActivationBytesPerGpu(w, job, layout, 1, micro_batches, c);
  if (!fits_with(a1)) return 0;
  int lo = 1, hi = limit;  // fits(lo); the answer is in [lo, hi]
  // Memory grows linearly with the micro-batch (activations and logits are per sample): the
  // line through micro-batches 1 and 2 predicts the answer, and checking it and the next
  // one confirms it. Otherwise the binary search below finishes from what the checks found,
  // so the answer is always the largest micro-batch that fits, as a search over all of them.
  const double slope =
      limit > 1 ? ActivationBytesPerGpu(w, job, layout, 2, micro_batches, c) - a1 : 0;
  if (slope > 0) {
    double room = usable * 1e9 - (states.weights + states.gradients + states.optimizer) - a1;
    double guess = 1 + std::floor(room / slope);
    int g = static_cast<int>(std::clamp(guess, 1.0, static_cast<double>(limit)));
    if (fits(g)) {
      if (g == limit || !fits(g + 1)) return g;
      lo = g + 1;
    } else {
      hi = g - 1;
    }
  }
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace gpuplan::model
