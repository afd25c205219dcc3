#include "model/inference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "model/collectives.h"
#include "model/counts.h"
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
  double attention_width = static_cast<double>(w.heads) * HeadDim(w);
  double flops = 2 * MatmulParamsPerToken(w) * tokens +
                 2.0 * w.layers * attention_width * tokens * tokens;  // causal
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

// Replicas that serve `target` requests/s with each replica loaded to `utilization` of
// its `per_replica` requests/s: at least one. In floating point, as the count may be far
// beyond any int (even infinite); callers check it against kMaxTotalGpus.
double ReplicasNeeded(double target, double per_replica, const ServingConstants& s) {
  if (!(target > 0) || !(per_replica > 0)) return 1;
  return std::max(1.0, std::ceil(target / (s.utilization * per_replica)));
}

// Picks the chosen point: the largest-throughput point meeting the SLO, else batch 1, and
// sizes the fleet. Returns the GPUs the load needs (replicas x GPUs per replica, in floating
// point); over kMaxTotalGpus, replicas and total_gpus are left 0 for the caller to refuse.
double Choose(ServingEstimate& e, const ServingRequest& r, const ServingConstants& s) {
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
  const double replicas = ReplicasNeeded(r.target_requests_per_s, e.chosen.requests_per_s, s);
  const double gpus = replicas * e.gpus_per_replica;
  e.replicas = 0;
  e.total_gpus = 0;
  if (gpus <= kMaxTotalGpus) {
    e.replicas = static_cast<int>(replicas);
    e.total_gpus = e.replicas * e.gpus_per_replica;
  }
  return gpus;
}

// The refusal of a load that needs `gpus` GPUs in replicas of `per_replica`, over the most one
// plan may use.
Error OverMaxGpus(double gpus, int per_replica) {
  if (!std::isfinite(gpus)) {
    return Error::Invalid("target_requests_per_s",
                          "a replica serves next to nothing of the target load: over the maximum "
                          "of " + std::to_string(kMaxTotalGpus) + " GPUs in one plan");
  }
  char detail[240];
  std::snprintf(detail, sizeof(detail),
                "the target load needs %.4g replica(s) of %d GPU(s), %.4g GPUs in all: over the "
                "maximum of %d GPUs in one plan",
                gpus / per_replica, per_replica, gpus, kMaxTotalGpus);
  return Error::Invalid("target_requests_per_s", detail);
}

// How many requests of `per_request_gb` fit in `free_gb`, at most `limit` (compared in
// floating point: a tiny request would overflow an int).
int BatchesThatFit(double free_gb, double per_request_gb, int limit) {
  if (!(free_gb > 0)) return 0;
  return static_cast<int>(std::min<double>(limit, std::floor(free_gb / per_request_gb)));
}

std::vector<int> Batches(int max_batch) {
  std::vector<int> out;
  for (int b = 1; b < max_batch; b *= 2) out.push_back(b);
  if (max_batch >= 1) out.push_back(max_batch);
  return out;
}

// `gpus_needed` receives what Choose returns (0 when the model does not fit).
ServingEstimate DecoderServing(const Workload& w, const NodeSpec& node, const ServingRequest& r,
                               int tp, const ModelConstants& c, const ServingConstants& s,
                               double& gpus_needed) {
  gpus_needed = 0;
  ServingEstimate e;
  e.gpus_per_replica = tp;
  e.memory_capacity_gb = node.gpu.memory_gb;
  e.kv_cache_bytes_per_token = KvCacheBytesPerToken(w, r.precision);
  e.weights_gb = ParamsTotal(w) * WeightBytesPerParam(r.precision) / tp / 1e9;
  double free_gb = UsableGb(node.gpu, c) - e.weights_gb * (1 + s.weight_overhead);
  double per_seq_gb = e.kv_cache_bytes_per_token * (r.input_tokens + r.output_tokens) / tp / 1e9;
  e.max_batch = BatchesThatFit(free_gb, per_seq_gb, r.max_batch);
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
  gpus_needed = Choose(e, r, s);
  e.kv_cache_gb = per_seq_gb * e.chosen.batch;
  e.memory_total_gb = e.weights_gb * (1 + s.weight_overhead) + e.kv_cache_gb;
  e.verdict = e.memory_total_gb <= c.tight_fraction * UsableGb(node.gpu, c) ? FitVerdict::kFits
                                                                          : FitVerdict::kTight;
  return e;
}

ServingEstimate BatchServing(const Workload& w, const NodeSpec& node, const ServingRequest& r,
                             const ModelConstants& c, const ServingConstants& s,
                             double& gpus_needed) {
  gpus_needed = 0;
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
  e.max_batch = BatchesThatFit(free_gb, per_sample_gb, r.max_batch);
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
  gpus_needed = Choose(e, r, s);
  e.memory_total_gb = e.weights_gb * (1 + s.weight_overhead) + per_sample_gb * e.chosen.batch;
  return e;
}

}  // namespace

int ServingInstances(const ServingEstimate& e, int gpus_per_node) {
  const int per_instance = std::max(1, gpus_per_node / std::max(1, e.gpus_per_replica));
  return CeilDiv(e.replicas, per_instance);
}

double KvCacheBytesPerToken(const Workload& w, Precision precision) {
  if (!IsTransformer(w.family) || w.heads <= 0) return 0;
  double head_dim = HeadDim(w);
  double bytes = precision == Precision::kFp8 || precision == Precision::kInt8 ? 1 : 2;
  return 2.0 * w.layers * KvHeads(w) * head_dim * bytes;
}

std::vector<std::string> ServingDefaultsAssumptions(const ServingConstants& s) {
  return {"replicas sized so each runs at " +
              std::to_string(static_cast<int>(s.utilization * 100 + 0.5)) +
              " % of its throughput (headroom for p95 latency under bursts; a default, not "
              "measured)",
          "weights take " + std::to_string(static_cast<int>(s.weight_overhead * 100 + 0.5)) +
              " % more for workspace and fragmentation; the rest of the usable memory holds the "
              "KV cache or activations"};
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
    // The smallest fleet over kMaxTotalGpus (GPUs, GPUs per replica), refused if no other
    // layout fits.
    std::optional<std::pair<double, int>> fewest_over;
    for (int tp : tps) {
      double gpus_needed = 0;
      ServingEstimate e = DecoderServing(w, node, r, tp, c, s, gpus_needed);
      if (e.verdict == FitVerdict::kDoesNotFit) {
        if (!found) best = e;
        continue;
      }
      if (gpus_needed > kMaxTotalGpus) {
        if (!fewest_over || gpus_needed < fewest_over->first) fewest_over = {gpus_needed, tp};
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
    if (!found && fewest_over) return OverMaxGpus(fewest_over->first, fewest_over->second);
    best.assumptions.push_back("continuous batching; decode reads weights and KV cache at " +
                               BandwidthBasis(node.gpu, c) + ", never faster than " +
                               std::to_string(static_cast<int>(s.decode_kernels_per_layer)) +
                               " kernel floors per layer");
  } else {
    double gpus_needed = 0;
    best = BatchServing(w, node, r, c, s, gpus_needed);
    if (gpus_needed > kMaxTotalGpus) return OverMaxGpus(gpus_needed, 1);
    best.assumptions.push_back("dynamic batching; latency = batch fill + batch time");
  }
  for (std::string& a : ServingDefaultsAssumptions(s)) best.assumptions.push_back(std::move(a));
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
