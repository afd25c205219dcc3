#include "model/serving_iteration.h"

#include <algorithm>
#include <cmath>

#include "model/collectives.h"
#include "model/training.h"

namespace gpuplan::model {

double WeightBytesPerParam(WeightQuantization q, Precision compute) {
  switch (q) {
    case WeightQuantization::kFp8:
    case WeightQuantization::kInt8: return 1;
    case WeightQuantization::kInt4Awq:
    case WeightQuantization::kInt4Gptq: return 4.125 / 8;  // 4 bits + an fp16 scale per 128
    case WeightQuantization::kMxfp4: return 4.25 / 8;      // 4 bits + an 8-bit scale per 32
    case WeightQuantization::kNone: break;
  }
  switch (compute) {
    case Precision::kFp32:
    case Precision::kTf32: return 4;
    case Precision::kFp8:
    case Precision::kInt8: return 1;
    default: return 2;
  }
}

double KvBytesPerElement(KvCacheDtype kv, Precision compute) {
  if (kv == KvCacheDtype::kFp8) return 1;
  return compute == Precision::kFp32 || compute == Precision::kTf32 ? 4 : 2;
}

double KvCacheBytesPerToken(const Workload& w, double bytes_per_element) {
  if (!IsTransformer(w.family) || w.heads <= 0) return 0;
  return 2.0 * w.layers * KvHeads(w) * HeadDim(w) * bytes_per_element;
}

ReplicaShape MakeReplicaShape(const Workload& w, const NodeSpec& node, int tp, Precision compute,
                              WeightQuantization q, KvCacheDtype kv, const ModelConstants& c) {
  ReplicaShape r;
  r.layers = w.layers;
  r.hidden = w.hidden;
  r.vocab = w.vocab;
  r.tp = std::max(1, tp);
  r.attention_width = static_cast<double>(w.heads) * HeadDim(w);
  const double bytes = WeightBytesPerParam(q, compute);
  const double total = ParamsTotal(w) * bytes;
  if (w.family == Family::kMoe && w.experts > 0) {
    double mlp = (w.gated_mlp ? 3.0 : 2.0) * w.hidden * FfnSize(w);
    r.experts = w.experts;
    r.active_experts = std::max(1, w.active_experts);
    r.expert_weight_bytes = std::min(total, w.layers * mlp * w.experts * bytes);
  }
  r.dense_weight_bytes = total - r.expert_weight_bytes;
  r.flops_per_token = 2 * MatmulParamsPerToken(w);
  r.kv_bytes_per_token = KvCacheBytesPerToken(w, KvBytesPerElement(kv, compute));
  r.peak_flops = PeakTflops(node.gpu, compute) * 1e12;
  r.dram_bytes_per_s = DramBandwidth(node.gpu, c);
  r.nvlink = (node.interconnect == Interconnect::kNvlink ||
              node.interconnect == Interconnect::kNvswitch) &&
             (node.interconnect_bw_gbps > 0 || node.gpu.nvlink_bw_gbps > 0);
  r.link_bytes_per_s = IntraNodeBusGbps(node, c) * 1e9;
  return r;
}

IterationTime TimeIteration(const ReplicaShape& r, const IterationLoad& load,
                            const EngineSettings& engine, const EngineConstants& k) {
  IterationTime t;
  const double tokens = load.decode_seqs + load.prefill_tokens;
  if (tokens <= 0) return t;
  const double bw = r.dram_bytes_per_s * k.eta_bandwidth * r.tp;  // the replica's GPUs together
  // Weights: every dense weight once; of each layer's experts, those the tokens route to
  // (expected distinct experts of n tokens choosing top-k of E uniformly).
  double expert_share = 0;
  if (r.experts > 0) {
    double miss = std::pow(1.0 - static_cast<double>(r.active_experts) / r.experts, tokens);
    expert_share = 1.0 - miss;
  }
  t.weights_s = (r.dense_weight_bytes + r.expert_weight_bytes * expert_share) / bw;
  // KV: decodes read their whole context; prompt chunks read the keys before them.
  t.kv_read_s = (load.decode_context + load.prefill_tokens) * r.kv_bytes_per_token / bw;
  // Logits of every sampled sequence: written, softmaxed and read (fp32).
  const double sampled = load.decode_seqs + load.prefill_seqs;
  t.sampling_s = sampled * r.vocab * 4.0 * 3 / bw;
  const double attention_flops =
      4.0 * r.layers * r.attention_width * (load.prefill_pairs + load.decode_context);
  t.compute_s = (r.flops_per_token * tokens + attention_flops) /
                (r.peak_flops * r.tp * k.eta_compute);
  // CUDA graphs replay batches up to the captured size (V1 also mixed batches, piecewise).
  t.graphs = engine.cuda_graphs && tokens <= engine.graph_capture_max_batch &&
             (engine.chunked_prefill || load.prefill_tokens == 0);
  t.floors_s = r.layers * (t.graphs ? k.layer_floor_graph_s : k.layer_floor_eager_s);
  if (r.tp > 1) {
    const double bytes = tokens * r.hidden * 2.0;
    const double latency = r.nvlink ? k.allreduce_nvlink_s : k.allreduce_pcie_s;
    const double transfer = 2.0 * (r.tp - 1) / r.tp * bytes / std::max(1.0, r.link_bytes_per_s);
    t.allreduce_s = 2.0 * r.layers * (latency + transfer);
  }
  const int steps = std::max(1, load.prefill_tokens > 0 ? 1 : load.steps);
  t.cpu_s = (k.cpu_iteration_s + k.cpu_per_sequence_s * sampled) / steps;
  t.total_s = t.cpu_s + t.floors_s + t.allreduce_s +
              std::max(t.weights_s + t.kv_read_s + t.sampling_s, t.compute_s);
  return t;
}

}  // namespace gpuplan::model
