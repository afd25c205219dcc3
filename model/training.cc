#include "model/training.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "model/collectives.h"
#include "model/counts.h"
#include "model/evaluations.h"
#include "model/operators.h"

namespace gpuplan::model {

namespace {

double Efficiency(Precision p, const ModelConstants& c) {
  switch (p) {
    case Precision::kFp32: return c.eta_fp32;
    case Precision::kTf32: return c.eta_tf32;
    case Precision::kFp16:
    case Precision::kBf16: return c.eta_16bit;
    case Precision::kFp8:
    case Precision::kInt8:
    case Precision::kNvfp4: return c.eta_16bit * c.eta_fp8_vs_16bit;  // NVFP4: not calibrated
  }
  return c.eta_16bit;
}

double RecomputeFactor(Checkpointing ck) {
  switch (ck) {
    case Checkpointing::kFull: return 4.0 / 3.0;  // one more forward pass
    case Checkpointing::kSelective: return 1.03;  // attention core only
    case Checkpointing::kNone: return 1.0;
  }
  return 1.0;
}

// DRAM bytes read and written by the optimizer per parameter: fused Adam reads the fp32
// weight, gradient and two moments and writes the weight and moments (7 x 4 bytes), plus
// the 16-bit weight copy of mixed precision; SGD with momentum has one moment.
double OptimizerBytesPerParam(Optimizer o, Precision p) {
  double fp32_words = o == Optimizer::kSgd ? 5 : 7;
  return fp32_words * 4 + (IsMixedPrecision(p) ? 2 : 0);
}

// Elements elementwise kernels move per sample, in units of the activation element size:
// the family's count, plus the attention probabilities an eager framework materialises
// (Korthikanti: 2.5 a s ctx elements), which autocast keeps in fp32 for the softmax.
double TrafficElements(const Workload& w, const OperatorProfile& prof, const TrainingJob& job) {
  double elements = prof.activation_elements;
  if (IsTransformer(w.family) && job.framework == Framework::kEager) {
    elements += 2.5 * w.heads * AttentionContext(w) * TokenLayers(w) * 4.0 /
                ActivationBytes(job.precision);
  }
  return elements;
}

std::pair<int, int> DataParallelTopology(const Cluster& cluster, const ParallelLayout& layout) {
  int per_node = cluster.node.gpus_per_node;
  int model_parallel = layout.tensor * layout.pipeline;
  if (model_parallel <= per_node) {
    return {std::max(1, per_node / model_parallel), cluster.nodes};
  }
  return {1, layout.data * layout.context};  // the gradient group: data x context
}

// (a^k + b^k)^(1/k) for a, b >= 0, scaled by the larger term: never below either term
// (the unscaled form rounds below a large `a`, so a time derived as the difference came out
// negative) and free of overflow for any finite inputs.
double SmoothMax(double a, double b, double k) {
  double hi = std::max(a, b), lo = std::min(a, b);
  if (!(hi > 0)) return hi;
  const double x = lo / hi;
  // k = 3 (the shipped constant) without pow: every micro-step of a layout search takes it.
  // Below 2^-53, 1 + x^3 rounds to 1: the answer is hi exactly, without the cube root.
  if (k == 3.0) {
    const double x3 = x * x * x;
    return x3 < 0x1p-53 ? hi : hi * std::cbrt(1 + x3);
  }
  return hi * std::pow(1 + std::pow(x, k), 1.0 / k);
}

}  // namespace

double DramBandwidth(const GpuSpec& gpu, const ModelConstants& c) {
  if (gpu.achievable_bw_gbps > 0) return gpu.achievable_bw_gbps * 1e9;
  return gpu.memory_bw_gbps * 1e9 * c.eta_bw;
}

std::string BandwidthBasis(const GpuSpec& gpu, const ModelConstants& c) {
  auto gbps = [](double v) { return std::to_string(static_cast<long>(std::lround(v))); };
  if (gpu.achievable_bw_gbps > 0) {
    return "the published achievable " + gbps(gpu.achievable_bw_gbps) + " GB/s";
  }
  return gbps(c.eta_bw * 100) + "% of the " + gbps(gpu.memory_bw_gbps) + " GB/s peak";
}

double AchievedBandwidth(const GpuSpec& gpu, const ModelConstants& c) {
  double dram = DramBandwidth(gpu, c);
  if (gpu.boost_clock_mhz <= 0) return dram;
  double sm_side = SmCount(gpu) * gpu.boost_clock_mhz * 1e6 * c.sm_bytes_per_clock;
  return 1.0 / (1.0 / dram + 1.0 / sm_side);
}

double SmCount(const GpuSpec& gpu) {
  if (gpu.sm_count > 0) return gpu.sm_count;
  // Unknown: scale A100's 108 SMs by the FP32 rate (a rough proxy, named in assumptions).
  return std::max(8.0, 108.0 * gpu.fp32_tflops / 19.5);
}

double RecipeCastBytes(const TrainingJob& job, const ModelConstants& c) {
  if (job.precision == Precision::kNvfp4) return c.nvfp4_cast_bytes;
  switch (job.fp8_scaling) {
    case Fp8Scaling::kDelayed: return c.fp8_cast_bytes_delayed;
    case Fp8Scaling::kCurrent: return c.fp8_cast_bytes_current;
    case Fp8Scaling::kMxfp8: return c.fp8_cast_bytes_mxfp8;
  }
  return c.fp8_cast_bytes_current;
}

double PortableAttentionPeak(const GpuSpec& gpu, const ModelConstants& c) {
  const double peak = SixteenBitPeakTflops(gpu) * 1e12;
  if (gpu.sm_count <= 0 || gpu.boost_clock_mhz <= 0) return peak;
  return std::min(peak, gpu.sm_count * gpu.boost_clock_mhz * 1e6 *
                            c.portable_tensor_flops_per_sm_clock);
}

namespace {

// MicroStepTime with the workload's operator profile already counted (a layout search
// times many micro-steps of one workload).
MicroStep MicroStepTimeOf(const OperatorProfile& prof, const Workload& w, const TrainingJob& job,
                          const GpuSpec& gpu, const ParallelLayout& layout, int b,
                          const ModelConstants& c) {
  MicroStep m;
  double rec = RecomputeFactor(job.checkpointing);
  // Tensor parallelism splits each layer, pipeline the layers, context each sequence.
  double split = static_cast<double>(layout.tensor) * layout.pipeline * layout.context;
  const bool low_precision = IsLowPrecisionRecipe(job.precision);  // fp8, nvfp4
  // Optimized stacks run attention as one fused kernel (a causal one skips the masked
  // half); eager frameworks as two batched matmuls over the whole score matrix.
  // Fused kernels run in 16-bit: an fp32/tf32 job, or a GPU without a 16-bit tensor rate,
  // runs attention as matmuls at the job's own rate.
  const bool fused_attention = job.framework == Framework::kOptimized &&
                               prof.attention_flops > 0 && IsMixedPrecision(job.precision) &&
                               SixteenBitPeakTflops(gpu) > 0;
  // Forward + backward (data and weight gradients): three passes of the forward work. FP8 and
  // NVFP4 recipes run the layers' projections in FP8 (FP4) and keep the output head in 16-bit.
  const double in_precision_flops = prof.gemm_flops - (low_precision ? prof.head_flops : 0) +
                                    (fused_attention ? 0 : prof.attention_flops);
  double gemm_flops = 3 * in_precision_flops * b * rec / split;
  double gemm_kernels = 3 * prof.gemm_kernels * rec / layout.pipeline;
  double rate = PeakTflops(gpu, job.precision) * 1e12 * Efficiency(job.precision, c);
  double per_sm_rate = rate / SmCount(gpu);
  const double rate16 = SixteenBitPeakTflops(gpu) * 1e12;
  double sixteen_bit_s = 0;  // the 16-bit work of an FP8/NVFP4 step and fused attention
  if (low_precision) {
    sixteen_bit_s += 3 * prof.head_flops * b * rec / split / (rate16 * c.eta_16bit);
  }
  if (fused_attention) {
    const double executed = prof.attention_flops * (prof.causal_attention ? 0.5 : 1.0);
    const double passes =
        c.fused_attention_passes + (job.checkpointing == Checkpointing::kNone ? 0 : 1);
    m.attention_s = passes * executed * b / split / (PortableAttentionPeak(gpu, c) * c.eta_attention);
    sixteen_bit_s += m.attention_s;
  }
  // Saturation: each kernel costs its work at the saturated rate plus the time an SM
  // needs for gemm_half_work_per_sm at its own rate; never less than the kernel floor.
  m.gemm_s = std::max(gemm_flops / rate + sixteen_bit_s +
                          gemm_kernels * c.gemm_half_work_per_sm / per_sm_rate,
                      gemm_kernels * c.kernel_floor_s);
  double vector_rate = std::max(gpu.fp32_tflops, 1e-3) * 1e12 * c.eta_depthwise;
  double vector_s = 3 * prof.vector_flops * b / split / vector_rate;
  const double bw = AchievedBandwidth(gpu, c);
  double bytes = b * ActivationBytes(job.precision) / split;
  double traffic = bytes * TrafficElements(w, prof, job) *
                   (prof.cnn_counting ? c.cnn_traffic_passes : c.transformer_traffic_passes);
  if (layout.tensor > 1 && IsTransformer(w.family)) {
    // Without sequence parallelism the norms and dropouts run whole on every tensor rank.
    traffic *= TensorSplitElementsPerTokenLayer(w, layout) * layout.tensor /
               ActivationElementsPerTokenLayer(w);
  }
  double elementwise_kernels = 3 * prof.elementwise_kernels * rec / layout.pipeline;
  if (prof.cnn_counting) {
    // A conv kernel's own reads and writes (forward: input and output; backward: the
    // output gradient twice, the input gradient and the input) overlap its arithmetic:
    // it runs at the larger of the two. Dense convs hide them; depthwise and thin 1x1
    // convs (few MACs per output) are bound by them.
    double io_s = bytes * prof.activation_elements * kConvIoPasses * rec / bw;
    m.gemm_s = std::max(m.gemm_s + vector_s, io_s);
    vector_s = 0;
  }
  if (low_precision) {
    // Casts to FP8 (NVFP4) of each projection's input and output gradient, per token (the weights'
    // cast is once per step: OptimizerSeconds).
    traffic += b * prof.fp8_cast_elements * rec / split * RecipeCastBytes(job, c);
  }
  m.memory_s = std::max(traffic / bw + vector_s, elementwise_kernels * c.kernel_floor_s);
  m.gpu_s = m.gemm_s + m.memory_s;
  double dispatch = c.host_dispatch_s *
                    (job.framework == Framework::kOptimized ? c.optimized_dispatch_factor : 1.0);
  m.host_s = (gemm_kernels + elementwise_kernels) * dispatch;
  m.total_s = SmoothMax(m.gpu_s, m.host_s, c.smooth_k);
  return m;
}

}  // namespace

MicroStep MicroStepTime(const Workload& w, const TrainingJob& job, const GpuSpec& gpu,
                        const ParallelLayout& layout, int b, const ModelConstants& c) {
  return MicroStepTimeOf(Profile(w), w, job, gpu, layout, b, c);
}

namespace {

// The exposed tensor-parallel all-reduces of one micro-step of micro-batch `b` (Megatron: two
// of the layer's activations forward, two backward). Affine in `b` with a non-negative fixed
// part, so m of them at micro-batch b cost at least one at micro-batch m x b.
double TensorParallelSeconds(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                             const ParallelLayout& layout, int b, const ModelConstants& c) {
  if (layout.tensor <= 1) return 0;
  double bytes = static_cast<double>(b) * TokensPerSample(w) / layout.context * w.hidden *
                 ActivationBytes(job.precision);
  return 4.0 * KernelLayers(w) / layout.pipeline *
         AllReduceSeconds(bytes, layout.tensor, 1, cluster.node, c);
}

// GB/s per direction between two GPUs `apart` ranks apart in the layout's order (tensor
// innermost): NVLink/PCIe inside a node, the GPU's share of the network across nodes.
double PointToPointGbps(const Cluster& cluster, int apart, const ModelConstants& c) {
  return apart < NvlinkDomainGpus(cluster.node) ? IntraNodeBusGbps(cluster.node, c)
                                                : InterNodeGbpsPerGpu(cluster.node, c);
}

// Context parallelism's ring attention of one micro-step: each GPU receives the keys and
// values of the other context-1 chunks forward, and keys, values and their gradients
// backward (3 passes of the chunks), layer by layer, overlapped with that layer's
// attention; what outlasts the attention is exposed.
double ContextParallelSeconds(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                              const ParallelLayout& layout, int b, const MicroStep& micro,
                              const ModelConstants& c) {
  if (layout.context <= 1) return 0;
  const double layers = static_cast<double>(KernelLayers(w)) / layout.pipeline;
  const double kv_width = 2.0 * KvHeads(w) * HeadDim(w) / layout.tensor;
  const double chunk = static_cast<double>(b) * TokensPerSample(w) / layout.context * kv_width *
                       ActivationBytes(job.precision);
  // The ring spans tensor x context consecutive GPUs: NVLink when they share a node (or an
  // NVLink domain), else the network, for bandwidth and latency alike.
  const bool nvlink = layout.tensor * layout.context <= NvlinkDomainGpus(cluster.node);
  const double gbps = nvlink ? IntraNodeBusGbps(cluster.node, c) : InterNodeGbpsPerGpu(cluster.node, c);
  const double latency = nvlink ? c.nvlink_latency_s : c.network_latency_s;
  const double per_layer =
      3 * (layout.context - 1) * (chunk / (gbps * 1e9) + latency);
  const double attention_per_layer = micro.attention_s / std::max(1.0, layers);
  return layers * std::max(0.0, per_layer - attention_per_layer);
}

// Pipeline stage-to-stage sends of one micro-step: the activation forward and its gradient
// backward at each of the virtual_stages chunk boundaries (split over the tensor group).
double PipelineSendSeconds(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                           const ParallelLayout& layout, int b, const ModelConstants& c) {
  if (layout.pipeline <= 1) return 0;
  const double bytes = static_cast<double>(b) * TokensPerSample(w) / layout.context * w.hidden *
                       ActivationBytes(job.precision) / layout.tensor;
  const int apart = layout.tensor * layout.context;
  const double latency =
      apart < NvlinkDomainGpus(cluster.node) ? c.nvlink_latency_s : c.network_latency_s;
  return 2.0 * layout.virtual_stages *
         (bytes / (PointToPointGbps(cluster, apart, c) * 1e9) + latency);
}

// The optimizer's pass over this GPU's share of the weights (ZeRO-1 and up shard it), and
// under FP8 (NVFP4) the cast of the weights, once per step (Transformer Engine keeps the cast
// copy across the micro-batches of a step; FSDP casts its shard before gathering it).
double OptimizerSeconds(const Workload& w, const TrainingJob& job, const GpuSpec& gpu,
                        const ParallelLayout& layout, const ModelConstants& c) {
  double split = static_cast<double>(layout.tensor) * layout.pipeline;
  double shard = layout.zero_stage >= 1 ? static_cast<double>(layout.data) * layout.context : 1;
  double bytes = ParamsTotal(w) / split / shard * OptimizerBytesPerParam(job.optimizer, job.precision);
  if (IsLowPrecisionRecipe(job.precision)) {
    // FSDP casts its own shard before the FP8 gather; the others their whole share.
    const double cast_shard = layout.zero_stage >= 3 ? shard : 1;
    bytes += ParamsTotal(w) / split / cast_shard * RecipeCastBytes(job, c);
  }
  return bytes / AchievedBandwidth(gpu, c);
}

// The gradient synchronisation of a data-parallel step (data x context > 1): the time of its
// collectives, and how they overlap the backward pass.
struct GradientSync {
  double seconds = 0;
  bool sharded = false;  // FSDP (ZeRO-3): gathers and a reduce-scatter prefetched per layer
  double buckets = 1;    // DDP: all-reduced bucket by bucket as backward produces them
};

GradientSync GradientSyncOf(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                            const ParallelLayout& layout, const ModelConstants& c) {
  auto [g, nodes] = DataParallelTopology(cluster, layout);
  double params = ParamsTotal(w) / (static_cast<double>(layout.tensor) * layout.pipeline);
  // Frameworks reduce gradients in the parameters' type: fp32 under PyTorch AMP (eager),
  // 16-bit in Megatron/FSDP mixed precision (optimized).
  double grad_bytes = params * (job.framework == Framework::kOptimized &&
                                        IsMixedPrecision(job.precision)
                                    ? 2.0
                                    : 4.0);
  GradientSync sync;
  if (layout.zero_stage >= 3) {
    // FSDP: parameters all-gathered forward and backward, gradients reduce-scattered:
    // 1.5x an all-reduce's traffic, prefetched behind the layers' compute. FP8 recipes
    // gather the weights in FP8 (torchao's float8 all-gather, Megatron's fp8 param
    // gather): the two gathers move half the bytes, 1x an all-reduce in all. NVFP4 recipes
    // are taken to gather at 8 bits too (no published FP4 parameter gather to time).
    const double gathers = IsLowPrecisionRecipe(job.precision) ? 1.0 : 1.5;
    sync.seconds = gathers * AllReduceSeconds(grad_bytes, g, nodes, cluster.node, c);
    sync.sharded = true;
  } else {
    sync.seconds = AllReduceSeconds(grad_bytes, g, nodes, cluster.node, c);
    sync.buckets = std::max(1.0, std::ceil(grad_bytes / c.ddp_bucket_bytes));
  }
  return sync;
}

// What data parallelism adds to a step of `m` micro-steps of `micro`: the synchronisation's
// exposed part, and the wait for the slowest replica (added to the step in that order). Never
// less when the micro-steps are shorter (a smaller micro-batch), so one micro-step of the
// whole share bounds it from below.
struct DataParallelTerms {
  double exposed_s = 0, stragglers_s = 0;
};
DataParallelTerms DataParallelSeconds(const GradientSync& sync, const Workload& w,
                                      const ParallelLayout& layout, const MicroStep& micro,
                                      int m, const ModelConstants& c) {
  DataParallelTerms t;
  if (sync.sharded) {
    double per_layer = sync.seconds / std::max(1, KernelLayers(w));
    t.exposed_s = m * std::max(per_layer, sync.seconds - micro.gpu_s);
  } else {
    // DDP: only what outlasts the last micro-step's backward is exposed (at least the last
    // bucket).
    double backward = 2.0 / 3.0 * micro.gpu_s;
    t.exposed_s = std::max(sync.seconds / sync.buckets,
                           sync.seconds - backward * (1 - 1 / sync.buckets));
  }
  // Stragglers: every replica waits for the slowest; the expected maximum of `data`
  // step times with coefficient of variation cv is sqrt(2 ln data) cv above the mean.
  // Independent sources of variation add in quadrature.
  double cv = w.variable_length ? std::hypot(c.step_time_cv, c.variable_length_cv)
                                : c.step_time_cv;
  t.stragglers_s =
      cv * m * micro.total_s * std::sqrt(2 * std::log(static_cast<double>(layout.data)));
  return t;
}

// StepTime with the micro-step already timed (it depends on the layout's tensor, pipeline and
// context degrees, sequence parallelism and the micro-batch only, so a layout search shares
// it across ZeRO stages), and the layout's gradient sync when it is known (GradientSyncOf).
StepResult StepTimeOf(const MicroStep& micro, const Workload& w, const TrainingJob& job,
                      const Cluster& cluster, const ParallelLayout& layout, int b, int m,
                      const ModelConstants& c, const GradientSync* sync = nullptr) {
  const GpuSpec& gpu = cluster.node.gpu;
  const double t_micro = micro.total_s;

  double t_tp = TensorParallelSeconds(w, job, cluster, layout, b, c);
  // Async overlap hides the collectives behind the GEMMs they are chunked with.
  if (job.tensor_parallel_overlap) t_tp = std::max(0.0, t_tp - micro.gemm_s);
  const double t_layout = t_tp + ContextParallelSeconds(w, job, cluster, layout, b, micro, c) +
                          PipelineSendSeconds(w, job, cluster, layout, b, c);
  StepResult r;
  StepBreakdown& s = r.breakdown;
  s.compute_s = m * micro.gemm_s;
  s.memory_s = m * micro.memory_s;
  s.overhead_s = m * (t_micro - micro.gpu_s);
  s.communication_s = m * t_layout;
  // 1F1B fills and drains p - 1 micro-steps; interleaving over v chunks divides it by v.
  s.bubble_s = (layout.pipeline - 1) * (t_micro + t_layout) / layout.virtual_stages;

  if (layout.data * layout.context > 1) {
    const GradientSync own = sync ? GradientSync{} : GradientSyncOf(w, job, cluster, layout, c);
    const DataParallelTerms dp = DataParallelSeconds(sync ? *sync : own, w, layout, micro, m, c);
    s.communication_s += dp.exposed_s;
    s.communication_s += dp.stragglers_s;
  }
  s.optimizer_s = OptimizerSeconds(w, job, gpu, layout, c);

  double gpu_step = s.compute_s + s.memory_s + s.overhead_s + s.communication_s + s.bubble_s +
                    s.optimizer_s;
  if (IsImage(w.family) && cluster.node.vcpus > 0) {
    double samples_per_node = static_cast<double>(job.global_batch) / cluster.nodes;
    double t_input = samples_per_node / (cluster.node.vcpus * c.images_per_vcpu_s);
    s.input_s = std::max(0.0, t_input - gpu_step);
  }
  r.step_time_s = gpu_step + s.input_s;
  const std::pair<const char*, double> terms[] = {
      {"compute", s.compute_s},         {"memory_bandwidth", s.memory_s},
      {"communication", s.communication_s}, {"pipeline_bubble", s.bubble_s},
      {"optimizer", s.optimizer_s},     {"input_pipeline", s.input_s},
      {"launch_overhead", s.overhead_s}};
  const char* bottleneck = "";
  for (const auto& [name, value] : terms) {
    if (value > r.bottleneck_share) {
      r.bottleneck_share = value;
      bottleneck = name;
    }
  }
  r.bottleneck = bottleneck;
  r.bottleneck_share = r.step_time_s > 0 ? r.bottleneck_share / r.step_time_s : 0;
  return r;
}

}  // namespace

StepResult StepTime(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                    const ParallelLayout& layout, int b, int m, const ModelConstants& c) {
  return StepTimeOf(MicroStepTime(w, job, cluster.node.gpu, layout, b, c), w, job, cluster,
                    layout, b, m, c);
}

namespace {

// Sequence parallelism as the job asks, else the stack's practice: on with tensor
// parallelism in optimized (Megatron-class) stacks.
bool SequenceParallelOf(const TrainingJob& job, int tensor) {
  if (tensor <= 1) return false;
  return job.sequence_parallel.value_or(job.framework == Framework::kOptimized);
}

// Layouts of `gpus` GPUs on nodes of `per_node` allowed by the job's fixed choices. Context
// parallelism is searched for long sequences (kLongSequence) in optimized stacks.
std::vector<ParallelLayout> CandidateLayouts(const Workload& w, const TrainingJob& job, int gpus,
                                             int per_node, int nvlink_domain) {
  // The degrees of one dimension: the job's fixed one, else 1, 2, 4, ... up to `limit`
  // where searched, else 1 (no heap: a search builds these for every offer).
  struct Degrees {
    int value[32];
    int count = 0;
  };
  auto degrees = [](int fixed, bool searched, int limit) {
    Degrees d;
    if (fixed > 0) {
      d.value[d.count++] = fixed;
    } else if (searched) {
      for (int v = 1; v <= limit && d.count < 32; v *= 2) d.value[d.count++] = v;
    } else {
      d.value[d.count++] = 1;
    }
    return d;
  };
  const bool model_parallel_ok = IsTransformer(w.family);
  const bool optimized = job.framework == Framework::kOptimized;
  const bool long_sequence = model_parallel_ok && w.family != Family::kEncoderDecoder &&
                             optimized && TokensPerSample(w) >= kLongSequence;
  const Degrees tps = degrees(job.tensor_parallel, model_parallel_ok, per_node);
  const Degrees pps = degrees(job.pipeline_parallel, model_parallel_ok, std::min(gpus, w.layers));
  const Degrees cps = degrees(job.context_parallel, long_sequence, std::min(16, nvlink_domain));
  const int zero_first = job.zero_stage >= 0 ? job.zero_stage : 0;
  const int zero_last = job.zero_stage >= 0 ? job.zero_stage : 3;
  std::vector<ParallelLayout> out;
  out.reserve(static_cast<size_t>(tps.count) * pps.count * cps.count * (zero_last - zero_first + 1));
  for (int ti = 0; ti < tps.count; ++ti) {
    const int tp = tps.value[ti];
    // Tensor groups stay inside a node, or (asked for) inside its NVLink domain.
    const bool in_node = tp <= per_node && per_node % tp == 0;
    const bool in_domain = tp == job.tensor_parallel && tp <= nvlink_domain && tp % per_node == 0;
    if (!in_node && !in_domain) continue;
    if (job.tensor_parallel <= 0 && tp > 1 && w.heads > 0 && w.heads % tp != 0) continue;
    for (int pi = 0; pi < pps.count; ++pi) {
      const int pp = pps.value[pi];
      if (gpus % (tp * pp) != 0 || (w.layers > 0 && pp > w.layers)) continue;
      for (int ci = 0; ci < cps.count; ++ci) {
        const int cp = cps.value[ci];
        const long long model_parallel = static_cast<long long>(tp) * pp * cp;
        if (gpus % model_parallel != 0) continue;
        if (cp > 1 && job.context_parallel <= 0 && TokensPerSample(w) % (2 * cp) != 0) continue;
        const int d = static_cast<int>(gpus / model_parallel);
        for (int zero = zero_first; zero <= zero_last; ++zero) {
          // Nothing to shard over.
          if (zero > 0 && d * cp == 1 && job.zero_stage < 0) continue;
          ParallelLayout layout{tp, pp, d, zero};
          layout.context = cp;
          // Interleaving as asked; else none, Megatron's default (it needs a virtual
          // pipeline size in the config).
          layout.virtual_stages = std::max(1, job.virtual_pipeline_stages);
          layout.sequence_parallel = SequenceParallelOf(job, tp);
          out.push_back(layout);
        }
      }
    }
  }
  return out;
}

// X(n) / (data x X(one replica)): the same layout without data parallelism, each replica
// doing the same micro-batches.
double ScalingEfficiency(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                         const TrainingEstimate& e, const ModelConstants& c) {
  if (e.layout.data <= 1) return 1.0;
  ParallelLayout one = e.layout;
  one.data = 1;
  Cluster replica = cluster;
  int model_parallel = one.tensor * one.pipeline * one.context;
  replica.node.gpus_per_node = std::min(model_parallel, cluster.node.gpus_per_node);
  replica.nodes = (model_parallel + replica.node.gpus_per_node - 1) / replica.node.gpus_per_node;
  TrainingJob single = job;
  single.global_batch = e.micro_batch * e.grad_accumulation_steps;
  StepResult alone = StepTime(w, single, replica, one, e.micro_batch, e.grad_accumulation_steps, c);
  double x1 = single.global_batch / alone.step_time_s;
  double xn = job.global_batch / e.step.step_time_s;
  return xn / (e.layout.data * x1);
}

// v with 3 significant digits, as printf's %.3g writes it (std::to_chars is specified to;
// it is several times faster than snprintf, and every estimate formats a few).
std::string Fmt(double v) {
  char b[32];
  auto [end, ec] = std::to_chars(b, b + sizeof(b), v, std::chars_format::general, 3);
  return ec == std::errc() ? std::string(b, end) : std::string("?");
}

}  // namespace

std::optional<FittingLayout> SmallestFittingLayout(const Workload& w, const TrainingJob& job,
                                                   const NodeSpec& node, int max_gpus,
                                                   const ModelConstants& c) {
  std::vector<int> counts;
  for (int g = 1; g <= node.gpus_per_node && g <= max_gpus; g *= 2) counts.push_back(g);
  if (counts.empty() || counts.back() != node.gpus_per_node) {
    if (node.gpus_per_node <= max_gpus) counts.push_back(node.gpus_per_node);
  }
  for (int n = 2; n * node.gpus_per_node <= max_gpus; ++n) counts.push_back(n * node.gpus_per_node);
  for (int gpus : counts) {
    int nodes = std::max(1, gpus / node.gpus_per_node);
    int per_node = std::min(gpus, node.gpus_per_node);
    for (const ParallelLayout& layout :
         CandidateLayouts(w, job, gpus, per_node, std::max(per_node, NvlinkDomainGpus(node)))) {
      MemoryBreakdown mem = TrainingMemory(w, job, layout, 1, layout.pipeline, node.gpu, c);
      if (mem.verdict != FitVerdict::kDoesNotFit) return FittingLayout{gpus, nodes, layout, mem};
    }
  }
  return std::nullopt;
}

double SixteenBitStepLowerBound(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                                const ModelConstants& c) {
  const double rate = PeakTflops(cluster.node.gpu, job.precision) * 1e12 * Efficiency(job.precision, c);
  const int gpus = cluster.TotalGpus();
  if (rate <= 0 || gpus <= 0 || job.global_batch <= 0) return 0;
  // Forward and backward GEMMs of every sample of the step, shared evenly by the GPUs at
  // the saturated rate: every layout's micro-steps time at least this (MicroStepTimeOf).
  return 3 * Profile(w).gemm_flops * job.global_batch / gpus / rate;
}

namespace {

// What an estimate holds beyond its figures (EstimateTrainingFigures).
enum class Detail {
  kFigures,             // layout, step, memory, time and range only
  kExplained,           // + assumptions, warnings, the largest micro-batch, scaling efficiency
  kWithSmallestLayout,  // + the fewest GPUs that fit
};

// The estimate of `job` on `cluster`: the fastest layout that fits (or, when none does, the
// one closest to fitting). With `must_beat_s` finite, only a layout that fits and whose step
// is faster than that is an answer: otherwise the estimate is refused (an error the caller
// discards), and the search skips every layout its bounds show cannot beat it. The layout
// answered when one does beat it is the one the search without `must_beat_s` answers.
Result<TrainingEstimate> Estimate(const Workload& w, const TrainingJob& job,
                                  const Cluster& cluster, const ModelConstants& c,
                                  Detail detail,
                                  double must_beat_s = std::numeric_limits<double>::infinity()) {
  const bool explain = detail != Detail::kFigures;
  if (job.framework == Framework::kAuto) {  // resolved and named, then estimated
    TrainingJob resolved = job;
    resolved.framework = ResolveFramework(job.framework, w);
    auto e = Estimate(w, resolved, cluster, c, detail);
    if (e.ok() && explain) {
      e->assumptions.push_back(
          resolved.framework == Framework::kOptimized
              ? "framework auto (the default): optimized for a transformer (fused attention, "
                "fastest fitting TP/PP/ZeRO-1-3 layout); framework eager for plain PyTorch"
              : "framework auto (the default): eager for a " + std::string(FamilyName(w.family)) +
                    " (nothing to fuse); plain data parallel unless it does not fit");
    }
    return e;
  }
  if (job.precision_auto) {  // resolved, then counted once by the call below
    TrainingJob resolved = job;
    resolved.precision_auto = false;
    resolved.precision = AutoTrainingPrecision(cluster.node.gpu, job.framework, w, job.fp8_scaling);
    auto e = Estimate(w, resolved, cluster, c, detail);
    std::string line =
        explain ? AutoTrainingPrecisionAssumption(cluster.node.gpu, job.framework, w,
                                                  job.fp8_scaling)
                : "";
    if (e.ok() && resolved.precision == Precision::kFp8) {
      // FP8 is chosen to be faster; where its casts and 16-bit remainder outweigh the FP8
      // GEMMs (a small model, a short step) the 16-bit estimate is the answer.
      TrainingJob sixteen = resolved;
      sixteen.precision = AutoPrecision(cluster.node.gpu);
      // The smallest fitting layout does not depend on FP8 vs 16-bit (the same state and
      // activation bytes): the FP8 estimate's is reused. A 16-bit step cannot beat an FP8
      // step that fits if its GEMMs alone take longer: then it is not estimated. Otherwise
      // its search is held to the FP8 step (it loses to FP8 in most configurations, and
      // layouts that cannot beat the FP8 step are then not timed).
      const bool fp8_fits = e->memory.verdict != FitVerdict::kDoesNotFit;
      const bool sixteen_may_win =
          !fp8_fits || SixteenBitStepLowerBound(w, sixteen, cluster, c) < e->step.step_time_s;
      auto alt = sixteen_may_win
                     ? Estimate(w, sixteen, cluster, c,
                                explain ? Detail::kExplained : Detail::kFigures,
                                fp8_fits && sixteen.framework == Framework::kOptimized
                                    ? e->step.step_time_s  // (a searched layout, not plain DP)
                                    : std::numeric_limits<double>::infinity())
                     : Result<TrainingEstimate>(Error::Invalid({Part::kJob, "precision"}, ""));
      if (alt.ok()) alt->smallest_layout = e->smallest_layout;
      if (alt.ok() && alt->memory.verdict != FitVerdict::kDoesNotFit &&
          (!fp8_fits || alt->step.step_time_s < e->step.step_time_s)) {
        if (explain) line = "precision auto: " + std::string(PrecisionName(sixteen.precision)) + " (" +
               cluster.node.gpu.id + " has FP8, but an FP8 step would take " +
               Fmt(e->step.step_time_s) + " s against " + Fmt(alt->step.step_time_s) +
               " s: its casts and 16-bit remainder outweigh the FP8 GEMMs here)";
        e = std::move(alt);
      }
    }
    if (e.ok() && explain) e->assumptions.insert(e->assumptions.begin(), std::move(line));
    return e;
  }
  internal::CountTrainingEvaluation();
  Status valid = ValidateWorkload(w);
  if (valid.ok()) valid = ValidateCluster(cluster);
  if (valid.ok()) valid = ValidateJob(job, w, cluster.node.gpu);
  if (!valid.ok()) return valid.error();
  const int gpus = cluster.TotalGpus();

  const long long model_parallel = std::max(1LL, static_cast<long long>(job.tensor_parallel)) *
                                   std::max(1, job.pipeline_parallel) *
                                   std::max(1, job.context_parallel);
  if (gpus % model_parallel != 0) {
    return Error::Invalid({Part::kJob, job.context_parallel > 1  ? "context_parallel"
                                       : job.tensor_parallel > 1 ? "tensor_parallel"
                                                                 : "pipeline_parallel"},
                          "tensor_parallel x pipeline_parallel x context_parallel = " +
                              std::to_string(model_parallel) + " does not divide the " +
                              std::to_string(gpus) + " GPUs")
        .Because(Refusal::kLayoutDoesNotDivide);
  }
  if (job.tensor_parallel > NvlinkDomainGpus(cluster.node)) {
    return Error::Invalid({Part::kJob, "tensor_parallel"},
                          "tensor_parallel " + std::to_string(job.tensor_parallel) +
                              " spans more than the " +
                              std::to_string(NvlinkDomainGpus(cluster.node)) +
                              " GPUs linked by NVLink (or of a node)")
        .Because(Refusal::kLayoutDoesNotDivide);
  }

  TrainingEstimate best;
  best.precision = job.precision;
  double best_time = must_beat_s;  // of the best layout so far, or the step to beat
  bool found = false;
  // Micro-steps timed so far, by (tensor, pipeline, context, sequence parallel, micro-batch):
  // ZeRO stages and interleaving share them.
  struct TimedMicroStep {
    int tensor, pipeline, context;
    bool sequence_parallel;
    int micro_batch;
    MicroStep step;
  };
  std::vector<TimedMicroStep> micro_steps;
  micro_steps.reserve(16);
  const OperatorProfile profile = Profile(w);
  auto micro_step = [&](const ParallelLayout& layout, int b) -> const MicroStep& {
    for (const TimedMicroStep& t : micro_steps) {
      if (t.tensor == layout.tensor && t.pipeline == layout.pipeline &&
          t.context == layout.context && t.sequence_parallel == layout.sequence_parallel &&
          t.micro_batch == b) {
        return t.step;
      }
    }
    micro_steps.push_back({layout.tensor, layout.pipeline, layout.context,
                           layout.sequence_parallel, b,
                           MicroStepTimeOf(profile, w, job, cluster.node.gpu, layout, b, c)});
    return micro_steps.back().step;
  };
  // What the layouts of one (tensor, pipeline, context, sequence parallel, interleaving,
  // data) group share whatever their ZeRO stage (CandidateLayouts lists a group's stages
  // together): the bound's tensor-parallel and pipeline terms, and the gradient sync of stages
  // 0-2 (one DDP all-reduce; ZeRO-3's is its own).
  struct GroupTerms {
    ParallelLayout layout;
    bool valid = false;
    double layout_s = 0;  // the bound's tensor-parallel and pipeline-send seconds
    std::optional<GradientSync> ddp;
  } group;
  auto group_of = [&](const ParallelLayout& layout, int per_gpu) -> GroupTerms& {
    const ParallelLayout& g = group.layout;
    if (!group.valid || g.tensor != layout.tensor || g.pipeline != layout.pipeline ||
        g.context != layout.context || g.sequence_parallel != layout.sequence_parallel ||
        g.virtual_stages != layout.virtual_stages || g.data != layout.data) {
      group = GroupTerms{};
      group.layout = layout;
      group.valid = true;
      group.layout_s = (job.tensor_parallel_overlap
                            ? 0.0
                            : TensorParallelSeconds(w, job, cluster, layout, per_gpu, c)) +
                       PipelineSendSeconds(w, job, cluster, layout, per_gpu, c);
    }
    return group;
  };
  auto sync_of = [&](const ParallelLayout& layout, GroupTerms& terms) {
    if (layout.zero_stage >= 3) return GradientSyncOf(w, job, cluster, layout, c);
    if (!terms.ddp) terms.ddp = GradientSyncOf(w, job, cluster, layout, c);
    return *terms.ddp;
  };
  // Times `layout` and keeps it if it is the fastest so far.
  auto evaluate = [&](const ParallelLayout& layout, bool must_fit) {
    if (job.global_batch < layout.data) return;
    int per_gpu = CeilDiv(job.global_batch, layout.data);
    GroupTerms& terms = group_of(layout, per_gpu);
    std::optional<GradientSync> sync;  // of a data-parallel layout, once computed
    // A bound no micro-batch can beat: whatever b and m (b x m >= per_gpu), the m micro-steps
    // take at least one micro-step of the replica's whole share (each part of a micro-step
    // is affine in b with non-negative fixed costs, and SmoothMax is monotone and
    // homogeneous), the tensor-parallel all-reduces and pipeline sends at least those of the
    // whole share, the optimizer pass is fixed, and data parallelism adds at least what it
    // adds to one micro-step of the whole share; every other term of a step is >= 0. A
    // layout whose bound is no better than the best so far is not searched for its
    // micro-batch.
    if (best_time < std::numeric_limits<double>::infinity()) {
      // The pipeline's sends are affine in the micro-batch with a fixed latency: the m sends
      // take at least those of the whole share. (Its bubble would need another micro-step
      // timed: that costs more than the layouts it would leave out.)
      const MicroStep& whole = micro_step(layout, per_gpu);
      double bound = whole.total_s + terms.layout_s +
                     OptimizerSeconds(w, job, cluster.node.gpu, layout, c);
      // Data parallelism's terms are no smaller with shorter micro-steps (DataParallelSeconds).
      if (layout.data * layout.context > 1) {
        sync = sync_of(layout, terms);
        const DataParallelTerms dp = DataParallelSeconds(*sync, w, layout, whole, 1, c);
        bound += dp.exposed_s + dp.stragglers_s;
      }
      if (bound > best_time * (1 + 1e-12)) return;
    }
    int b = job.micro_batch > 0 ? job.micro_batch
                                : MaxMicroBatch(w, job, layout, layout.pipeline, cluster.node.gpu,
                                                c, per_gpu);
    if (b == 0) {
      if (must_fit) return;
      b = 1;
    }
    b = std::min(b, per_gpu);
    int m = CeilDiv(per_gpu, b);
    // Chosen micro-batches split the replica's samples evenly (2048 = 2 x 1024, not
    // 1653 + a padded 1653): the step then times the work it really does.
    if (job.micro_batch <= 0) b = CeilDiv(per_gpu, m);
    const MicroStep& micro = micro_step(layout, b);
    // The micro-steps alone (compute, memory, overhead: every other term of a step is >= 0)
    // already as slow as the best so far: this layout cannot win, so it is not timed further.
    if (m * micro.total_s > best_time * (1 + 1e-12)) return;
    if (!sync && layout.data * layout.context > 1) sync = sync_of(layout, terms);
    StepResult step =
        StepTimeOf(micro, w, job, cluster, layout, b, m, c, sync ? &*sync : nullptr);
    if (!(step.step_time_s < best_time)) return;
    MemoryBreakdown mem = TrainingMemory(w, job, layout, b, m, cluster.node.gpu, c);
    if (must_fit && mem.verdict == FitVerdict::kDoesNotFit) return;
    best_time = step.step_time_s;
    best.layout = layout;
    best.micro_batch = b;
    best.grad_accumulation_steps = m;
    best.step = step;
    best.memory = mem;
    found = true;
  };
  // Plain data parallelism is what a job runs unless it does not fit or the job asks for
  // more (a ZeRO stage, TP/PP degrees, or an optimized Megatron/FSDP-class framework).
  // (TP x PP divides the GPUs: checked above.)
  ParallelLayout plain{std::max(1, job.tensor_parallel), std::max(1, job.pipeline_parallel),
                       static_cast<int>(gpus / model_parallel), std::max(0, job.zero_stage)};
  plain.context = std::max(1, job.context_parallel);
  plain.virtual_stages = std::max(1, job.virtual_pipeline_stages);
  plain.sequence_parallel = SequenceParallelOf(job, plain.tensor);
  bool search = job.framework == Framework::kOptimized;
  if (!search) {
    evaluate(plain, true);
    search = !found;
  }
  if (search) {
    for (const ParallelLayout& layout :
         CandidateLayouts(w, job, gpus, cluster.node.gpus_per_node,
                          NvlinkDomainGpus(cluster.node))) {
      evaluate(layout, true);
    }
  }
  if (!found && must_beat_s < std::numeric_limits<double>::infinity()) {
    return Error::Invalid({Part::kJob, "precision"},
                          "no layout that fits is faster than " + Fmt(must_beat_s) + " s a step");
  }
  if (!found) {
    if (job.global_batch < plain.data) {
      return Error::Invalid({Part::kJob, "global_batch_size"},
                            "global_batch_size " + std::to_string(job.global_batch) +
                                " is smaller than the " + std::to_string(plain.data) +
                                " data-parallel GPUs")
          .Because(Refusal::kBatchTooSmall);
    }
    evaluate(plain, false);
    // What does not fit is reported on the layout that comes closest (least memory per GPU
    // among those allowed), so its figures say how far from fitting the job is.
    const int probe = job.micro_batch > 0 ? job.micro_batch : 1;
    ParallelLayout leanest = best.layout;
    double least = best.memory.total_gb;
    for (const ParallelLayout& layout :
         CandidateLayouts(w, job, gpus, cluster.node.gpus_per_node,
                          NvlinkDomainGpus(cluster.node))) {
      if (job.global_batch < layout.data) continue;
      double need =
          TrainingMemory(w, job, layout, probe, layout.pipeline, cluster.node.gpu, c).total_gb;
      if (need < least) {
        least = need;
        leanest = layout;
      }
    }
    if (least < best.memory.total_gb) {
      best_time = std::numeric_limits<double>::infinity();
      evaluate(leanest, false);
    }
    if (best.memory.verdict == FitVerdict::kDoesNotFit && explain) {
      // With a micro-batch given, only that one was tried: say so, not "even at 1".
      best.warnings.push_back("does not fit in " + Fmt(cluster.node.gpu.memory_gb) +
                              " GB per GPU with any allowed layout on " + std::to_string(gpus) +
                              " GPU(s), " +
                              (job.micro_batch > 0
                                   ? "at the micro-batch of " + std::to_string(job.micro_batch) +
                                         " asked"
                                   : std::string("even at micro-batch 1")));
    }
  }
  if (explain) {
    // The step processes micro x accumulation x replicas samples: say where that differs
    // from the global batch rather than price padding silently.
    const long long data = best.layout.data;
    const long long per_replica = CeilDiv(job.global_batch, best.layout.data);
    if (job.global_batch % data != 0) {
      best.warnings.push_back("global_batch_size " + std::to_string(job.global_batch) +
                              " is not a multiple of the " + std::to_string(data) +
                              " data-parallel replicas: each takes " +
                              std::to_string(per_replica) + " samples, so a step is timed for " +
                              std::to_string(per_replica * data));
    }
    const long long timed = static_cast<long long>(best.micro_batch) * best.grad_accumulation_steps;
    if (timed != per_replica) {
      long long last = per_replica - (best.grad_accumulation_steps - 1LL) * best.micro_batch;
      best.warnings.push_back(
          std::to_string(per_replica) + " samples per replica do not split into " +
          std::to_string(best.grad_accumulation_steps) + " equal micro-batches of " +
          std::to_string(best.micro_batch) + ": the last holds " + std::to_string(last) +
          ", timed as a full one (" + Fmt(100.0 * (timed - per_replica) / per_replica) +
          " % more work than the batch)");
    }
  }
  if (detail == Detail::kWithSmallestLayout) {
    best.smallest_layout = SmallestFittingLayout(w, job, cluster.node, 1024, c);
  }
  if (explain) {
    best.max_micro_batch = MaxMicroBatch(w, job, best.layout, best.layout.pipeline,
                                         cluster.node.gpu, c, 1 << 16);
  }

  const double tokens_per_sample = TokensPerSample(w);
  best.samples_per_s = job.global_batch / best.step.step_time_s;
  best.tokens_per_s = best.samples_per_s * tokens_per_sample;
  double peak = PeakTflops(cluster.node.gpu, job.precision) * 1e12;
  best.mfu = TrainFlopsPerSample(w) * best.samples_per_s / (gpus * peak);

  if (explain) best.scaling_efficiency = ScalingEfficiency(w, job, cluster, best, c);

  std::vector<std::string> widened;
  const bool splits_model =
      best.layout.tensor > 1 || best.layout.pipeline > 1 || best.layout.context > 1;
  double sigma = c.TrainingSigma(w, cluster.node.gpu.architecture, best.layout.Gpus(),
                                 cluster.nodes, splits_model, explain ? &widened : nullptr);
  for (std::string& line : widened) best.warnings.push_back(std::move(line));
  if (job.hours > 0) {
    // A fixed duration: the work is the whole steps that fit in it; the time has no range,
    // the work has (the same P10-P90 ratio, inverted).
    best.steps = std::floor(job.hours * 3600 / best.step.step_time_s);
    if (best.steps < 1) {
      return Error::Invalid({Part::kDataset, "hours"}, "a duration of " + Fmt(job.hours * 3600) +
                                                           " s is shorter than one step (" +
                                                           Fmt(best.step.step_time_s) + " s)");
    }
    best.total_samples = best.steps * job.global_batch;
    best.total_hours = job.hours;
    best.p10_hours = best.p90_hours = job.hours;
    best.work_p10_samples = best.total_samples * std::exp(-1.2816 * sigma);
    best.work_p90_samples = best.total_samples * std::exp(1.2816 * sigma);
    best.epochs = job.samples > 0 ? best.total_samples / job.samples : 0;
  } else {
    best.total_samples = TotalSamples(job, w);
    best.epochs = job.tokens > 0 ? (job.samples > 0 ? best.total_samples / job.samples : 0)
                                 : job.epochs;
    best.steps = std::ceil(best.total_samples / job.global_batch);
    best.total_hours = best.steps * best.step.step_time_s / 3600;
    best.p10_hours = best.total_hours * std::exp(-1.2816 * sigma);
    best.p90_hours = best.total_hours * std::exp(1.2816 * sigma);
  }
  best.total_tokens = best.total_samples * tokens_per_sample;
  best.train_flops = TrainFlopsPerSample(w) * best.total_samples;
  if (!explain) return best;  // the rest is words

  best.assumptions.push_back("step built from operator classes on the GPU's specs; twelve "
                             "constants fitted on published training throughputs (V100 to "
                             "H100, 1 to 512 GPUs; PyTorch, TensorFlow and FSDP LLM "
                             "pre-training in BF16 and FP8)");
  if (job.framework == Framework::kOptimized && IsTransformer(w.family)) {
    const GpuSpec& gpu = cluster.node.gpu;
    const double portable = PortableAttentionPeak(gpu, c) / 1e12;
    std::string line;
    line.reserve(320);
    line += IsDecoderOnly(w.family)
                ? "attention: fused FlashAttention-2-class kernels (a causal mask halves the work) at "
                : "attention: fused FlashAttention-2-class kernels at ";
    line += Fmt(c.eta_attention * 100);
    line += " % of ";
    line += Fmt(portable);
    line += " TFLOPS";
    if (gpu.sm_count <= 0 || gpu.boost_clock_mhz <= 0) {
      line += " (the catalog has no SM count or clock for " + gpu.id +
              ": its datasheet peak, not the mma.sync rate that caps portable kernels on "
              "Hopper and Blackwell, so attention may be faster here than it runs)";
    } else if (portable < SixteenBitPeakTflops(gpu) * 0.999) {
      line += " (the warp-level mma.sync rate of ";
      line += gpu.id;
      line += ", below its ";
      line += Fmt(SixteenBitPeakTflops(gpu));
      line += " TFLOPS peak; Hopper-native kernels such as FlashAttention-3 are not modelled "
              "and run long sequences faster)";
    }
    best.assumptions.push_back(std::move(line));
  }
  if (job.hours > 0) {
    best.assumptions.push_back(
        "a fixed duration of " + Fmt(job.hours) + " h: the work is the " + Fmt(best.steps) +
        " whole steps the predicted throughput fits in it; the P10-P90 range is of the work "
        "(samples " + Fmt(best.work_p10_samples) + " to " + Fmt(best.work_p90_samples) +
        "), not of the time");
  }
  if (best.layout.Gpus() > 1) {
    const ParallelLayout& l = best.layout;
    std::string line = "layout: tensor " + std::to_string(l.tensor) + " x pipeline " +
                       std::to_string(l.pipeline) + " x context " + std::to_string(l.context) +
                       " x data " + std::to_string(l.data) + ", ZeRO stage " +
                       std::to_string(l.zero_stage);
    if (l.virtual_stages > 1) {
      line += ", interleaved 1F1B with " + std::to_string(l.virtual_stages) + " virtual stages";
    } else if (l.pipeline > 1) {
      line += ", plain 1F1B (Megatron's default; virtual_pipeline_stages estimates the "
              "interleaved schedule's smaller bubble)";
    }
    if (l.tensor > 1) {
      line += l.sequence_parallel ? ", sequence parallel" : ", no sequence parallelism";
      if (job.tensor_parallel_overlap) line += ", tensor-parallel collectives overlapped";
    }
    if (job.framework == Framework::kEager && job.zero_stage < 0 && l.zero_stage == 0 &&
        l.tensor == 1 && l.pipeline == 1 && l.context == 1) {
      line += " (plain data parallel, the default for a job that fits)";
    }
    best.assumptions.push_back(line);
  }
  if (cluster.node.gpu.sm_count <= 0) {
    best.assumptions.push_back("SM count of " + cluster.node.gpu.id + " unknown: " +
                               Fmt(SmCount(cluster.node.gpu)) + " estimated from its FP32 rate");
  }
  best.assumptions.push_back("framework: " + std::string(FrameworkName(job.framework)));
  for (std::string& d : ShapeDefaults(w)) best.warnings.push_back(std::move(d));
  if (cluster.nodes > 1 && cluster.node.network_gbps <= 0 &&
      cluster.TotalGpus() > NvlinkDomainGpus(cluster.node)) {
    best.assumptions.push_back("network bandwidth not stated: " + Fmt(c.default_network_gbps) +
                               " Gbit/s per node assumed");
  }
  if (IsImage(w.family) && cluster.node.vcpus <= 0) {
    best.assumptions.push_back("vCPUs unknown: the input pipeline is assumed not to limit");
  }
  if (job.precision == Precision::kFp8) {
    best.assumptions.push_back(
        "fp8: layer projections at " + Fmt(c.eta_fp8_vs_16bit * 100) +
        " % of the BF16 GEMMs' share of the FP8 peak (fitted on published Transformer Engine "
        "runs); attention, output head, norms and optimizer in BF16/FP32; casts with " +
        std::string(Fp8ScalingName(job.fp8_scaling)) + " scaling, " + Fmt(RecipeCastBytes(job, c)) +
        " bytes moved per cast element" +
        (job.fp8_scaling == Fp8Scaling::kMxfp8
             ? "; MXFP8 GEMMs at the FP8 peak with the same efficiency (block scales are "
               "applied inside the tensor cores; not calibrated: no published MXFP8 run in "
               "the fit)"
             : ""));
  }
  if (job.precision == Precision::kNvfp4) {
    best.assumptions.push_back(
        "nvfp4: layer projections at the FP4 peak with the FP8 recipes' fitted efficiency (" +
        Fmt(c.eta_fp8_vs_16bit * 100) +
        " % of the BF16 GEMMs' share), every projection in NVFP4; attention, output head, "
        "norms and optimizer in BF16/FP32; casts with an amax pass, then row- and "
        "column-wise FP4 copies with an E4M3 scale per 16 values, " +
        Fmt(RecipeCastBytes(job, c)) + " bytes moved per cast element");
    best.warnings.push_back(
        "nvfp4 training is not calibrated (no published NVFP4 run in the fit), and NVIDIA's "
        "published recipe (arXiv 2509.25149) keeps a few linear layers in BF16 for stability, "
        "which this estimate does not: expect a slower step than predicted");
  }
  if (c.sigma_by_family.count(w.family) == 0) {
    best.warnings.push_back(std::string("no calibration data for family ") +
                            std::string(FamilyName(w.family)) + ": wider uncertainty");
  }
  if (job.checkpointing == Checkpointing::kSelective && IsTransformer(w.family)) {
    best.warnings.push_back(
        "activation_checkpointing selective recomputes the attention core, whose "
        "probabilities memory-efficient attention already does not keep: it saves no memory "
        "here and costs the recompute time; none or full are the choices that matter");
  }
  if (best.memory.verdict == FitVerdict::kTight) {
    best.warnings.push_back("memory is tight: fragmentation may cause out-of-memory errors");
  }
  return best;
}

}  // namespace

Result<TrainingEstimate> EstimateTraining(const Workload& w, const TrainingJob& job,
                                          const Cluster& cluster, const ModelConstants& c,
                                          bool find_smallest_layout) {
  return Estimate(w, job, cluster, c,
                  find_smallest_layout ? Detail::kWithSmallestLayout : Detail::kExplained);
}

Result<TrainingEstimate> EstimateTrainingFigures(const Workload& w, const TrainingJob& job,
                                                 const Cluster& cluster,
                                                 const ModelConstants& c) {
  return Estimate(w, job, cluster, c, Detail::kFigures);
}

}  // namespace gpuplan::model
