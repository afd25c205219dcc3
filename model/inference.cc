#include "model/inference.h"

#include <algorithm>
#include <cmath>

#include "model/collectives.h"
#include "model/evaluations.h"
#include "model/training.h"
#include "model/training_job.h"

namespace gpuplan::model {

namespace {

double WeightBytesPerParam(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kTf32: return 4;
    case Precision::kFp8:
    case Precision::kInt8: return 1;
    default: return 2;
  }
}

double UsableGb(const GpuSpec& gpu, const ModelConstants& c) {
  return gpu.memory_gb * c.usable_memory_fraction - c.memory_reserve_gb;
}

// Per-GPU time of one decode step for `batch` sequences with mean context `context`.
double DecodeStep(const Workload& w, const NodeSpec& node, Precision p, int tp, int batch,
                  double context, const ModelConstants& c, const ServingConstants& s) {
  const GpuSpec& g = node.gpu;
  double weights = ParamsTotal(w) * WeightBytesPerParam(p) / tp;
  if (w.family == Family::kMoe) {  // only the active experts' weights are read per token
    weights *= std::min(1.0, MatmulParamsPerToken(w) * batch / ParamsTotal(w));
  }
  double kv = batch * context * KvCacheBytesPerToken(w, p) / tp;
  double t_mem = (weights + kv) / DramBandwidth(g, c);
  double t_cmp = 2 * MatmulParamsPerToken(w) * batch / tp /
                 (PeakTflops(g, p) * 1e12 * s.eta_decode_compute);
  double t_floor = w.layers * s.decode_kernels_per_layer * c.kernel_floor_s;
  double t = std::max({t_mem, t_cmp, t_floor}) + s.decode_overhead_s;
  if (tp > 1) {
    double bytes = static_cast<double>(batch) * w.hidden * 2;
    t += 2.0 * w.layers * AllReduceSeconds(bytes, tp, 1, node, c);
  }
  return t;
}

double PrefillTime(const Workload& w, const NodeSpec& node, Precision p, int tp, int tokens,
                   const ServingConstants& s) {
  double flops = 2 * MatmulParamsPerToken(w) * tokens +
                 2.0 * w.layers * w.hidden * static_cast<double>(tokens) * tokens;  // causal
  return s.prefill_overhead_s + flops / tp / (PeakTflops(node.gpu, p) * 1e12 * s.eta_prefill);
}

Status ValidateRequest(const Workload& w, const NodeSpec& node, const ServingRequest& r) {
  if (node.gpus_per_node < 1 || node.gpus_per_node > kMaxGpusPerNode) {
    return Error::Invalid("hardware.gpus_per_node", "gpus_per_node must be from 1 to " +
                                                         std::to_string(kMaxGpusPerNode));
  }
  if (PeakTflops(node.gpu, r.precision) <= 0) {
    return Error::Invalid("precision", std::string(PrecisionName(r.precision)) +
                                            " is not supported by " + node.gpu.id);
  }
  bool decoder = w.family == Family::kDecoder || w.family == Family::kMoe;
  if (decoder && r.input_tokens < 1) {
    return Error::Invalid("input_tokens", "input_tokens must be at least 1");
  }
  if (decoder && r.output_tokens < 1) {
    return Error::Invalid("output_tokens", "output_tokens must be at least 1");
  }
  if (!(r.target_requests_per_s >= 0) || !std::isfinite(r.target_requests_per_s)) {
    return Error::Invalid("target_requests_per_s", "the target load must not be negative");
  }
  if (!(r.latency_slo_s >= 0) || !std::isfinite(r.latency_slo_s)) {
    return Error::Invalid("latency_slo_ms", "latency_slo_ms must not be negative");
  }
  if (r.tensor_parallel < 0 || r.tensor_parallel > node.gpus_per_node) {
    return Error::Invalid("tensor_parallel", "tensor_parallel must be from 1 to gpus_per_node");
  }
  if (w.family == Family::kRnn) {
    return Error::Invalid("workload", "serving estimates cover transformers and CNNs");
  }
  return OkStatus();
}

// Picks the chosen point: the largest-throughput point meeting the SLO, else batch 1.
void Choose(ServingEstimate& e, const ServingRequest& r, const ServingConstants& s) {
  e.slo_met = false;
  for (const ServingPoint& p : e.curve) {
    if (r.latency_slo_s > 0 && p.latency_s > r.latency_slo_s) continue;
    if (!e.slo_met || p.requests_per_s > e.chosen.requests_per_s) e.chosen = p;
    e.slo_met = true;
  }
  if (!e.slo_met && !e.curve.empty()) {
    e.chosen = e.curve.front();
    e.warnings.push_back("no batch meets the latency SLO on this GPU; batch 1 shown");
  }
  e.replicas = r.target_requests_per_s > 0 && e.chosen.requests_per_s > 0
                   ? static_cast<int>(std::ceil(r.target_requests_per_s /
                                                (s.utilization * e.chosen.requests_per_s)))
                   : 1;
  e.total_gpus = e.replicas * e.gpus_per_replica;
}

std::vector<int> Batches(int max_batch) {
  std::vector<int> out;
  for (int b = 1; b < max_batch; b *= 2) out.push_back(b);
  if (max_batch >= 1) out.push_back(max_batch);
  return out;
}

ServingEstimate DecoderServing(const Workload& w, const NodeSpec& node, const ServingRequest& r,
                               int tp, const ModelConstants& c, const ServingConstants& s) {
  ServingEstimate e;
  e.gpus_per_replica = tp;
  e.memory_capacity_gb = node.gpu.memory_gb;
  e.kv_cache_bytes_per_token = KvCacheBytesPerToken(w, r.precision);
  e.weights_gb = ParamsTotal(w) * WeightBytesPerParam(r.precision) / tp / 1e9;
  double free_gb = UsableGb(node.gpu, c) - e.weights_gb * (1 + s.weight_overhead);
  double per_seq_gb = e.kv_cache_bytes_per_token * (r.input_tokens + r.output_tokens) / tp / 1e9;
  e.max_batch = free_gb > 0 ? std::min(r.max_batch, static_cast<int>(free_gb / per_seq_gb)) : 0;
  if (e.max_batch < 1) {
    e.verdict = FitVerdict::kDoesNotFit;
    e.memory_total_gb = e.weights_gb * (1 + s.weight_overhead) + per_seq_gb;
    return e;
  }
  double context = r.input_tokens + r.output_tokens / 2.0;
  double prefill = PrefillTime(w, node, r.precision, tp, r.input_tokens, s);
  for (int b : Batches(e.max_batch)) {
    ServingPoint p;
    p.batch = b;
    p.tpot_s = DecodeStep(w, node, r.precision, tp, b, context, c, s);
    double cycle = r.output_tokens * p.tpot_s + b * prefill;  // b requests in flight
    p.ttft_s = prefill;
    p.latency_s = prefill + cycle;
    p.requests_per_s = b / cycle;
    p.tokens_per_s = p.requests_per_s * r.output_tokens;
    e.curve.push_back(p);
  }
  Choose(e, r, s);
  e.kv_cache_gb = per_seq_gb * e.chosen.batch;
  e.memory_total_gb = e.weights_gb * (1 + s.weight_overhead) + e.kv_cache_gb;
  e.verdict = e.memory_total_gb <= c.tight_fraction * UsableGb(node.gpu, c) ? FitVerdict::kFits
                                                                          : FitVerdict::kTight;
  return e;
}

ServingEstimate BatchServing(const Workload& w, const NodeSpec& node, const ServingRequest& r,
                             const ModelConstants& c, const ServingConstants& s) {
  ServingEstimate e;
  e.memory_capacity_gb = node.gpu.memory_gb;
  e.weights_gb = ParamsTotal(w) * WeightBytesPerParam(r.precision) / 1e9;
  double beta = ActivationBytes(r.precision) > 2 ? 4.0 : 2.0;
  double act_elements = w.family == Family::kCnn
                            ? w.activation_elements_per_sample
                            : ActivationElementsPerTokenLayer(w) * TokenLayers(w);
  double flops = ForwardFlopsPerSample(w);
  double per_sample = flops / (PeakTflops(node.gpu, r.precision) * 1e12 * c.eta_16bit) +
                      act_elements * beta * (w.family == Family::kCnn ? c.cnn_traffic_passes
                                                                      : c.transformer_traffic_passes) /
                          3 / DramBandwidth(node.gpu, c);
  // Inference keeps only a few layers' outputs alive: a fifth of the training activations.
  double per_sample_gb = act_elements * beta * 0.2 / 1e9;
  double free_gb = UsableGb(node.gpu, c) - e.weights_gb * (1 + s.weight_overhead);
  e.max_batch = free_gb > 0 ? std::min(r.max_batch, static_cast<int>(free_gb / per_sample_gb)) : 0;
  if (e.max_batch < 1) {
    e.verdict = FitVerdict::kDoesNotFit;
    return e;
  }
  for (int b : Batches(e.max_batch)) {
    ServingPoint p;
    p.batch = b;
    double t = s.batch_overhead_s + b * per_sample;
    p.ttft_s = t;
    p.latency_s = 2 * t;  // waiting for the batch to fill, then processing it
    p.requests_per_s = b / t;
    e.curve.push_back(p);
  }
  Choose(e, r, s);
  e.memory_total_gb = e.weights_gb * (1 + s.weight_overhead) + per_sample_gb * e.chosen.batch;
  return e;
}

}  // namespace

