#include "model/serving_engine.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpuplan::model {

namespace {

std::string Number(double v) { return fmt::format("{:g}", v); }

// A "large" GPU in vLLM V1's sense: at least 70 GiB and not an A100
// (vllm/engine/arg_utils.py, EngineArgs._set_default_args: device_memory >= 70 GiB and
// "a100" not in the device name).
bool V1LargeGpu(const GpuSpec& gpu) {
  std::string id = gpu.id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  return gpu.memory_gb * 1e9 >= 70.0 * (1ull << 30) && id.find("a100") == std::string::npos;
}

// vLLM v0 (0.5.x-0.6.x; vllm/config.py SchedulerConfig, vllm/engine/arg_utils.py).
EngineSettings VllmV0(const GpuSpec&, int max_model_len) {
  EngineSettings s;
  s.name = "vllm";
  s.version = "v0";
  s.max_num_seqs = 256;
  s.max_model_len = max_model_len;
  // Chunked prefill switches itself on for contexts over 32K (arg_utils.py, use_long_context).
  s.chunked_prefill = max_model_len > 32768;
  s.max_num_batched_tokens = s.chunked_prefill ? 512 : std::max(max_model_len, 2048);
  s.gpu_memory_utilization = 0.9;
  s.cuda_graphs = true;
  s.graph_capture_max_batch = 256;  // _BATCH_SIZES_TO_CAPTURE = [1, 2, 4] + 8..256
  s.prefix_caching = false;
  s.num_scheduler_steps = 1;
  return s;
}

// vLLM V1 engine (0.8 and later, the default since 0.8; arg_utils.py _set_default_args for
// the OpenAI-compatible server).
EngineSettings VllmV1(const GpuSpec& gpu, int max_model_len) {
  EngineSettings s;
  s.name = "vllm";
  s.version = "v1";
  bool large = V1LargeGpu(gpu);
  s.max_num_seqs = large ? 1024 : 256;
  s.max_num_batched_tokens = large ? 8192 : 2048;
  s.max_model_len = max_model_len;
  s.gpu_memory_utilization = 0.9;
  s.cuda_graphs = true;
  s.graph_capture_max_batch = std::min(512, 2 * s.max_num_seqs);  // max_cudagraph_capture_size
  s.chunked_prefill = true;
  s.prefix_caching = true;
  s.num_scheduler_steps = 1;
  return s;
}

// Priors: host costs from vLLM's own profiles (the v0.6.0 performance post: on H100 with
// Llama-3-8B the GPU ran only 38 % of the time in v0.5.3; API server and scheduling took the
// rest), kernel floors from CUDA-graph replay of a decoder layer (~8-10 kernels of 1-3 us),
// all-reduce from the custom one-shot kernel (~10 us on NVLink).
// The GPU-side constants every family shares (fitted once, on every run).
#define GPUPLAN_SHARED_ENGINE_CONSTANTS                                                      \
  {"eta_bandwidth", &EngineConstants::eta_bandwidth, 0.85, 0.5, 1.0,                        \
   "share of the achievable DRAM bandwidth decode reaches (weights and KV)", true},          \
  {"eta_compute", &EngineConstants::eta_compute, 0.6, 0.3, 0.8,                             \
   "share of the dense tensor peak prefill and large batches reach (bound: the lent H200's "  \
   "BF16 GEMMs at 7 B shapes reach 0.53-0.77 of peak)", true},                               \
  {"layer_floor_graph_s", &EngineConstants::layer_floor_graph_s, 10e-6, 3e-6, 60e-6,        \
   "GPU time per layer of a tiny decode step replayed as a CUDA graph", true},               \
  {"layer_floor_eager_s", &EngineConstants::layer_floor_eager_s, 50e-6, 15e-6, 200e-6,      \
   "the same launched eagerly (beyond the captured sizes, v0 prefill)", true},               \
  {"allreduce_nvlink_s", &EngineConstants::allreduce_nvlink_s, 10e-6, 3e-6, 60e-6,          \
   "latency of one tensor-parallel all-reduce over NVLink (custom all-reduce)", true}

constexpr EngineConstantSpec kVllmV0Constants[kFittedEngineConstants] = {
    {"cpu_iteration_s", &EngineConstants::cpu_iteration_s, 4e-3, 0.5e-3, 20e-3,
     "host time per scheduler iteration (v0: Python scheduler, input preparation)", false},
    {"cpu_per_sequence_s", &EngineConstants::cpu_per_sequence_s, 30e-6, 2e-6, 200e-6,
     "host time per running sequence per iteration (sampling, detokenisation, output)", false},
    {"api_overhead_s", &EngineConstants::api_overhead_s, 15e-3, 1e-3, 100e-3,
     "per request: HTTP, tokenisation, queue hand-off and the first token's return", false},
    GPUPLAN_SHARED_ENGINE_CONSTANTS,
};

constexpr EngineConstantSpec kVllmV1Constants[kFittedEngineConstants] = {
    {"cpu_iteration_s", &EngineConstants::cpu_iteration_s, 1.5e-3, 0.2e-3, 10e-3,
     "host time per scheduler iteration (V1: overlapped, C++ input preparation)", false},
    {"cpu_per_sequence_s", &EngineConstants::cpu_per_sequence_s, 10e-6, 1e-6, 100e-6,
     "host time per running sequence per iteration (sampling, detokenisation, output)", false},
    {"api_overhead_s", &EngineConstants::api_overhead_s, 10e-3, 1e-3, 100e-3,
     "per request: HTTP, tokenisation, queue hand-off and the first token's return", false},
    GPUPLAN_SHARED_ENGINE_CONSTANTS,
};
#undef GPUPLAN_SHARED_ENGINE_CONSTANTS

EngineConstants Priors(const EngineConstantSpec* specs) {
  EngineConstants c;
  for (int i = 0; i < kFittedEngineConstants; ++i) c.*(specs[i].field) = specs[i].prior;
  return c;
}

// Fitted by `gpuplan calibrate --serving` on serving_calibration.csv (docs/model.md 4.5).
void SetShared(EngineConstants& c) {
  c.eta_bandwidth = 1.0;  // at its bound: decode streams at the published achievable bandwidth
  c.eta_compute = 0.8;    // at its bound: the lent H200's best GEMM share (docs/model.md 4.5)
  c.layer_floor_graph_s = 8.696e-6;
  c.layer_floor_eager_s = 35.29e-6;
  c.allreduce_nvlink_s = 7.302e-6;
}

EngineConstants ShippedV0() {
  EngineConstants c = Priors(kVllmV0Constants);
  SetShared(c);
  c.cpu_iteration_s = 3.0e-3;
  c.cpu_per_sequence_s = 131.4e-6;
  c.api_overhead_s = 11.03e-3;
  return c;
}

EngineConstants ShippedV1() {
  EngineConstants c = Priors(kVllmV1Constants);
  SetShared(c);
  c.cpu_iteration_s = 1.125e-3;
  c.cpu_per_sequence_s = 8.625e-6;
  c.api_overhead_s = 12.68e-3;
  return c;
}

}  // namespace

