// Serving capacity: prefill (compute-bound) and decode (bandwidth-bound) of decoders with
// their KV cache, a batch-latency curve, the batch that meets a latency SLO and the
// replicas a target load needs; batch serving of CNNs, ViTs and encoders.
// Pure and deterministic; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "model/constants.h"
#include "model/hardware.h"
#include "model/memory.h"
#include "model/serving_engine.h"
#include "model/serving_iteration.h"
#include "model/serving_load.h"
#include "model/workload.h"

namespace gpuplan::model {

// Decoders are served by an engine (serving_engine.h) whose iterations serving_iteration.h
// times; these constants cover what is not the engine's: CNN/encoder batch serving and the
// headroom rule every plan keeps.
struct ServingConstants {
  double batch_overhead_s = 0.002;    // fixed per CNN/encoder batch, compiled runtime
  // A replica is planned at most at this share of its saturated throughput, however loose the
  // latency target: near saturation queues (and p95) grow without bound [assumption].
  double utilization = 0.8;
  double weight_overhead = 0.2;  // CNN/encoder: workspace and fragmentation on top of weights
  // Without a latency target, a plan whose p95 exceeds these is warned about.
  double high_ttft_s = 2.0, high_tpot_s = 0.1, high_e2e_s = 30.0;
};

struct ServingRequest {
  Precision precision = Precision::kBf16;  // compute (and weights unless `quantization`)
  bool precision_auto = false;  // run AutoPrecision(gpu) instead of `precision` (assumption)
  int input_tokens = 0;   // decoders: prompt tokens per request
  int output_tokens = 0;  // decoders: generated tokens per request
  double target_requests_per_s = 0;  // load to serve (decoders and others)
  double latency_slo_s = 0;          // end-to-end per request, p95; 0 = none
  double ttft_slo_s = 0;             // decoders: time to first token, p95; 0 = none
  double tpot_slo_s = 0;             // decoders: time per output token, p95; 0 = none
  int tensor_parallel = 0;           // GPUs per replica for decoders; 0 = choose
  int max_batch = 1024;              // CNN/encoder batches
  // Decoders: the engine, quantisation, the client's concurrency cap (0 = none) and the
  // prompt tokens every request shares (a system prompt: cached when prefix caching is on).
  EngineConfig engine;
  WeightQuantization quantization = WeightQuantization::kNone;
  KvCacheDtype kv_cache = KvCacheDtype::kAuto;
  int max_concurrency = 0;
  int shared_prefix_tokens = 0;
};

struct ServingPoint {
  int batch = 0;
  double ttft_s = 0;           // time to first token (decoders); batch time (others)
  double tpot_s = 0;           // time per output token (decoders)
  double latency_s = 0;        // a request's end-to-end time at this batch
  double requests_per_s = 0;   // per replica
  double tokens_per_s = 0;     // output tokens per replica (decoders)
};

// Latency percentiles at the planned load per replica.
struct ServingLatency {
  Percentiles ttft_s, tpot_s, e2e_s;
};

struct ServingEstimate {
  Precision precision = Precision::kBf16;  // what was estimated (auto resolved)
  // Decoders only (engine.name empty otherwise):
  EngineSettings engine;
  BatchCap batch_cap;              // what bounds the decode batch
  OperatingPoint saturation;       // closed loop at the batch cap, per replica
  OperatingPoint kv_limit;         // the best point of the curve to the KV-capacity batch, engine caps ignored
  OperatingPoint planned;          // at the planned rate per replica
  double planned_requests_per_s_per_replica = 0;
  double capacity_requests_per_s_per_replica = 0;  // the most one replica takes under the rule
  // In words (empty from EstimateServingFigures): how replicas were sized, and why the SLO
  // is not met (empty when met, and for batch-served models).
  std::string replica_rule;
  std::string slo_detail;
  int gpus_per_replica = 1;
  double weights_gb = 0;            // per GPU
  double kv_cache_bytes_per_token = 0;  // whole model, all layers
  double kv_cache_gb = 0;           // per GPU at the chosen batch
  double memory_total_gb = 0;       // per GPU at the chosen batch
  double memory_capacity_gb = 0;
  FitVerdict verdict = FitVerdict::kFits;
  int max_batch = 0;                // limited by memory (KV cache for decoders)
  std::vector<ServingPoint> curve;  // batch 1, 2, 4, ... max_batch
  ServingPoint chosen;
  bool slo_met = true;              // false whenever verdict is kDoesNotFit
  int replicas = 0;                 // 0 (and chosen empty) whenever verdict is kDoesNotFit
  int total_gpus = 0;
  std::vector<std::string> assumptions, warnings;  // empty from EstimateServingFigures
};


// The serving defaults every plan rests on (utilisation target, weight overhead), with their
// values, as assumptions say them.
std::vector<std::string> ServingDefaultsAssumptions(const ServingConstants& s = ServingConstants(),
                                                    bool decoder = false);

// The checks of a serving request that hold whatever the hardware (kInvalidArgument naming
// the field): a tensor-parallel degree the request fixes (> 0) must divide a decoder's
// attention heads (vLLM shards them over the GPUs; 0 is chosen per node), and the precision
// must be one the engines serve in (not nvfp4, a training recipe: 4-bit weights are
// `quantization` mxfp4).
Status ValidateServingRequest(const Workload& w, const ServingRequest& r);

// Errors name the field ("input_tokens", ...; "target_requests_per_s": over kMaxTotalGpus GPUs).
Result<ServingEstimate> EstimateServing(const Workload& w, const NodeSpec& node,
                                        const ServingRequest& request,
                                        const ModelConstants& c = DefaultConstants(),
                                        const ServingConstants& s = ServingConstants());

// The figures of EstimateServing, the same values and the same errors, without its words:
// no assumptions or warnings, replica_rule or slo_detail (all empty). For walks that rank
// hundreds of configurations and show none of those words (plan/recommend_inference.cc):
// formatting them took about a fifth of such a walk. Not for ServingFeasibility, which reads
// slo_detail.
Result<ServingEstimate> EstimateServingFigures(const Workload& w, const NodeSpec& node,
                                               const ServingRequest& request,
                                               const ModelConstants& c = DefaultConstants(),
                                               const ServingConstants& s = ServingConstants());

}  // namespace gpuplan::model
