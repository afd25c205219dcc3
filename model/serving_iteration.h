// One scheduler iteration of a decoder served by a continuous-batching engine, timed as a
// sum of named terms (docs/model.md "Serving model v3"): weight streaming, KV-cache reads,
// the FLOPs of the tokens it computes (decodes and prompt chunks), the LM head's sampling,
// kernel floors per layer with or without CUDA graphs, the tensor-parallel all-reduces over
// the real link, and the host's per-iteration and per-sequence costs.
// Pure and deterministic; thread-safe.
#pragma once

#include <array>
#include <string_view>

#include "model/constants.h"
#include "model/enum_names.h"
#include "model/gpu_spec.h"
#include "model/hardware.h"
#include "model/serving_engine.h"
#include "model/workload.h"

namespace gpuplan::model {

// How a request stores and computes the model (quantisation).
enum class WeightQuantization { kNone, kFp8, kInt8, kInt4Awq, kInt4Gptq, kMxfp4 };
inline constexpr EnumNames<WeightQuantization, 6> kWeightQuantizationNames = {{
    {"none", WeightQuantization::kNone}, {"fp8", WeightQuantization::kFp8},
    {"int8", WeightQuantization::kInt8}, {"int4_awq", WeightQuantization::kInt4Awq},
    {"int4_gptq", WeightQuantization::kInt4Gptq}, {"mxfp4", WeightQuantization::kMxfp4}}};
enum class KvCacheDtype { kAuto, kFp8 };
inline constexpr EnumNames<KvCacheDtype, 2> kKvCacheDtypeNames = {
    {{"auto", KvCacheDtype::kAuto}, {"fp8", KvCacheDtype::kFp8}}};

// Bytes per weight: `q` when quantised (int4 with its group scales: 4.25 bits), else the
// compute precision's size.
double WeightBytesPerParam(WeightQuantization q, Precision compute);
// Bytes per KV-cache element: 1 for fp8, else the compute precision's size (vLLM "auto").
double KvBytesPerElement(KvCacheDtype kv, Precision compute);
// KV-cache bytes per token of context, whole model: 2 x layers x kv_heads x head_dim x bytes
// (0 for models without attention).
double KvCacheBytesPerToken(const Workload& w, double bytes_per_element);

// One model replica: a decoder on `tp` GPUs of a node. Figures per replica.
struct ReplicaShape {
  int layers = 0, hidden = 0, vocab = 0, tp = 1;
  double attention_width = 0;        // query heads x head dim (attention FLOPs per key)
  double dense_weight_bytes = 0;     // every weight but the experts' MLPs, whole model
  double expert_weight_bytes = 0;    // all experts' MLPs, whole model (0 for dense models)
  int experts = 0, active_experts = 0;
  double flops_per_token = 0;        // 2 x active matmul parameters (LM head included)
  double kv_bytes_per_token = 0;     // whole model, all layers
  double peak_flops = 0;             // per GPU, dense, the compute precision
  double dram_bytes_per_s = 0;       // per GPU, achievable
  bool nvlink = false;               // tensor-parallel all-reduce over NVLink/NVSwitch
  double link_bytes_per_s = 0;       // achieved all-reduce bus bandwidth per GPU
};

ReplicaShape MakeReplicaShape(const Workload& w, const NodeSpec& node, int tp, Precision compute,
                              WeightQuantization q, KvCacheDtype kv, const ModelConstants& c);

// What one iteration computes.
struct IterationLoad {
  double decode_seqs = 0;          // sequences producing one token each
  double decode_context = 0;       // keys they attend to, summed over them
  double prefill_tokens = 0;       // prompt tokens computed (chunks)
  double prefill_pairs = 0;        // query-key pairs of those tokens (causal)
  double prefill_seqs = 0;         // sequences whose last chunk samples a first token
  int steps = 1;                   // decode steps per schedule (multi-step scheduling)
};

struct IterationTime {
  double weights_s = 0, kv_read_s = 0, compute_s = 0, sampling_s = 0;
  double floors_s = 0, allreduce_s = 0, cpu_s = 0;
  bool graphs = false;  // ran as a CUDA graph
  double total_s = 0;   // cpu + floors + all-reduce + max(weights + kv + sampling, compute)
};

IterationTime TimeIteration(const ReplicaShape& r, const IterationLoad& load,
                            const EngineSettings& engine, const EngineConstants& k);

}  // namespace gpuplan::model
