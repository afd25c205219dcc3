#include "model/training.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/collectives.h"

namespace gpuplan::model {

namespace {

double Efficiency(const Workload& w, Precision p, const ModelConstants& c) {
  double eta = 0;
  switch (p) {
    case Precision::kFp32: eta = c.eta_fp32; break;
    case Precision::kTf32: eta = c.eta_tf32; break;
    case Precision::kFp16:
    case Precision::kBf16: eta = c.eta_16bit; break;
    case Precision::kFp8: eta = c.eta_16bit * c.eta_fp8_vs_16bit; break;
    case Precision::kInt8: eta = c.eta_16bit * c.eta_fp8_vs_16bit; break;
  }
  if (w.family == Family::kRnn) eta *= c.rnn_efficiency;
  return eta;
}

double RecomputeFactor(Checkpointing ck) {
  switch (ck) {
    case Checkpointing::kFull: return 4.0 / 3.0;  // one more forward pass
    case Checkpointing::kSelective: return 1.03;  // attention core only
    case Checkpointing::kNone: return 1.0;
  }
  return 1.0;
}

// HBM bytes moved by elementwise kernels in one micro-step on one GPU.
double TrafficBytes(const Workload& w, const TrainingJob& job, const ParallelLayout& layout,
                    int b, const ModelConstants& c) {
  double beta = ActivationBytes(job.precision);
  if (w.family == Family::kCnn) {
    double scale = w.reference_image_size > 0 && w.image_size > 0
                       ? std::pow(double(w.image_size) / w.reference_image_size, 2)
                       : 1.0;
    return b * w.activation_elements_per_sample * scale * beta * c.cnn_traffic_passes /
           layout.pipeline;
  }
  TrainingJob no_ckpt = job;
  no_ckpt.checkpointing = Checkpointing::kNone;
  ParallelLayout one = layout;
  double act = ActivationBytesPerGpu(w, no_ckpt, one, b, 1, c);
  return act * c.transformer_traffic_passes;
}

std::pair<int, int> DataParallelTopology(const Cluster& cluster, const ParallelLayout& layout) {
  int per_node = cluster.node.gpus_per_node;
  int model_parallel = layout.tensor * layout.pipeline;
  if (model_parallel <= per_node) {
    return {std::max(1, per_node / model_parallel), cluster.nodes};
  }
  return {1, layout.data};
}

}  // namespace

StepResult StepTime(const Workload& w, const TrainingJob& job, const Cluster& cluster,
                    const ParallelLayout& layout, int b, int m, const ModelConstants& c) {
  const GpuSpec& gpu = cluster.node.gpu;
  double peak = PeakTflops(gpu, job.precision) * 1e12;
  double split = static_cast<double>(layout.tensor) * layout.pipeline;
  double flops = TrainFlopsPerSample(w) * b * RecomputeFactor(job.checkpointing) / split;
  double t_compute = flops / (peak * Efficiency(w, job.precision, c));
  double traffic = TrafficBytes(w, job, layout, b, c);
  if (ActivationBytes(job.precision) > 2) traffic *= c.fp32_traffic_factor;
  double t_memory = traffic / (gpu.memory_bw_gbps * 1e9 * c.eta_bw);
  double t_gpu = t_compute + t_memory;
  double t_cpu = c.cpu_step_overhead_s +
                 c.cpu_layer_overhead_s * KernelLayers(w) / std::max(1, layout.pipeline);
  if (job.framework == Framework::kOptimized) t_cpu *= c.optimized_overhead_factor;
  double k = c.smooth_k;
  double t_micro = std::pow(std::pow(t_gpu, k) + std::pow(t_cpu, k), 1.0 / k);

  double t_tp = 0;
  if (layout.tensor > 1) {
    double bytes = static_cast<double>(b) * TokensPerSample(w) * w.hidden *
                   ActivationBytes(job.precision);
    t_tp = 4.0 * w.layers / layout.pipeline *
           AllReduceSeconds(bytes, layout.tensor, 1, cluster.node, c);
  }
  StepResult r;
  StepBreakdown& s = r.breakdown;
  s.compute_s = m * t_compute;
  s.memory_s = m * t_memory;
  s.overhead_s = m * (t_micro - t_gpu);
  s.communication_s = m * t_tp;
  s.bubble_s = (layout.pipeline - 1) * (t_micro + t_tp);

  if (layout.data > 1) {
    double grad_bytes = ParamsTotal(w) / split * (IsMixedPrecision(job.precision) ? 2.0 : 4.0);
    if (layout.zero_stage >= 3) grad_bytes *= 1.5;
    auto [g, nodes] = DataParallelTopology(cluster, layout);
    double t_ar = AllReduceSeconds(grad_bytes, g, nodes, cluster.node, c);
    double backward = 2.0 / 3.0 * t_micro;
    s.communication_s += (1 - c.dp_overlap) * t_ar + std::max(0.0, c.dp_overlap * t_ar - backward);
    // Synchronising the replicas once per optimizer step costs stragglers' time.
    s.communication_s += c.dp_sync_fraction * t_micro * std::log2(static_cast<double>(layout.data));
  }
  double shard = layout.zero_stage >= 1 ? layout.data : 1;
  double opt_bytes = job.framework == Framework::kOptimized ? c.optimized_optimizer_bytes_per_param
                                                           : c.optimizer_bytes_per_param;
  if (job.optimizer == Optimizer::kSgd) opt_bytes *= 0.5;  // one moment instead of two
  s.optimizer_s = ParamsTotal(w) / split / shard * opt_bytes / (gpu.memory_bw_gbps * 1e9 * c.eta_bw);

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
  for (const auto& [name, value] : terms) {
    if (value > r.bottleneck_share) {
      r.bottleneck_share = value;
      r.bottleneck = name;
    }
  }
  r.bottleneck_share = r.step_time_s > 0 ? r.bottleneck_share / r.step_time_s : 0;
  return r;
}

namespace {

std::vector<int> PowersOfTwoUpTo(int limit) {
  std::vector<int> out;
  for (int v = 1; v <= limit; v *= 2) out.push_back(v);
  return out;
}

// Layouts of `gpus` GPUs on nodes of `per_node` allowed by the job's fixed choices.
std::vector<ParallelLayout> CandidateLayouts(const Workload& w, const TrainingJob& job, int gpus,
                                             int per_node) {
  std::vector<ParallelLayout> out;
  bool model_parallel_ok = IsTransformer(w.family);
  std::vector<int> tps = job.tensor_parallel > 0 ? std::vector<int>{job.tensor_parallel}
                         : model_parallel_ok     ? PowersOfTwoUpTo(per_node)
                                                 : std::vector<int>{1};
  std::vector<int> pps = job.pipeline_parallel > 0 ? std::vector<int>{job.pipeline_parallel}
                         : model_parallel_ok       ? PowersOfTwoUpTo(std::min(gpus, w.layers))
                                                   : std::vector<int>{1};
  std::vector<int> zeros = job.zero_stage >= 0 ? std::vector<int>{job.zero_stage}
                                               : std::vector<int>{0, 1, 2, 3};
  for (int tp : tps) {
    if (tp > per_node || per_node % tp != 0) continue;
    for (int pp : pps) {
      if (gpus % (tp * pp) != 0 || (w.layers > 0 && pp > w.layers)) continue;
      for (int zero : zeros) {
        int d = gpus / (tp * pp);
        if (zero > 0 && d == 1 && job.zero_stage < 0) continue;  // nothing to shard over
        out.push_back(ParallelLayout{tp, pp, d, zero});
      }
    }
  }
  return out;
}

std::string Fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.3g", v);
  return b;
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
    for (const ParallelLayout& layout : CandidateLayouts(w, job, gpus, per_node)) {
      MemoryBreakdown mem = TrainingMemory(w, job, layout, 1, layout.pipeline, node.gpu, c);
      if (mem.verdict != FitVerdict::kDoesNotFit) return FittingLayout{gpus, nodes, layout, mem};
    }
  }
  return std::nullopt;
}