const std::vector<EngineProfile>& EngineProfiles() {
  static const std::vector<EngineProfile> profiles = {
      {"vllm", "v0",
       "vLLM 0.5.4-0.6.x: vllm/config.py (SchedulerConfig), vllm/engine/arg_utils.py, "
       "vllm/worker/model_runner.py (_BATCH_SIZES_TO_CAPTURE)",
       &VllmV0, kVllmV0Constants, ShippedV0()},
      {"vllm", "v1",
       "vLLM V1 engine (0.8+): vllm/engine/arg_utils.py (_set_default_args), "
       "vllm/config (max_cudagraph_capture_size)",
       &VllmV1, kVllmV1Constants, ShippedV1()},
  };
  return profiles;
}

const EngineProfile* FindEngineProfile(std::string_view name, std::string_view version) {
  for (const EngineProfile& p : EngineProfiles()) {
    if (p.name == name && p.version == version) return &p;
  }
  return nullptr;
}

Result<EngineSettings> ResolveEngine(const EngineConfig& config, const GpuSpec& gpu,
                                     int model_max_len, int request_tokens,
                                     std::vector<std::string>* assumptions) {
  if (config.name != "vllm") {
    return Error::Invalid({Part::kEngine, "name"},
                          "engine.name must be vllm (the engine modelled so far)");
  }
  const EngineProfile* profile = FindEngineProfile(config.name, config.version);
  if (!profile)
    return Error::Invalid({Part::kEngine, "version"}, "engine.version must be v0 or v1");
  int max_len = config.max_model_len.value_or(model_max_len > 0 ? model_max_len : 0);
  if (max_len <= 0) max_len = std::max(request_tokens, 2048);
  if (max_len < request_tokens) {
    return Error::Invalid({Part::kEngine, "max_model_len"},
                          "engine.max_model_len (" + std::to_string(max_len) +
                              ") is shorter than a request (" + std::to_string(request_tokens) +
                              " prompt + output tokens)");
  }
  EngineSettings s = profile->defaults(gpu, max_len);
  std::vector<std::string> defaulted;
  auto take = [&](auto& field, const auto& given, const char* name, auto shown) {
    if (given) {
      field = *given;
    } else if (assumptions) {  // said only where asked
      defaulted.push_back(std::string(name) + " " + shown(field));
    }
  };
  auto num = [](double v) { return Number(v); };
  auto flag = [](bool v) { return std::string(v ? "on" : "off"); };
  take(s.chunked_prefill, config.chunked_prefill, "chunked prefill", flag);
  if (config.chunked_prefill && !config.max_num_batched_tokens && s.version == "v0") {
    s.max_num_batched_tokens = *config.chunked_prefill ? 512 : std::max(max_len, 2048);
  }
  take(s.max_num_seqs, config.max_num_seqs, "max_num_seqs", num);
  take(s.max_num_batched_tokens, config.max_num_batched_tokens, "max_num_batched_tokens", num);
  take(s.gpu_memory_utilization, config.gpu_memory_utilization, "gpu_memory_utilization", num);
  take(s.cuda_graphs, config.cuda_graphs, "CUDA graphs", flag);
  take(s.prefix_caching, config.prefix_caching, "prefix caching", flag);
  take(s.num_scheduler_steps, config.num_scheduler_steps, "num_scheduler_steps", num);
  take(s.frontend_multiprocessing, config.frontend_multiprocessing, "frontend multiprocessing", flag);
  if (!config.max_model_len && assumptions) {
    defaulted.push_back("max_model_len " + std::to_string(max_len));
  }
  if (s.max_num_seqs < 1)
    return Error::Invalid({Part::kEngine, "max_num_seqs"}, "must be at least 1");
  if (!s.chunked_prefill && s.max_num_batched_tokens < max_len) {
    return Error::Invalid({Part::kEngine, "max_num_batched_tokens"},
                          "without chunked prefill the token budget must hold the longest "
                          "request (max_model_len " +
                              std::to_string(max_len) + ")");
  }
  if (s.max_num_batched_tokens < s.max_num_seqs && s.chunked_prefill) {
    // vLLM refuses a budget smaller than max_num_seqs (every decode needs a token).
    return Error::Invalid({Part::kEngine, "max_num_batched_tokens"},
                          "max_num_batched_tokens must be at least max_num_seqs (" +
                              std::to_string(s.max_num_seqs) + ")");
  }
  if (!(s.gpu_memory_utilization > 0 && s.gpu_memory_utilization <= 1)) {
    return Error::Invalid({Part::kEngine, "gpu_memory_utilization"}, "must be in (0, 1]");
  }
  if (s.num_scheduler_steps < 1) {
    return Error::Invalid({Part::kEngine, "num_scheduler_steps"}, "must be at least 1");
  }
  if (s.version == "v1") s.graph_capture_max_batch = std::min(512, 2 * s.max_num_seqs);
  if (!s.cuda_graphs) s.graph_capture_max_batch = 0;
  if (assumptions && !defaulted.empty()) {
    std::string line = "engine " + s.name + " " + s.version + " defaults for " + gpu.id + ": ";
    for (size_t i = 0; i < defaulted.size(); ++i) line += (i ? ", " : "") + defaulted[i];
    line += " (" + std::string(profile->source) + ")";
    assumptions->push_back(std::move(line));
  }
  return s;
}

}  // namespace gpuplan::model
