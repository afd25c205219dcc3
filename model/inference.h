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
#include "model/workload.h"

namespace gpuplan::model {

struct ServingConstants {
  double eta_prefill = 0.7;        // of dense peak (TRT-LLM/vLLM; MODEL.md 2.7) [assumption]
  double eta_decode_compute = 0.5;  // of dense peak when decode is compute-bound [assumption]
  // Decode reads weights and KV cache at the training model's achieved bandwidth share
  // (ModelConstants::eta_bw) and never beats its kernels' floors: this many kernels per
  // layer (QKV, rotary, attention, output, two norms, gate-up, activation, down, residual)
  // at ModelConstants::kernel_floor_s each, even under CUDA graphs.
  double decode_kernels_per_layer = 10;
  double prefill_overhead_s = 0.008;  // fixed per prefill (LLM-Viewer #4 fit)
  double decode_overhead_s = 0.0005;  // fixed per decode step with CUDA graphs [assumption]
  double batch_overhead_s = 0.002;    // fixed per CNN/encoder batch, compiled runtime
  double utilization = 0.7;  // target load per replica, headroom for p95 [assumption]
  double weight_overhead = 0.2;  // workspace and fragmentation on top of weights (EleutherAI)
};

struct ServingRequest {
  Precision precision = Precision::kBf16;  // weights and compute; int8/fp8 = quantized
  bool precision_auto = false;  // run AutoPrecision(gpu) instead of `precision` (assumption)
  int input_tokens = 0;   // decoders: prompt tokens per request
  int output_tokens = 0;  // decoders: generated tokens per request
  double target_requests_per_s = 0;  // load to serve (decoders and others)
  double latency_slo_s = 0;          // end-to-end per request (p95 target); 0 = none
  int tensor_parallel = 0;           // GPUs per replica for decoders; 0 = choose
  int max_batch = 1024;
};

struct ServingPoint {
  int batch = 0;
  double ttft_s = 0;           // time to first token (decoders); batch time (others)
  double tpot_s = 0;           // time per output token (decoders)
  double latency_s = 0;        // a request's end-to-end time at this batch
  double requests_per_s = 0;   // per replica
  double tokens_per_s = 0;     // output tokens per replica (decoders)
};

struct ServingEstimate {
  Precision precision = Precision::kBf16;  // what was estimated (auto resolved)
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
  std::vector<std::string> assumptions, warnings;
};

// KV-cache bytes per token of context: 2 * layers * kv_heads * head_dim * bytes.
double KvCacheBytesPerToken(const Workload& w, Precision precision);

// The serving defaults every plan rests on (utilisation target, weight overhead), with their
// values, as assumptions say them.
std::vector<std::string> ServingDefaultsAssumptions(const ServingConstants& s = ServingConstants());

// Errors name the field ("input_tokens", ...; "target_requests_per_s": over kMaxTotalGpus GPUs).
Result<ServingEstimate> EstimateServing(const Workload& w, const NodeSpec& node,
                                        const ServingRequest& request,
                                        const ModelConstants& c = DefaultConstants(),
                                        const ServingConstants& s = ServingConstants());

}  // namespace gpuplan::model
