#include "api/model_json.h"

#include <array>
#include <cmath>

namespace gpuplan::api {

namespace {

// 10^k for k in [-kPowersBelow, kPowersAbove), computed once by std::pow itself (so a
// value from the table is the one std::pow would give).
constexpr int kPowersBelow = 330, kPowersAbove = 330;
const std::array<double, kPowersBelow + kPowersAbove>& PowersOfTen() {
  static const auto table = [] {
    std::array<double, kPowersBelow + kPowersAbove> t{};
    for (int k = -kPowersBelow; k < kPowersAbove; ++k) t[k + kPowersBelow] = std::pow(10.0, k);
    return t;
  }();
  return table;
}

// `v` rounded to `digits` significant digits (answers do not pretend to more precision).
double RoundSignificant(double v, int digits = 4) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int k = digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const double scale = k >= -kPowersBelow && k < kPowersAbove ? PowersOfTen()[k + kPowersBelow]
                                                              : std::pow(10.0, k);
  return std::round(v * scale) / scale;
}

}  // namespace

void WriteWorkload(JsonWriter& out, const model::Workload& w) {
  // Shape fields as the model says they apply to the family (model::ShapeFieldApplies, the
  // rule requests are checked by); derived counts where the workload has what they count.
  auto applies = [&](std::string_view field) { return model::ShapeFieldApplies(w.family, field); };
  const int tokens = model::TokensPerSample(w);
  out.BeginObject();
  out.Field("id", w.id);
  out.Field("name", w.name);
  out.Field("family", model::FamilyName(w.family));
  out.Field("params", model::ParamsTotal(w));
  if (tokens > 0) {
    out.Field("matmul_params_per_token", model::MatmulParamsPerToken(w));
  } else {
    out.Field("matmul_params_per_token", nullptr);  // no tokens (a CNN)
  }
  out.Field("forward_flops_per_sample", model::ForwardFlopsPerSample(w));
  out.Field("train_flops_per_sample", model::TrainFlopsPerSample(w));
  if (applies("macs_per_sample")) out.Field("macs_per_sample", w.macs_per_sample);
  if (applies("image_size")) out.Field("image_size", w.image_size);
  if (applies("spatial_dims")) out.Field("spatial_dims", w.spatial_dims);
  if (applies("activation_elements_per_sample")) {
    out.Field("activation_elements_per_sample", w.activation_elements_per_sample);
  }
  if (applies("conv_layers")) out.Field("conv_layers", w.conv_layers);
  if (applies("depthwise_macs_share") && w.depthwise_macs_share >= 0) {
    out.Field("depthwise_macs_share", w.depthwise_macs_share);
  }
  if (applies("layers")) out.Field("layers", w.layers);
  if (applies("hidden")) out.Field("hidden", w.hidden);
  if (applies("vocab")) out.Field("vocab", w.vocab);
  if (tokens > 0) out.Field("tokens_per_sample", tokens);
  if (applies("heads")) out.Field("heads", w.heads);
  if (applies("kv_heads")) out.Field("kv_heads", model::KvHeads(w));
  if (applies("head_dim")) out.Field("head_dim", model::HeadDim(w));
  if (applies("ffn")) out.Field("ffn", model::FfnSize(w));
  if (applies("gated_mlp")) out.Field("gated_mlp", w.gated_mlp);
  if (applies("patch_size")) out.Field("patch_size", w.patch_size);
  if (applies("seq_len")) out.Field("seq_len", w.seq_len);
  if (applies("max_context") && w.max_context > 0) out.Field("max_context", w.max_context);
  if (applies("variable_length")) out.Field("variable_length", w.variable_length);
  if (applies("decoder_layers")) out.Field("decoder_layers", w.decoder_layers);
  if (applies("target_len")) out.Field("target_len", w.target_len);
  if (applies("experts")) out.Field("experts", w.experts);
  if (applies("active_experts")) out.Field("active_experts", w.active_experts);
  out.Field("source", w.source);
  out.EndObject();
}

std::string WorkloadJson(const model::Workload& w) {
  JsonWriter out;
  WriteWorkload(out, w);
  return out.Take();
}

void WriteLayout(JsonWriter& out, const model::ParallelLayout& l) {
  out.BeginObject();
  out.Field("tensor_parallel", l.tensor);
  out.Field("pipeline_parallel", l.pipeline);
  out.Field("data_parallel", l.data);
  out.Field("zero_stage", l.zero_stage);
  out.Field("context_parallel", l.context);
  out.Field("virtual_pipeline_stages", l.virtual_stages);
  out.Field("sequence_parallel", l.sequence_parallel);
  out.EndObject();
}

