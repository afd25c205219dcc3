#include "api/plan_request.h"

#include <string>
#include <vector>

#include "db/field_rules.h"
#include "model/cost.h"
#include "model/counts.h"
#include "model/workload_presets.h"

namespace gpuplan::api {

namespace {

void ReadShape(JsonReader& r, model::Workload& w) {
  if (auto v = r.Number("params", 1, 1e15)) w.params = *v;
  auto integer = [&](const char* key, int& field, long long max) {
    if (auto v = r.Integer(key, 1, max)) field = static_cast<int>(*v);
  };
  integer("layers", w.layers, 10000);
  integer("hidden", w.hidden, 1 << 20);
  integer("heads", w.heads, 1 << 14);
  integer("kv_heads", w.kv_heads, 1 << 14);
  integer("head_dim", w.head_dim, 1 << 14);
  integer("ffn", w.ffn, 1 << 22);
  integer("vocab", w.vocab, 1 << 24);
  integer("seq_len", w.seq_len, model::kMaxTokensPerSample);
  integer("attention_context", w.attention_context, 1 << 24);
  integer("experts", w.experts, 4096);
  integer("active_experts", w.active_experts, 4096);
  integer("image_size", w.image_size, 1 << 16);
  integer("patch_size", w.patch_size, 1 << 12);
  integer("reference_image_size", w.reference_image_size, 1 << 16);
  integer("conv_layers", w.conv_layers, 100000);
  if (auto v = r.Integer("spatial_dims", 2, 3)) w.spatial_dims = static_cast<int>(*v);
  integer("decoder_layers", w.decoder_layers, 10000);
  integer("target_len", w.target_len, model::kMaxTokensPerSample);
  integer("max_context", w.max_context, 1 << 24);
  if (auto v = r.Number("depthwise_macs_share", 0, 1)) w.depthwise_macs_share = *v;
  if (auto v = r.Bool("gated_mlp")) w.gated_mlp = *v;
  if (auto v = r.Bool("tied_embeddings")) w.tied_embeddings = *v;
  if (auto v = r.Bool("variable_length")) w.variable_length = *v;
  if (auto v = r.Number("macs_per_sample", 1, 1e18)) w.macs_per_sample = *v;
  if (auto v = r.Number("flops_per_sample", 1, 1e18)) w.flops_per_sample = *v;
  if (auto v = r.Number("activation_elements_per_sample", 0, 1e15)) {
    w.activation_elements_per_sample = *v;
  }
  if (auto v = r.Number("matmul_params_per_token", 1, 1e15)) w.matmul_params_per_token = *v;
  if (auto v = r.String("name")) {
    r.Check("name", db::rules::CheckText(*v, db::rules::kMaxLabelBytes));
    w.name = *v;
  }
}

// "auto" (the default) leaves the choice to the GPU: AutoPrecision, named in assumptions.
void ReadPrecision(JsonReader& r, const char* key, model::Precision& precision, bool& is_auto) {
  auto text = r.Choice(key, {"auto", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "nvfp4"});
  is_auto = !text || *text == "auto";
  if (text && !is_auto) precision = *model::ParsePrecision(*text);
}

void ReadHardware(JsonReader& parent, HardwareRequest& hw) {
  auto r = parent.Object("hardware", true);
  if (!r) return;
  if (auto v = r->Integer("nodes", 1, model::kMaxNodes)) hw.nodes = static_cast<int>(*v);
  if (r->Has("instance_type") || r->Has("cloud")) {
    hw.from_catalog = true;
    hw.cloud = r->String("cloud", true).value_or("");
    hw.instance_type = r->String("instance_type", true).value_or("");
    hw.region = r->String("region").value_or("");
  } else {
    hw.gpu = r->String("gpu", true).value_or("");
    if (auto v = r->Integer("gpus_per_node", 1, model::kMaxGpusPerNode)) {
      hw.gpus_per_node = static_cast<int>(*v);
    }
    if (auto v = r->Choice("interconnect", {"none", "pcie", "nvlink", "nvswitch"})) {
      hw.interconnect = model::ParseInterconnect(*v);
    }
    if (auto v = r->Number("interconnect_bw_gbps", 0, 1e5)) hw.interconnect_bw_gbps = *v;
    if (auto v = r->Number("network_gbps", 0, 1e6)) hw.network_gbps = *v;
    if (auto v = r->Integer("nvlink_domain_gpus", 1, model::kMaxNvlinkDomainGpus)) {
      hw.nvlink_domain_gpus = int(*v);
    }
    if (auto v = r->Number("vcpus", 0, 1e5)) hw.vcpus = *v;
    hw.price_per_hour = r->Number("price_per_hour", 0, 1e7);
    hw.spot_price_per_hour = r->Number("spot_price_per_hour", 0, 1e7);
    if (auto v = r->String("price_currency")) hw.price_currency = *v;
  }
  r->Finish();
}

void ReadPricing(JsonReader& parent, PricingRequest& p) {
  auto r = parent.Object("pricing");
  if (!r) return;
  if (auto kind = r->Choice("kind", {"ondemand", "spot", "both", "spot_with_fallback"})) {
    if (*kind == "both") {
      p.kinds = {model::PriceKind::kOndemand, model::PriceKind::kSpot};
    } else {
      p.kinds = {*model::ParseEnum(model::kPriceKindNames, *kind)};
    }
  }
  const bool fallback = p.kinds.Has(model::PriceKind::kSpotWithFallback);
  p.deadline_hours = r->Number("deadline_hours", 0.001, 1e7, fallback);
  if (p.deadline_hours && !fallback) {
    r->Fail("deadline_hours", "deadline_hours applies to kind spot_with_fallback");
  }
  model::SpotParams& s = p.spot_params;
  if (auto v = r->Number("interruption_rate_per_hour", 0, 100)) {
    s.interruption_rate_per_hour = *v;
    p.rate_given = true;
  }
  if (auto v = r->Number("checkpoint_interval_minutes", 0.1, model::kMaxCheckpointIntervalMinutes)) {
    s.checkpoint_interval_minutes = *v;
  }
  if (auto v = r->Number("checkpoint_write_minutes", 0, 1e4)) s.checkpoint_write_minutes = *v;
  if (auto v = r->Number("restart_minutes", 0, 1e4)) s.restart_minutes = *v;
  if (auto v = r->Number("preemption_notice_minutes", 0, 1e3)) {
    s.preemption_notice_minutes = *v;
    p.notice_given = true;
  }
  if (auto v = r->Number("capacity_wait_minutes", 0, 1e5)) s.capacity_wait_minutes = *v;
  r->Finish();
}

void ReadDataset(JsonReader& parent, model::TrainingJob& job) {
  auto r = parent.Object("dataset", true);
  if (!r) return;
  bool has_tokens = r->Has("tokens");
  bool has_hours = r->Has("hours");
  if (auto v = r->Number("tokens", 1, 1e18)) job.tokens = *v;
  if (auto v = r->Number("hours", 0.001, 1e6)) job.hours = *v;
  // With hours, samples (optional) is the epoch size the answer counts epochs in.
  if (auto v = r->Number("samples", 1, 1e15, !has_tokens && !has_hours)) job.samples = *v;
  if (has_hours && has_tokens) r->Fail("hours", "give either tokens or hours, not both");
  if (has_hours && r->Has("epochs")) {
    r->Fail("epochs", "epochs do not apply with hours: the work is what the hours process");
  }
  if (auto v = r->Number("epochs", 0.001, 1e6)) job.epochs = *v;
  r->Finish();
}

// The workload at `key`: a preset id, or an object with a "preset" and overrides, or a full
// shape with "family". Unknown presets are errors naming the field.
std::optional<model::Workload> ReadWorkload(JsonReader& reader, const std::string& key) {
  const nlohmann::json* raw = reader.Raw(key);
  if (!raw) {
    reader.Fail(key, key + " is required: a preset id or a shape");
    return std::nullopt;
  }
  if (raw->is_string()) {
    auto preset = model::FindPreset(raw->get<std::string>());
    if (!preset) {
      reader.Fail(key, "unknown workload preset '" + raw->get<std::string>() +
                           "' (see GET /api/v1/workloads)");
    }
    return preset;
  }
  if (!raw->is_object()) {
    reader.Fail(key, key + " must be a preset id or an object");
    return std::nullopt;
  }
  size_t errors_before = reader.error_count();
  JsonReader r = reader.Nested(key, *raw);
  model::Workload w;
  if (auto preset_id = r.String("preset")) {
    auto preset = model::FindPreset(*preset_id);
    if (!preset) {
      r.Fail("preset", "unknown workload preset '" + *preset_id + "'");
    } else {
      w = *preset;
    }
  } else {
    auto family = r.Choice("family", {"cnn", "encoder", "vit", "decoder", "moe", "rnn", "encoder_decoder"}, true);
    if (family) w.family = *model::ParseFamily(*family);
    w.id = "custom";
    w.name = "custom";
  }
  ReadShape(r, w);
  for (const char* field : model::ShapeFieldsNotFor(w.family)) {
    if (r.Has(field)) {
      r.Fail(field, std::string(field) + " does not apply to a " +
                        std::string(model::FamilyName(w.family)) + " workload");
    }
  }
  r.Finish();
  if (reader.error_count() != errors_before) return std::nullopt;
  return w;
}

}  // namespace

namespace {

// reference_run: {hardware: {...}, hours, precision?}: the work instead of a dataset.
void ReadReferenceRun(JsonReader& parent, TrainingRequest& t) {
  if (parent.Has("dataset")) {
    parent.Fail("reference_run", "give either dataset or reference_run: the reference run's "
                                 "work is the dataset");
  }
  auto r = parent.Object("reference_run", true);
  if (!r) return;
  plan::ReferenceRun& ref = t.reference.emplace();
  ReadHardware(*r, ref.hardware);
  ref.hours = r->Number("hours", 0.001, 1e6, true).value_or(0);
  bool is_auto = true;
  model::Precision precision = model::Precision::kBf16;
  ReadPrecision(*r, "precision", precision, is_auto);
  if (!is_auto) ref.precision = precision;
  r->Finish();
}

}  // namespace

std::optional<TrainingRequest> ReadTrainingRequest(JsonReader& r, bool read_hardware,
                                                   TrainingFields fields) {
  const bool run = fields == TrainingFields::kMeasuredRun;
  size_t errors_before = r.error_count();
  TrainingRequest t;
  if (auto w = ReadWorkload(r, "workload")) t.workload = *w;
  if (run) {
    // A measured run ran at a stated precision: "auto" would re-predict it at whatever the
    // model picks.
    if (!r.Has("precision")) {
      r.Fail("precision", "precision is required: the precision the run used");
    } else if (const nlohmann::json* p = r.Raw("precision"); p->is_string() && *p == "auto") {
      r.Fail("precision", "give the precision the run used, not auto");
    }
  } else if (r.Has("reference_run")) {
    ReadReferenceRun(r, t);
  } else {
    ReadDataset(r, t.job);
  }
  if (auto v = r.Integer("global_batch_size", 1, model::kMaxGlobalBatch, true)) {
    t.job.global_batch = int(*v);
  }
  if (auto v = r.Integer("micro_batch_size", 1, model::kMaxGlobalBatch)) t.job.micro_batch = int(*v);
  ReadPrecision(r, "precision", t.job.precision, t.job.precision_auto);
  if (auto v = r.Choice("optimizer", {"adamw", "adam", "lamb", "sgd"})) {
    t.job.optimizer = *model::ParseOptimizer(*v);
  }
  if (auto v = r.Choice("activation_checkpointing", {"none", "selective", "full"})) {
    t.job.checkpointing = *model::ParseCheckpointing(*v);
  }
  // Measured runs say what they ran (eager unless told); a plan runs current practice.
  t.job.framework = run ? model::Framework::kEager : model::Framework::kAuto;
  if (auto v = run ? r.Choice("framework", {"eager", "optimized"})
                   : r.Choice("framework", {"eager", "optimized", "auto"})) {
    t.job.framework = *model::ParseFramework(*v);
  }
  if (auto v = r.Integer("zero_stage", 0, 3)) t.job.zero_stage = int(*v);
  if (auto v = r.Integer("tensor_parallel", 1, 64)) t.job.tensor_parallel = int(*v);
  if (auto v = r.Integer("pipeline_parallel", 1, 1024)) t.job.pipeline_parallel = int(*v);
  if (auto v = r.Integer("context_parallel", 1, 1024)) t.job.context_parallel = int(*v);
  if (auto v = r.Integer("virtual_pipeline_stages", 1, 128)) {
    t.job.virtual_pipeline_stages = int(*v);
  }
  if (auto v = r.Bool("sequence_parallel")) t.job.sequence_parallel = *v;
  if (auto v = r.Bool("tensor_parallel_overlap")) t.job.tensor_parallel_overlap = *v;
  if (auto v = r.Choice("fp8_scaling", {"delayed", "current", "mxfp8"})) {
    t.job.fp8_scaling = *model::ParseFp8Scaling(*v);
  }
  if (read_hardware) ReadHardware(r, t.hardware);
  if (run) {
    if (r.error_count() != errors_before) return std::nullopt;
    return t;
  }
  ReadPricing(r, t.pricing);
  if (t.pricing.kinds.Has(model::PriceKind::kSpotWithFallback) && t.job.hours > 0) {
    r.Fail("pricing", "spot_with_fallback plans a given amount of work by a deadline; give "
                      "samples (and epochs) or tokens, not hours");
  }
  if (auto v = r.String("currency")) t.currency = *v;
  if (r.error_count() != errors_before) return std::nullopt;
  return t;
}

// The decoder serving options: engine, quantisation, client concurrency, shared prefix.
void ReadServingEngine(JsonReader& r, model::ServingRequest& q) {
  if (auto e = r.Object("engine")) {
    if (auto v = e->Choice("name", {"vllm"})) q.engine.name = *v;
    if (auto v = e->Choice("version", {"v0", "v1"})) q.engine.version = *v;
    if (auto v = e->Integer("max_num_seqs", 1, 1 << 16)) q.engine.max_num_seqs = int(*v);
    if (auto v = e->Integer("max_num_batched_tokens", 16, 1 << 22)) {
      q.engine.max_num_batched_tokens = int(*v);
    }
    if (auto v = e->Number("gpu_memory_utilization", 0.05, 1)) q.engine.gpu_memory_utilization = *v;
    if (auto v = e->Bool("cuda_graphs")) q.engine.cuda_graphs = *v;
    if (auto v = e->Bool("chunked_prefill")) q.engine.chunked_prefill = *v;
    if (auto v = e->Bool("prefix_caching")) q.engine.prefix_caching = *v;
    if (auto v = e->Integer("max_model_len", 16, 1 << 23)) q.engine.max_model_len = int(*v);
    if (auto v = e->Integer("num_scheduler_steps", 1, 64)) q.engine.num_scheduler_steps = int(*v);
    if (auto v = e->Bool("frontend_multiprocessing")) q.engine.frontend_multiprocessing = *v;
    e->Finish();
  }
  if (auto v = r.Enum("weight_quantization", model::kWeightQuantizationNames)) q.quantization = *v;
  if (auto v = r.Enum("kv_cache_dtype", model::kKvCacheDtypeNames)) q.kv_cache = *v;
  if (auto v = r.Integer("max_concurrency", 1, 1 << 20)) q.max_concurrency = int(*v);
  if (auto v = r.Integer("shared_prefix_tokens", 0, 1 << 22)) q.shared_prefix_tokens = int(*v);
  if (q.shared_prefix_tokens > 0 && q.input_tokens > 0 && q.shared_prefix_tokens >= q.input_tokens) {
    r.Fail("shared_prefix_tokens", "shared_prefix_tokens must be fewer than input_tokens");
  }
}

std::optional<InferenceRequest> ReadInferenceRequest(JsonReader& r, bool read_hardware) {
  size_t errors_before = r.error_count();
  InferenceRequest q;
  if (auto w = ReadWorkload(r, "workload")) q.workload = *w;
  ReadPrecision(r, "precision", q.serving.precision, q.serving.precision_auto);
  if (auto v = r.Integer("input_tokens", 1, 1 << 22)) q.serving.input_tokens = int(*v);
  if (auto v = r.Integer("output_tokens", 1, 1 << 22)) q.serving.output_tokens = int(*v);
  auto rps = r.Number("target_requests_per_s", 0, 1e9);
  auto tps = r.Number("target_tokens_per_s", 0, 1e12);
  auto sps = r.Number("target_samples_per_s", 0, 1e12);
  if (rps) q.serving.target_requests_per_s = *rps;
  if (sps) q.serving.target_requests_per_s = *sps;
  if (tps) {
    if (q.serving.output_tokens < 1) {
      r.Fail("target_tokens_per_s", "target_tokens_per_s needs output_tokens");
    } else {
      q.serving.target_requests_per_s = *tps / q.serving.output_tokens;
    }
  }
  if ((rps.has_value() + tps.has_value() + sps.has_value()) > 1) {
    r.Fail("target_requests_per_s",
           "give one of target_requests_per_s, target_tokens_per_s, target_samples_per_s");
  }
  if (auto v = r.Number("latency_slo_ms", 0, 1e8)) q.serving.latency_slo_s = *v / 1000;
  if (auto v = r.Number("ttft_slo_ms", 0, 1e8)) q.serving.ttft_slo_s = *v / 1000;
  if (auto v = r.Number("tpot_slo_ms", 0, 1e8)) q.serving.tpot_slo_s = *v / 1000;
  if (auto v = r.Integer("tensor_parallel", 1, 64)) q.serving.tensor_parallel = int(*v);
  ReadServingEngine(r, q.serving);
  if (read_hardware) ReadHardware(r, q.hardware);
  ReadPricing(r, q.pricing);
  if (q.pricing.kinds.Has(model::PriceKind::kSpotWithFallback)) {
    r.Fail("pricing", "spot_with_fallback applies to training (a job with a deadline); a "
                      "serving fleet prices ondemand, spot or both");
  }
  if (auto v = r.String("currency")) q.currency = *v;
  if (r.error_count() != errors_before) return std::nullopt;
  return q;
}

Result<TrainingRequest> DecodeTrainingRequest(const nlohmann::json& body) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  auto request = ReadTrainingRequest(r, true);
  r.Finish();
  if (!errors.empty()) return BodyError(errors);
  return *request;
}

Result<InferenceRequest> DecodeInferenceRequest(const nlohmann::json& body) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  auto request = ReadInferenceRequest(r, true);
  r.Finish();
  if (!errors.empty()) return BodyError(errors);
  return *request;
}

}  // namespace gpuplan::api
