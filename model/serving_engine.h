// Serving engines: what a request may say about the engine that serves a decoder, the
// engine's own defaults per version and GPU class (taken from the engine's source,
// docs/model.md "Serving engines"), and the constants of its iteration-time model.
// A second engine (TensorRT-LLM, SGLang) is one more EngineProfile: a defaults function
// and a constants table, no new code path. Pure data and functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/gpu_spec.h"
#include "model/result.h"

namespace gpuplan::model {

// The engine settings a request may give; unset members take the engine's defaults.
struct EngineConfig {
  std::string name = "vllm";
  std::string version = "v1";
  std::optional<int> max_num_seqs;
  std::optional<int> max_num_batched_tokens;
  std::optional<double> gpu_memory_utilization;  // share of GPU memory the engine may use
  std::optional<bool> cuda_graphs;               // false: enforce_eager
  std::optional<bool> chunked_prefill;
  std::optional<bool> prefix_caching;
  std::optional<int> max_model_len;       // longest prompt + output the engine admits
  std::optional<int> num_scheduler_steps;  // v0.6 multi-step scheduling: decode steps per schedule
  // The API server in its own process (vLLM 0.6+); false: it shares the engine's loop (0.5.x),
  // so every request's HTTP and tokenisation work stalls the iterations.
  std::optional<bool> frontend_multiprocessing;
};

// The settings a plan runs with, every default resolved.
struct EngineSettings {
  std::string name, version;
  int max_num_seqs = 256;
  int max_num_batched_tokens = 2048;  // token budget of one iteration
  double gpu_memory_utilization = 0.9;
  bool cuda_graphs = true;
  int graph_capture_max_batch = 256;  // larger decode batches run eagerly
  // Prompts in chunks within the token budget, decodes first (V1); false: prefill-only
  // iterations before decodes (vLLM v0's default).
  bool chunked_prefill = true;
  bool prefix_caching = true;
  int max_model_len = 0;
  int num_scheduler_steps = 1;
  bool frontend_multiprocessing = true;
};

// The iteration-time constants of one engine version family. The first eight are fitted by
// `gpuplan calibrate --serving` (log space, priors and bounds below); the rest are sourced.
struct EngineConstants {
  // --- fitted ---
  double cpu_iteration_s = 0;   // host time per scheduler iteration (schedule, prepare, launch)
  double cpu_per_sequence_s = 0;  // host time per sequence per iteration (sampling, detokenise)
  double eta_bandwidth = 0;     // share of the achievable DRAM bandwidth weights and KV stream at
  double eta_compute = 0;       // share of the dense tensor peak prefill and large batches reach
  double layer_floor_graph_s = 0;  // GPU time per layer of a tiny decode step under CUDA graphs
  double layer_floor_eager_s = 0;  // the same without graphs (launch bound)
  double allreduce_nvlink_s = 0;   // latency of one small tensor-parallel all-reduce over NVLink
  double api_overhead_s = 0;       // per request: HTTP, tokenisation, first-token detokenisation
  // --- sourced or assumed ---
  double allreduce_pcie_s = 30e-6;  // NCCL small all-reduce over PCIe (nccl-tests: 20-50 us)
  // The profile run's activation peak per token of the budget, in units of the hidden size
  // (bytes), and what neither weights nor KV take: CUDA context, NCCL, captured graphs.
  double activation_reserve_bytes_per_token = 24;
  double non_torch_bytes = 1.0e9;
};

// One constant as the calibration sees it: value, prior, bounds (all > 0).
struct EngineConstantSpec {
  const char* name;
  double EngineConstants::*field;
  double prior, lo, hi;
  const char* why;  // what it stands for and where the prior comes from
  // A property of the GPU and its kernels, not of the engine version: one value fitted for
  // every family (each family's table repeats it with the same prior and bounds).
  bool shared;
};
inline constexpr int kFittedEngineConstants = 8;

struct EngineProfile {
  std::string_view name;     // "vllm"
  std::string_view version;  // "v0", "v1"
  std::string_view source;   // where the defaults come from (file and version)
  // Defaults for `gpu`; `max_model_len` is the resolved model length.
  EngineSettings (*defaults)(const GpuSpec& gpu, int max_model_len);
  const EngineConstantSpec* constants;  // kFittedEngineConstants entries
  EngineConstants shipped;              // the fitted values in use
};

// Every engine profile, in a stable order.
const std::vector<EngineProfile>& EngineProfiles();

// The profile of `name` and `version`; nullptr when none.
const EngineProfile* FindEngineProfile(std::string_view name, std::string_view version);

// Resolves `config` on `gpu` for a model of `model_max_len` tokens (0 = unknown) serving
// requests of `request_tokens` (prompt + output). Every default taken is appended to
// `assumptions` in words (null: none is said, nor built). Errors name the engine field
// ("version", ...).
Result<EngineSettings> ResolveEngine(const EngineConfig& config, const GpuSpec& gpu,
                                     int model_max_len, int request_tokens,
                                     std::vector<std::string>* assumptions);

}  // namespace gpuplan::model