namespace {

void WriteMemory(JsonWriter& out, const model::MemoryBreakdown& m, int max_micro_batch) {
  out.BeginObject();
  out.Object("per_gpu_gb", [&] {
    out.Field("weights", RoundSignificant(m.weights_gb));
    out.Field("gradients", RoundSignificant(m.gradients_gb));
    out.Field("optimizer", RoundSignificant(m.optimizer_gb));
    out.Field("activations", RoundSignificant(m.activations_gb));
    out.Field("overhead", RoundSignificant(m.overhead_gb));
    out.Field("total", RoundSignificant(m.total_gb));
  });
  out.Field("capacity_gb", m.capacity_gb);
  out.Field("verdict", model::VerdictName(m.verdict));
  out.Field("max_micro_batch", max_micro_batch);
  out.EndObject();
}

}  // namespace

void WriteTrainingEstimateMembers(JsonWriter& out, const model::TrainingEstimate& e,
                                  const model::Cluster& cluster, const model::TrainingJob& job,
                                  bool runnable) {
  const model::StepBreakdown& b = e.step.breakdown;
  // A job that cannot run has no throughput, step time or time: null, never a figure that
  // reads as the plan's.
  auto figure = [runnable](double v, int digits = 4) {
    return runnable ? std::optional(RoundSignificant(v, digits)) : std::nullopt;
  };
  out.Object("hardware", [&] {
    out.Field("gpu", cluster.node.gpu.id);
    out.Field("gpus_per_node", cluster.node.gpus_per_node);
    out.Field("nodes", cluster.nodes);
    out.Field("total_gpus", cluster.TotalGpus());
    out.Field("interconnect", model::InterconnectName(cluster.node.interconnect));
    out.Field("nvlink_domain_gpus", model::NvlinkDomainGpus(cluster.node));
  });
  out.Field("precision", model::PrecisionName(e.precision));
  out.Field("global_batch_size", job.global_batch);
  out.Field("micro_batch_size", e.micro_batch);
  out.Field("gradient_accumulation_steps", e.grad_accumulation_steps);
  out.Key("layout");
  WriteLayout(out, e.layout);
  out.Object("throughput", [&] {
    out.Field("samples_per_s", figure(e.samples_per_s));
    out.Field("tokens_per_s", e.tokens_per_s > 0 ? figure(e.tokens_per_s) : std::nullopt);
  });
  out.Field("step_time_s", figure(e.step.step_time_s));
  out.Object("breakdown", [&] {
    out.Field("compute_s", figure(b.compute_s));
    out.Field("memory_s", figure(b.memory_s));
    out.Field("communication_s", figure(b.communication_s));
    out.Field("pipeline_bubble_s", figure(b.bubble_s));
    out.Field("optimizer_s", figure(b.optimizer_s));
    out.Field("input_s", figure(b.input_s));
    out.Field("overhead_s", figure(b.overhead_s));
  });
  out.Field("bottleneck", runnable ? std::optional(e.step.bottleneck) : std::nullopt);
  out.Field("bottleneck_share", figure(e.step.bottleneck_share, 3));
  out.Field("mfu", figure(e.mfu, 3));
  out.Field("scaling_efficiency", figure(e.scaling_efficiency, 3));
  out.Key("memory");
  WriteMemory(out, e.memory, e.max_micro_batch);
  out.Key("smallest_fitting_layout");
  if (e.smallest_layout) {
    out.BeginObject();
    out.Field("gpus", e.smallest_layout->gpus);
    out.Field("nodes", e.smallest_layout->nodes);
    out.Key("layout");
    WriteLayout(out, e.smallest_layout->layout);
    out.Field("per_gpu_gb", RoundSignificant(e.smallest_layout->memory.total_gb));
    out.EndObject();
  } else {
    out.Null();
  }
  out.Object("time", [&] {
    out.Field("total_hours", figure(e.total_hours));
    out.Field("p10_hours", figure(e.p10_hours));
    out.Field("p90_hours", figure(e.p90_hours));
    // With a fixed duration the work is what the (impossible) step time fits in the hours:
    // null too when the job cannot run.
    const bool work_known = runnable || job.hours <= 0;
    auto work = [work_known](double v) { return work_known ? std::optional(v) : std::nullopt; };
    out.Field("steps", work(e.steps));
    out.Field("epochs", work_known ? std::optional(RoundSignificant(e.epochs)) : std::nullopt);
    out.Field("total_samples", work(e.total_samples));
    out.Field("total_tokens", e.total_tokens > 0 ? work(e.total_tokens) : std::nullopt);
    out.Field("train_flops", work(e.train_flops));
    if (job.hours > 0) {
      out.Field("fixed_duration", true);
      out.Field("p10_samples", figure(e.work_p10_samples));
      out.Field("p90_samples", figure(e.work_p90_samples));
    }
  });
}

}  // namespace gpuplan::api