double KvCacheBytesPerToken(const Workload& w, Precision precision) {
  if (!IsTransformer(w.family) || w.heads <= 0) return 0;
  double head_dim = static_cast<double>(w.hidden) / w.heads;
  double bytes = precision == Precision::kFp8 || precision == Precision::kInt8 ? 1 : 2;
  return 2.0 * w.layers * KvHeads(w) * head_dim * bytes;
}

Result<ServingEstimate> EstimateServing(const Workload& w, const NodeSpec& node,
                                        const ServingRequest& r, const ModelConstants& c,
                                        const ServingConstants& s) {
  if (r.precision_auto) {  // resolved, then counted once by the call below
    ServingRequest resolved = r;
    resolved.precision_auto = false;
    resolved.precision = AutoPrecision(node.gpu);
    auto e = EstimateServing(w, node, resolved, c, s);
    if (e.ok()) e->assumptions.insert(e->assumptions.begin(), AutoPrecisionAssumption(node.gpu));
    return e;
  }
  internal::CountServingEvaluation();
  Status valid = ValidateWorkload(w);
  if (valid.ok()) valid = ValidateRequest(w, node, r);
  if (!valid.ok()) return valid.error();
  ServingEstimate best;
  if (w.family == Family::kDecoder || w.family == Family::kMoe) {
    std::vector<int> tps;
    if (r.tensor_parallel > 0) {
      tps.push_back(r.tensor_parallel);
    } else {
      for (long long tp = 1; tp <= node.gpus_per_node; tp *= 2) tps.push_back(static_cast<int>(tp));
    }
    bool found = false;
    for (int tp : tps) {
      ServingEstimate e = DecoderServing(w, node, r, tp, c, s);
      if (e.verdict == FitVerdict::kDoesNotFit) {
        if (!found) best = e;
        continue;
      }
      // Fewest GPUs for the load; then the lowest latency.
      bool better = !found || (e.slo_met && !best.slo_met) ||
                    (e.slo_met == best.slo_met &&
                     (e.total_gpus < best.total_gpus ||
                      (e.total_gpus == best.total_gpus &&
                       e.chosen.latency_s < best.chosen.latency_s)));
      if (better) best = e;
      found = true;
    }
    best.assumptions.push_back("continuous batching; decode reads weights and KV cache at " +
                               BandwidthBasis(node.gpu, c) + ", never faster than " +
                               std::to_string(static_cast<int>(s.decode_kernels_per_layer)) +
                               " kernel floors per layer");
  } else {
    best = BatchServing(w, node, r, c, s);
    best.assumptions.push_back("dynamic batching; latency = batch fill + batch time");
  }
  for (std::string& d : ShapeDefaults(w)) best.warnings.push_back(std::move(d));
  if (best.verdict == FitVerdict::kDoesNotFit) {
    // Nothing is served: no replicas, no latency, and no SLO met.
    best.slo_met = false;
    best.replicas = 0;
    best.total_gpus = 0;
    best.chosen = ServingPoint{};
    best.curve.clear();
    best.warnings.push_back("the weights (and one request's KV cache) do not fit in " +
                            std::to_string(static_cast<int>(node.gpu.memory_gb)) +
                            " GB per GPU with up to " + std::to_string(node.gpus_per_node) +
                            " GPUs per replica");
  }
  best.precision = r.precision;
  return best;
}

}  // namespace gpuplan::model
