#include "model/inference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "model/collectives.h"
#include "model/counts.h"
#include "model/evaluations.h"
#include "model/training.h"
#include "model/training_job.h"

namespace gpuplan::model {

namespace {

// Whether an estimate is said in words (assumptions, warnings, replica_rule, slo_detail) or
// holds its figures only (EstimateServingFigures).
enum class Words { kExplained, kFiguresOnly };

// Serving computes in the request's precision: nvfp4, a training recipe, is refused whatever
// the GPU (4-bit serving weights are a weight_quantization).
Status CheckServingPrecision(const ServingRequest& r) {
  if (r.precision != Precision::kNvfp4 || r.precision_auto) return OkStatus();
  return Error::Invalid({Part::kServing, "precision"},
                        "nvfp4 is a training recipe here; to serve 4-bit weights ask for "
                        "weight_quantization mxfp4 (or int4_awq, int4_gptq) with a 16-bit "
                        "precision");
}

// A tensor-parallel degree the request fixes must divide a decoder's attention heads.
Status CheckFixedTensorParallel(const Workload& w, int tp) {
  if (tp <= 0 || !IsDecoderOnly(w.family) || w.heads % tp == 0) return OkStatus();
  return Error::Invalid({Part::kServing, "tensor_parallel"},
                        "tensor_parallel " + std::to_string(tp) + " does not divide the model's " +
                            std::to_string(w.heads) + " attention heads");
}

double UsableGb(const GpuSpec& gpu, const ModelConstants& c) {
  return gpu.memory_gb * c.usable_memory_fraction - c.memory_reserve_gb;
}

Status ValidateRequest(const Workload& w, const NodeSpec& node, const ServingRequest& r) {
  if (node.gpus_per_node < 1 || node.gpus_per_node > kMaxGpusPerNode) {
    return Error::Invalid({Part::kHardware, "gpus_per_node"},
                          "gpus_per_node must be from 1 to " + std::to_string(kMaxGpusPerNode));
  }
  Status precision = CheckServingPrecision(r);
  if (!precision.ok()) return precision;
  if (PeakTflops(node.gpu, r.precision) <= 0) {
    return Error::Invalid({Part::kServing, "precision"}, std::string(PrecisionName(r.precision)) +
                                                             " is not supported by " + node.gpu.id)
        .Because(Refusal::kPrecisionUnsupported);
  }
  bool decoder = IsDecoderOnly(w.family);
  if (decoder && r.input_tokens < 1) {
    return Error::Invalid({Part::kServing, "input_tokens"}, "input_tokens must be at least 1");
  }
  if (decoder && r.output_tokens < 1) {
    return Error::Invalid({Part::kServing, "output_tokens"}, "output_tokens must be at least 1");
  }
  if (!(r.target_requests_per_s >= 0) || !std::isfinite(r.target_requests_per_s)) {
    return Error::Invalid({Part::kServing, "target_requests_per_s"},
                          "the target load must not be negative");
  }
  if (!(r.latency_slo_s >= 0) || !std::isfinite(r.latency_slo_s)) {
    return Error::Invalid({Part::kServing, "latency_slo_ms"},
                          "latency_slo_ms must not be negative");
  }
  if (r.tensor_parallel < 0) {
    return Error::Invalid({Part::kServing, "tensor_parallel"},
                          "tensor_parallel must be from 1 to gpus_per_node");
  }
  if (r.tensor_parallel > node.gpus_per_node) {  // this node's refusal, not the request's
    return Error::Invalid({Part::kServing, "tensor_parallel"},
                          "tensor_parallel must be from 1 to gpus_per_node")
        .Because(Refusal::kTensorParallelTooLarge);
  }
  if (w.family == Family::kRnn) {
    return Error::Invalid({Part::kWorkload, ""}, "serving estimates cover transformers and CNNs");
  }
  return OkStatus();
}

// Replicas that serve `target` requests/s with each replica loaded to `utilization` of
// its `per_replica` requests/s: at least one. In floating point, as the count may be far
// beyond any int (even infinite); callers check it against kMaxTotalGpus.
double ReplicasNeeded(double target, double per_replica, double utilization) {
  if (!(target > 0) || !(per_replica > 0)) return 1;
  return std::max(1.0, std::ceil(target / (utilization * per_replica) - 1e-9));
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
  const double replicas = ReplicasNeeded(r.target_requests_per_s, e.chosen.requests_per_s, s.utilization);
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
    return Error::Invalid({Part::kServing, "target_requests_per_s"},
                          "a replica serves next to nothing of the target load: over the maximum "
                          "of " +
                              std::to_string(kMaxTotalGpus) + " GPUs in one plan")
        .Because(Refusal::kOverMaxGpus);
  }
  return Error::Invalid({Part::kServing, "target_requests_per_s"},
                        fmt::format("the target load needs {:.4g} replica(s) of {} GPU(s), {:.4g} "
                                    "GPUs in all: over the maximum of {} GPUs in one plan",
                                    gpus / per_replica, per_replica, gpus, kMaxTotalGpus))
      .Because(Refusal::kOverMaxGpus);
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

std::string Seconds(double s) {
  return s < 1 ? fmt::format("{:.0f} ms", s * 1e3) : fmt::format("{:.2f} s", s);
}

// Whether `p` meets every latency target of `r` at p95; `why` says which one it misses.
bool MeetsSlo(const OperatingPoint& p, const ServingRequest& r, std::string* why) {
  auto miss = [&](const char* what, double value, double target) {
    if (why) *why = std::string(what) + " p95 " + Seconds(value) + " > target " + Seconds(target);
    return false;
  };
  if (!p.stable) {
    if (why) *why = "over the replica's capacity";
    return false;
  }
  if (r.latency_slo_s > 0 && p.e2e_s.p95 > r.latency_slo_s) {
    return miss("end-to-end latency", p.e2e_s.p95, r.latency_slo_s);
  }
  if (r.ttft_slo_s > 0 && p.ttft_s.p95 > r.ttft_slo_s) return miss("time to first token", p.ttft_s.p95, r.ttft_slo_s);
  if (r.tpot_slo_s > 0 && p.tpot_s.p95 > r.tpot_slo_s) return miss("time per output token", p.tpot_s.p95, r.tpot_slo_s);
  return true;
}

// How far `p` is from the targets: the largest p95 / target - 1 (<= 0 when all are met);
// 10 when the rate is over capacity.
double Slack(const OperatingPoint& p, const ServingRequest& r) {
  if (!p.stable) return 10;
  double worst = -1;
  if (r.latency_slo_s > 0) worst = std::max(worst, p.e2e_s.p95 / r.latency_slo_s - 1);
  if (r.ttft_slo_s > 0) worst = std::max(worst, p.ttft_s.p95 / r.ttft_slo_s - 1);
  if (r.tpot_slo_s > 0) worst = std::max(worst, p.tpot_s.p95 / r.tpot_slo_s - 1);
  return worst;
}

bool HasSlo(const ServingRequest& r) { return r.latency_slo_s > 0 || r.ttft_slo_s > 0 || r.tpot_slo_s > 0; }

ServingPoint PointOf(const OperatingPoint& p) {
  ServingPoint out;
  out.batch = std::max(1, static_cast<int>(std::lround(p.batch)));
  out.ttft_s = p.ttft_s.p50;
  out.tpot_s = p.tpot_s.p50;
  out.latency_s = p.e2e_s.p95;
  out.requests_per_s = p.requests_per_s;
  out.tokens_per_s = p.tokens_per_s;
  return out;
}

// Compute precision and weight storage the request resolves to on `gpu`: FP8 weights run
// FP8 GEMMs where the GPU has them, else weight-only (dequantised to 16 bits) kernels.
Precision ComputePrecision(const ServingRequest& r, const GpuSpec& gpu) {
  if (r.quantization == WeightQuantization::kFp8 && gpu.fp8_tflops > 0 &&
      r.precision != Precision::kFp32) {
    return Precision::kFp8;
  }
  return r.precision;
}

// One decoder replica of `tp` GPUs: the engine's batch cap, the closed-loop curve up to it,
// saturation, and the fewest replicas whose p95 meets the latency targets at the load.
// `gpus_needed` receives replicas x tp in floating point (0 when the model does not fit).
// `gpus_to_beat`: the GPUs of a plan already found that meets the targets (infinity when
// none); a degree whose fewest possible GPUs (replicas at `utilization` of saturation) exceed
// it cannot win and is left unfinished, with `pruned` set. `words`: kFiguresOnly leaves
// replica_rule and slo_detail empty (the figures are the same).
ServingEstimate DecoderServing(const Workload& w, const NodeSpec& node, const ServingRequest& r,
                               int tp, const EngineSettings& engine, const ModelConstants& c,
                               const ServingConstants& s, double& gpus_needed, double gpus_to_beat,
                               bool& pruned, Words words) {
  const bool explained = words == Words::kExplained;
  gpus_needed = 0;
  pruned = false;
  ServingEstimate e;
  e.engine = engine;
  e.gpus_per_replica = tp;
  e.memory_capacity_gb = node.gpu.memory_gb;
  const Precision compute = ComputePrecision(r, node.gpu);
  const ReplicaShape shape = MakeReplicaShape(w, node, tp, compute, r.quantization, r.kv_cache, c);
  const EngineConstants& k = FindEngineProfile(engine.name, engine.version)->shipped;
  e.kv_cache_bytes_per_token = shape.kv_bytes_per_token;
  e.weights_gb = (shape.dense_weight_bytes + shape.expert_weight_bytes) / tp / 1e9;
  RequestShape q;
  q.cached_tokens = engine.prefix_caching
                        ? std::min(r.shared_prefix_tokens, std::max(0, r.input_tokens - 1))
                        : 0;
  q.input_tokens = r.input_tokens - q.cached_tokens;
  q.output_tokens = r.output_tokens;
  const double kv_tokens = KvCapacityTokens(shape, node.gpu, engine, k);
  const double per_seq_gb = shape.kv_bytes_per_token * (r.input_tokens + r.output_tokens) / tp / 1e9;
  e.batch_cap = BatchLimit(engine, kv_tokens, q, r.max_concurrency);
  e.max_batch = e.batch_cap.kv_capacity;
  if (e.batch_cap.effective < 1) {
    e.verdict = FitVerdict::kDoesNotFit;
    // Per GPU: weights, one request's KV cache, the profile run's activations, the non-torch
    // reserve (what KvCapacityTokens takes away).
    e.memory_total_gb = e.weights_gb + per_seq_gb + EngineReserveBytesPerGpu(shape, engine, k) / 1e9;
    return e;
  }
  const int cap = e.batch_cap.effective;
  e.saturation = ClosedLoop(shape, engine, k, q, cap);
  const double ceiling = s.utilization * e.saturation.requests_per_s;
  if (tp * ReplicasNeeded(r.target_requests_per_s, ceiling, 1.0) > gpus_to_beat) {
    pruned = true;
    return e;
  }
  for (int b : Batches(cap)) e.curve.push_back(PointOf(ClosedLoop(shape, engine, k, q, b)));
  // The curve the KV cache alone would allow (engine caps ignored): its best point. Up to the
  // cap it is the curve above, rising to the saturation point.
  e.kv_limit = e.saturation;
  EngineSettings uncapped = engine;  // no token budget either: every prompt is computed
  uncapped.max_num_batched_tokens = 1 << 30;
  for (int b : Batches(std::max(1, e.batch_cap.kv_capacity))) {
    if (b <= cap) continue;
    OperatingPoint p = ClosedLoop(shape, uncapped, k, q, b);
    if (p.tokens_per_s > e.kv_limit.tokens_per_s) e.kv_limit = p;
  }
  // The largest rate per replica whose p95 meets the targets (and at most `ceiling`).
  double best_rate = 0;
  std::string why;
  auto slack = [&](double rate) { return Slack(AtRate(shape, engine, k, q, e.batch_cap, rate), r); };
  const double trickle = 1e-3 * ceiling;
  double f_hi = slack(ceiling);
  if (f_hi <= 0) {
    best_rate = ceiling;
  } else if (double f_lo = slack(trickle); f_lo <= 0) {
    // Slack rises with the rate: regula falsi (Illinois) on [trickle, ceiling], keeping the
    // side that meets the targets.
    double lo = trickle, hi = ceiling;
    int side = 0;
    for (int i = 0; i < 40 && hi - lo > 2e-3 * ceiling; ++i) {
      double mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
      if (!(mid > lo && mid < hi)) mid = (lo + hi) / 2;
      const double f = slack(mid);
      if (f <= 0) {
        lo = mid;
        f_lo = f;
        if (side == -1) f_hi /= 2;
        side = -1;
      } else {
        hi = mid;
        f_hi = f;
        if (side == 1) f_lo /= 2;
        side = 1;
      }
    }
    best_rate = lo;
  }
  e.slo_met = best_rate > 0;
  double rate = best_rate;
  if (!e.slo_met) {
    // Even a trickle of requests misses a target: say so, and size the fleet by throughput
    // alone so its figures show what the load would get.
    if (explained) {
      MeetsSlo(AtRate(shape, engine, k, q, e.batch_cap, trickle), r, &why);
      e.slo_detail = "even one request at a time: " + why;
    }
    rate = ceiling;
  }
  e.capacity_requests_per_s_per_replica = rate;
  double replicas = ReplicasNeeded(r.target_requests_per_s, rate, 1.0);
  auto plan_at = [&](double n) {
    e.planned_requests_per_s_per_replica =
        r.target_requests_per_s > 0 ? r.target_requests_per_s / n : rate;
    e.planned = AtRate(shape, engine, k, q, e.batch_cap, e.planned_requests_per_s_per_replica);
  };
  plan_at(replicas);
  // The p95 is checked at the rate the plan runs at, not only at the rate the search found:
  // a replica more while it misses (the p95 need not fall smoothly with the rate).
  for (int extra = 0; e.slo_met && !MeetsSlo(e.planned, r, nullptr) && extra < 32; ++extra) {
    replicas += std::max(1.0, std::ceil(replicas * 0.05));
    plan_at(replicas);
  }
  if (e.slo_met && !MeetsSlo(e.planned, r, explained ? &why : nullptr)) {
    e.slo_met = false;
    if (explained) e.slo_detail = "at the planned load: " + why;
  }
  e.chosen = PointOf(e.planned);
  if (explained) {
    e.replica_rule = fmt::format(
        "replicas = ceil(target {:.4g} req/s / {:.4g} req/s per replica): the most a replica takes "
        "{} and at most {:.0f} % of its saturated {:.4g} req/s",
        r.target_requests_per_s, rate,
        HasSlo(r) ? "with p95 latency within the targets" : "(no latency target given)",
        s.utilization * 100, e.saturation.requests_per_s);
  }
  const double gpus = replicas * tp;
  e.replicas = 0;
  e.total_gpus = 0;
  if (gpus <= kMaxTotalGpus) {
    e.replicas = static_cast<int>(replicas);
    e.total_gpus = e.replicas * tp;
  }
  gpus_needed = gpus;
  e.kv_cache_gb = per_seq_gb * std::ceil(e.planned.batch);
  e.memory_total_gb = node.gpu.memory_gb * engine.gpu_memory_utilization;
  e.verdict = e.weights_gb + e.kv_cache_gb <= c.tight_fraction * e.memory_total_gb
                  ? FitVerdict::kFits
                  : FitVerdict::kTight;
  return e;
}

ServingEstimate BatchServing(const Workload& w, const NodeSpec& node, const ServingRequest& r,
                             const ModelConstants& c, const ServingConstants& s,
                             double& gpus_needed) {
  gpus_needed = 0;
  ServingEstimate e;
  e.memory_capacity_gb = node.gpu.memory_gb;
  e.weights_gb = ParamsTotal(w) * WeightBytesPerParam(WeightQuantization::kNone, r.precision) / 1e9;
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

std::vector<std::string> ServingDefaultsAssumptions(const ServingConstants& s, bool decoder) {
  const std::string share = std::to_string(static_cast<int>(s.utilization * 100 + 0.5)) + " %";
  if (decoder) {
    return {"replicas sized so each is planned at the most load whose p95 latency meets the "
            "targets, and at most " + share + " of its saturated throughput (headroom: near "
            "saturation queues grow without bound; a default, not measured)"};
  }
  return {"replicas sized so each runs at " + share +
              " of its throughput (headroom for p95 latency under bursts; a default, not "
              "measured)",
          "weights take " + std::to_string(static_cast<int>(s.weight_overhead * 100 + 0.5)) +
              " % more for workspace and fragmentation; the rest of the usable memory holds the "
              "activations"};
}

Status ValidateServingRequest(const Workload& w, const ServingRequest& r) {
  Status precision = CheckServingPrecision(r);
  return precision.ok() ? CheckFixedTensorParallel(w, r.tensor_parallel) : precision;
}

namespace {

Result<ServingEstimate> Estimate(const Workload& w, const NodeSpec& node, const ServingRequest& r,
                                 const ModelConstants& c, const ServingConstants& s, Words words) {
  const bool explained = words == Words::kExplained;
  if (r.precision_auto) {  // resolved, then counted once by the call below
    ServingRequest resolved = r;
    resolved.precision_auto = false;
    resolved.precision = AutoPrecision(node.gpu);
    auto e = Estimate(w, node, resolved, c, s, words);
    if (e.ok() && explained) {
      e->assumptions.insert(e->assumptions.begin(), AutoPrecisionAssumption(node.gpu));
    }
    return e;
  }
  internal::CountServingEvaluation();
  Status valid = ValidateWorkload(w);
  if (valid.ok()) valid = ValidateRequest(w, node, r);
  if (!valid.ok()) return valid.error();
  ServingEstimate best;
  if (IsDecoderOnly(w.family)) {
    std::vector<std::string> engine_assumptions;
    const int request_tokens = r.input_tokens + r.output_tokens;
    if (w.max_context > 0 && request_tokens > w.max_context) {
      return Error::Invalid({Part::kServing, "input_tokens"},
                            "input_tokens + output_tokens (" + std::to_string(request_tokens) +
                                ") exceed " + w.name + "'s context of " +
                                std::to_string(w.max_context) + " tokens");
    }
    auto engine = ResolveEngine(r.engine, node.gpu, w.max_context, request_tokens,
                                explained ? &engine_assumptions : nullptr);
    if (!engine.ok()) return engine.error();
    // vLLM shards attention heads (and KV heads, or replicates them) over the GPUs.
    auto divides = [&](int tp) { return w.heads % tp == 0; };
    std::vector<int> tps;
    if (r.tensor_parallel > 0) {
      Status fixed = CheckFixedTensorParallel(w, r.tensor_parallel);
      if (!fixed.ok()) return fixed.error();
      tps.push_back(r.tensor_parallel);
    } else {
      for (long long tp = 1; tp <= node.gpus_per_node; tp *= 2) {
        if (divides(static_cast<int>(tp))) tps.push_back(static_cast<int>(tp));
      }
    }
    bool found = false;
    // The smallest fleet over kMaxTotalGpus (GPUs, GPUs per replica), refused if no other
    // layout fits.
    std::optional<std::pair<double, int>> fewest_over;
    for (int tp : tps) {
      double gpus_needed = 0;
      bool pruned = false;
      const double to_beat = found && best.slo_met ? best.total_gpus
                                                   : std::numeric_limits<double>::infinity();
      ServingEstimate e =
          DecoderServing(w, node, r, tp, *engine, c, s, gpus_needed, to_beat, pruned, words);
      if (pruned) continue;
      if (e.verdict == FitVerdict::kDoesNotFit) {
        if (!found) best = std::move(e);
        continue;
      }
      if (gpus_needed > kMaxTotalGpus) {
        if (!fewest_over || gpus_needed < fewest_over->first) fewest_over = {gpus_needed, tp};
        continue;
      }
      // Meeting the targets first; then the fewest GPUs for the load; then the lowest p95.
      bool better = !found || (e.slo_met && !best.slo_met) ||
                    (e.slo_met == best.slo_met &&
                     (e.total_gpus < best.total_gpus ||
                      (e.total_gpus == best.total_gpus &&
                       e.chosen.latency_s < best.chosen.latency_s)));
      if (better) best = std::move(e);
      found = true;
    }
    if (!found && fewest_over) return OverMaxGpus(fewest_over->first, fewest_over->second);
    if (best.engine.name.empty()) best.engine = *engine;
    if (explained) {
      for (std::string& a : engine_assumptions) best.assumptions.push_back(std::move(a));
      best.assumptions.push_back(
          "continuous batching, timed per scheduler iteration: weights and KV cache stream at " +
          BandwidthBasis(node.gpu, c) +
          " (x the engine's fitted share), prompt chunks and large "
          "batches at the fitted share of the dense peak, kernel floors per layer (CUDA graphs "
          "up to " +
          std::to_string(best.engine.graph_capture_max_batch) +
          " tokens), host time "
          "per iteration and per sequence, two tensor-parallel all-reduces per layer");
      best.assumptions.push_back(
          "latency percentiles at the planned load: Poisson arrivals; decode batch per Little's "
          "law with p95 = mean + 1.645 sqrt(mean) / (1 - e), e the iteration time's elasticity in "
          "the batch (at most 0.8); waits for a sequence slot (Erlang C) and for the token budget "
          "(M/D/1); the API frontend's fixed time per request");
      if (!best.replica_rule.empty()) best.assumptions.push_back(best.replica_rule);
      best.assumptions.push_back(
          std::string("weights ") +
          std::string(EnumName(kWeightQuantizationNames, r.quantization)) + " (compute " +
          std::string(PrecisionName(ComputePrecision(r, node.gpu))) + "), KV cache " +
          std::string(EnumName(kKvCacheDtypeNames, r.kv_cache)) +
          (r.kv_cache == KvCacheDtype::kAuto ? " (the compute precision's size)" : ""));
      if (r.shared_prefix_tokens > 0) {
        best.assumptions.push_back(
            best.engine.prefix_caching
                ? std::to_string(r.shared_prefix_tokens) +
                      " shared prompt tokens are found in the "
                      "prefix cache (not recomputed)"
                : "prefix caching is off: the shared prompt tokens are recomputed");
      }
      if (best.verdict != FitVerdict::kDoesNotFit && !HasSlo(r)) {
        const OperatingPoint& p = best.planned;
        if (p.ttft_s.p95 > s.high_ttft_s || p.tpot_s.p95 > s.high_tpot_s ||
            p.e2e_s.p95 > s.high_e2e_s) {
          best.warnings.push_back(
              "no latency target given: at the planned load p95 time to first "
              "token is " +
              Seconds(p.ttft_s.p95) +
              " and p95 time per output "
              "token " +
              Seconds(p.tpot_s.p95) + " (end-to-end " + Seconds(p.e2e_s.p95) +
              "); give latency_slo_ms (or ttft_slo_ms, "
              "tpot_slo_ms) to size replicas for latency");
        }
      }
      if (!best.slo_met && best.verdict != FitVerdict::kDoesNotFit) {
        best.warnings.push_back("the latency target is not met: " + best.slo_detail);
      }
    }
  } else {
    // The engine, quantisation, concurrency, prefix and TTFT/TPOT options are a decoder's.
    const EngineConfig defaults;
    const char* decoder_only =
        r.ttft_slo_s > 0 ? "ttft_slo_ms"
        : r.tpot_slo_s > 0 ? "tpot_slo_ms"
        : r.quantization != WeightQuantization::kNone ? "weight_quantization"
        : r.kv_cache != KvCacheDtype::kAuto ? "kv_cache_dtype"
        : r.max_concurrency > 0 ? "max_concurrency"
        : r.shared_prefix_tokens > 0 ? "shared_prefix_tokens"
        : (r.engine.version != defaults.version || r.engine.max_num_seqs ||
           r.engine.max_num_batched_tokens || r.engine.gpu_memory_utilization ||
           r.engine.cuda_graphs || r.engine.chunked_prefill || r.engine.prefix_caching ||
           r.engine.max_model_len || r.engine.num_scheduler_steps ||
           r.engine.frontend_multiprocessing)
            ? "engine"
            : nullptr;
    if (decoder_only) {
      return Error::Invalid({Part::kServing, decoder_only},
                            std::string(decoder_only) +
                                " applies to decoder models served token by "
                                "token; " +
                                w.name + " is served in batches");
    }
    double gpus_needed = 0;
    best = BatchServing(w, node, r, c, s, gpus_needed);
    if (gpus_needed > kMaxTotalGpus) return OverMaxGpus(gpus_needed, 1);
    best.assumptions.push_back("dynamic batching; latency = batch fill + batch time");
  }
  if (explained) {
    for (std::string& a : ServingDefaultsAssumptions(s, IsDecoderOnly(w.family))) {
      best.assumptions.push_back(std::move(a));
    }
    for (std::string& d : ShapeDefaults(w)) best.warnings.push_back(std::move(d));
  }
  if (best.verdict == FitVerdict::kDoesNotFit) {
    // Nothing is served: no replicas, no latency, and no SLO met.
    best.slo_met = false;
    best.replicas = 0;
    best.total_gpus = 0;
    best.chosen = ServingPoint{};
    best.curve.clear();
    if (explained)
      best.warnings.push_back("the weights (and one request's KV cache) do not fit in " +
                              std::to_string(static_cast<int>(node.gpu.memory_gb)) +
                              " GB per GPU with up to " + std::to_string(node.gpus_per_node) +
                              " GPUs per replica");
  }
  best.precision = r.precision;
  if (!explained) {  // the batch path's assumption (BatchServing's words), too
    best.assumptions.clear();
    best.warnings.clear();
  }
  return best;
}

}  // namespace

Result<ServingEstimate> EstimateServing(const Workload& w, const NodeSpec& node,
                                        const ServingRequest& r, const ModelConstants& c,
                                        const ServingConstants& s) {
  return Estimate(w, node, r, c, s, Words::kExplained);
}

Result<ServingEstimate> EstimateServingFigures(const Workload& w, const NodeSpec& node,
                                               const ServingRequest& r, const ModelConstants& c,
                                               const ServingConstants& s) {
  return Estimate(w, node, r, c, s, Words::kFiguresOnly);
}

}  // namespace gpuplan::model
