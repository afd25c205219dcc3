#include "api/model_json.h"

#include <cmath>

namespace gpuplan::api {

namespace {
double Round(double v, int digits = 4) {
  if (v == 0 || !std::isfinite(v)) return v;
  double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return std::round(v * scale) / scale;
}
}  // namespace

nlohmann::json WorkloadJson(const model::Workload& w) {
  nlohmann::json j = {
      {"id", w.id},
      {"name", w.name},
      {"family", model::FamilyName(w.family)},
      {"params", model::ParamsTotal(w)},
      {"matmul_params_per_token", model::IsImage(w.family) && w.family == model::Family::kCnn
                                      ? nlohmann::json(nullptr)
                                      : nlohmann::json(model::MatmulParamsPerToken(w))},
      {"forward_flops_per_sample", model::ForwardFlopsPerSample(w)},
      {"train_flops_per_sample", model::TrainFlopsPerSample(w)},
      {"source", w.source},
  };
  if (w.family == model::Family::kCnn) {
    j["macs_per_sample"] = w.macs_per_sample;
    j["image_size"] = w.image_size;
    j["spatial_dims"] = w.spatial_dims;
    j["activation_elements_per_sample"] = w.activation_elements_per_sample;
    j["conv_layers"] = w.conv_layers;
    if (w.depthwise_macs_share >= 0) j["depthwise_macs_share"] = w.depthwise_macs_share;
  } else {
    j["layers"] = w.layers;
    j["hidden"] = w.hidden;
    j["vocab"] = w.vocab;
    j["tokens_per_sample"] = model::TokensPerSample(w);
    if (model::IsTransformer(w.family)) {
      j["heads"] = w.heads;
      j["kv_heads"] = model::KvHeads(w);
      j["ffn"] = model::FfnSize(w);
      j["gated_mlp"] = w.gated_mlp;
    }
    if (w.family == model::Family::kVit) {
      j["image_size"] = w.image_size;
      j["patch_size"] = w.patch_size;
    } else {
      j["seq_len"] = w.seq_len;
    }
    if (w.max_context > 0) j["max_context"] = w.max_context;
    j["variable_length"] = w.variable_length;
    if (w.family == model::Family::kEncoderDecoder) {
      j["decoder_layers"] = w.decoder_layers;
      j["target_len"] = w.target_len;
    }
    if (w.family == model::Family::kMoe) {
      j["experts"] = w.experts;
      j["active_experts"] = w.active_experts;
    }
  }
  return j;
}

nlohmann::json MemoryJson(const model::MemoryBreakdown& m, int max_micro_batch) {
  return {
      {"per_gpu_gb",
       {{"weights", Round(m.weights_gb)},
        {"gradients", Round(m.gradients_gb)},
        {"optimizer", Round(m.optimizer_gb)},
        {"activations", Round(m.activations_gb)},
        {"overhead", Round(m.overhead_gb)},
        {"total", Round(m.total_gb)}}},
      {"capacity_gb", m.capacity_gb},
      {"verdict", model::VerdictName(m.verdict)},
      {"max_micro_batch", max_micro_batch},
  };
}

nlohmann::json LayoutJson(const model::ParallelLayout& l) {
  return {{"tensor_parallel", l.tensor},
          {"pipeline_parallel", l.pipeline},
          {"data_parallel", l.data},
          {"zero_stage", l.zero_stage}};
}

nlohmann::json TrainingEstimateJson(const model::TrainingEstimate& e, const model::Workload& w,
                                    const model::Cluster& cluster,
                                    const model::TrainingJob& job) {
  const model::StepBreakdown& b = e.step.breakdown;
  nlohmann::json j = {
      {"workload", w.id.empty() ? "custom" : w.id},
      {"hardware",
       {{"gpu", cluster.node.gpu.id},
        {"gpus_per_node", cluster.node.gpus_per_node},
        {"nodes", cluster.nodes},
        {"total_gpus", cluster.TotalGpus()},
        {"interconnect", model::InterconnectName(cluster.node.interconnect)}}},
      {"precision", model::PrecisionName(e.precision)},
      {"global_batch_size", job.global_batch},
      {"micro_batch_size", e.micro_batch},
      {"gradient_accumulation_steps", e.grad_accumulation_steps},
      {"layout", LayoutJson(e.layout)},
      {"throughput",
       {{"samples_per_s", Round(e.samples_per_s)},
        {"tokens_per_s", e.tokens_per_s > 0 ? nlohmann::json(Round(e.tokens_per_s))
                                            : nlohmann::json(nullptr)}}},
      {"step_time_s", Round(e.step.step_time_s)},
      {"breakdown",
       {{"compute_s", Round(b.compute_s)},
        {"memory_s", Round(b.memory_s)},
        {"communication_s", Round(b.communication_s)},
        {"pipeline_bubble_s", Round(b.bubble_s)},
        {"optimizer_s", Round(b.optimizer_s)},
        {"input_s", Round(b.input_s)},
        {"overhead_s", Round(b.overhead_s)}}},
      {"bottleneck", e.step.bottleneck},
      {"bottleneck_share", Round(e.step.bottleneck_share, 3)},
      {"mfu", Round(e.mfu, 3)},
      {"scaling_efficiency", Round(e.scaling_efficiency, 3)},
      {"memory", MemoryJson(e.memory, e.max_micro_batch)},
      {"smallest_fitting_layout",
       e.smallest_layout
           ? nlohmann::json{{"gpus", e.smallest_layout->gpus},
                            {"nodes", e.smallest_layout->nodes},
                            {"layout", LayoutJson(e.smallest_layout->layout)},
                            {"per_gpu_gb", Round(e.smallest_layout->memory.total_gb)}}
           : nlohmann::json(nullptr)},
      {"time",
       {{"total_hours", Round(e.total_hours)},
        {"p10_hours", Round(e.p10_hours)},
        {"p90_hours", Round(e.p90_hours)},
        {"steps", e.steps},
        {"epochs", Round(e.epochs)},
        {"total_samples", e.total_samples},
        {"total_tokens", e.total_tokens > 0 ? nlohmann::json(e.total_tokens)
                                            : nlohmann::json(nullptr)},
        {"train_flops", e.train_flops}}},
      {"assumptions", e.assumptions},
      {"warnings", e.warnings},
      {"model_version", kModelVersion},
  };
  return j;
}

}  // namespace gpuplan::api