Result<TrainingEstimate> EstimateTraining(const Workload& w, const TrainingJob& job,
                                          const Cluster& cluster, const ModelConstants& c,
                                          bool find_smallest_layout) {
  Status valid = ValidateWorkload(w);
  if (valid.ok()) valid = ValidateCluster(cluster);
  if (valid.ok()) valid = ValidateJob(job, w, cluster.node.gpu);
  if (!valid.ok()) return valid.error();
  const int gpus = cluster.TotalGpus();
  if (job.tensor_parallel > 0 && !IsTransformer(w.family) && job.tensor_parallel > 1) {
    return Error::Invalid("/tensor_parallel", "tensor parallelism applies to transformers only");
  }

  TrainingEstimate best;
  double best_time = std::numeric_limits<double>::infinity();
  bool found = false;
  auto evaluate = [&](const ParallelLayout& layout, bool must_fit) {
    if (job.global_batch < layout.data) return;
    int per_gpu = (job.global_batch + layout.data - 1) / layout.data;
    int b = job.micro_batch > 0 ? job.micro_batch
                                : MaxMicroBatch(w, job, layout, layout.pipeline, cluster.node.gpu,
                                                c, per_gpu);
    if (b == 0) {
      if (must_fit) return;
      b = 1;
    }
    b = std::min(b, per_gpu);
    int m = (per_gpu + b - 1) / b;
    MemoryBreakdown mem = TrainingMemory(w, job, layout, b, m, cluster.node.gpu, c);
    if (must_fit && mem.verdict == FitVerdict::kDoesNotFit) return;
    StepResult step = StepTime(w, job, cluster, layout, b, m, c);
    if (step.step_time_s < best_time) {
      best_time = step.step_time_s;
      best.layout = layout;
      best.micro_batch = b;
      best.grad_accumulation_steps = m;
      best.step = step;
      best.memory = mem;
      found = true;
    }
  };
  for (const ParallelLayout& layout :
       CandidateLayouts(w, job, gpus, cluster.node.gpus_per_node)) {
    evaluate(layout, true);
  }
  if (!found) {
    ParallelLayout plain{std::max(1, job.tensor_parallel), std::max(1, job.pipeline_parallel), 1,
                         std::max(0, job.zero_stage)};
    plain.data = std::max(1, gpus / (plain.tensor * plain.pipeline));
    if (job.global_batch < plain.data) {
      return Error::Invalid("/global_batch_size",
                            "global_batch_size " + std::to_string(job.global_batch) +
                                " is smaller than the " + std::to_string(plain.data) +
                                " data-parallel GPUs");
    }
    evaluate(plain, false);
    best.warnings.push_back("does not fit in " + Fmt(cluster.node.gpu.memory_gb) +
                            " GB per GPU with any allowed layout on " + std::to_string(gpus) +
                            " GPU(s), even at micro-batch 1");
  }
  if (find_smallest_layout) {
    best.smallest_layout = SmallestFittingLayout(w, job, cluster.node, 1024, c);
  }
  best.max_micro_batch = MaxMicroBatch(w, job, best.layout, best.layout.pipeline,
                                       cluster.node.gpu, c, 1 << 16);

  const double tokens_per_sample = TokensPerSample(w);
  best.samples_per_s = job.global_batch / best.step.step_time_s;
  best.tokens_per_s = best.samples_per_s * tokens_per_sample;
  double peak = PeakTflops(cluster.node.gpu, job.precision) * 1e12;
  best.mfu = TrainFlopsPerSample(w) * best.samples_per_s / (gpus * peak);

  // Against one GPU doing the same per-GPU work: the share of the step that is not spent
  // communicating or waiting in the pipeline.
  const StepBreakdown& parts = best.step.breakdown;
  best.scaling_efficiency =
      1 - (parts.communication_s + parts.bubble_s) / std::max(best.step.step_time_s, 1e-12);

  best.total_samples = job.tokens > 0 ? job.tokens / tokens_per_sample : job.samples * job.epochs;
  best.total_tokens = best.total_samples * tokens_per_sample;
  best.epochs = job.tokens > 0 ? (job.samples > 0 ? best.total_samples / job.samples : 0)
                               : job.epochs;
  best.steps = std::ceil(best.total_samples / job.global_batch);
  best.total_hours = best.steps * best.step.step_time_s / 3600;
  double sigma = c.Sigma(w.family);
  best.p10_hours = best.total_hours * std::exp(-1.2816 * sigma);
  best.p90_hours = best.total_hours * std::exp(1.2816 * sigma);
  best.train_flops = TrainFlopsPerSample(w) * best.total_samples;

  best.assumptions.push_back("efficiency constants fitted on NVIDIA DeepLearningExamples "
                             "training throughputs (V100, A100; PyTorch and TensorFlow)");
  best.assumptions.push_back("framework: " + std::string(FrameworkName(job.framework)));
  for (std::string& d : ShapeDefaults(w)) best.warnings.push_back(std::move(d));
  if (cluster.nodes > 1 && cluster.node.network_gbps <= 0) {
    best.assumptions.push_back("network bandwidth not stated: " + Fmt(c.default_network_gbps) +
                               " Gbit/s per node assumed");
  }
  if (IsImage(w.family) && cluster.node.vcpus <= 0) {
    best.assumptions.push_back("vCPUs unknown: the input pipeline is assumed not to limit");
  }
  if (job.precision == Precision::kFp8) {
    best.assumptions.push_back("fp8 efficiency is an assumption (1.2x bf16), not fitted");
  }
  if (c.sigma_by_family.count(w.family) == 0) {
    best.warnings.push_back(std::string("no calibration data for family ") +
                            std::string(FamilyName(w.family)) + ": wider uncertainty");
  }
  if (best.memory.verdict == FitVerdict::kTight) {
    best.warnings.push_back("memory is tight: fragmentation may cause out-of-memory errors");
  }
  return best;
}

}  // namespace gpuplan::model
