#include "db/calibration_data.h"

#include <map>
#include <regex>

#include "db/gpu_csv.h"
#include "db/mpt_calibration_data.h"
#include "db/seed_files.h"
#include "db/text.h"
#include "model/workload_presets.h"

namespace gpuplan::db {

namespace {

struct ModelMapping {
  const char* prefix;  // of the calibration row's model column
  const char* preset;
  const char* not_fitted = nullptr;  // why the rows are reported but kept out of the fit
};

constexpr ModelMapping kModels[] = {
    {"ResNet-50", "resnet-50"},
    {"BERT-large", "bert-large"},
    {"Transformer-XL base", "transformer-xl-base",
     "Transformer-XL (DLE PyTorch) runs at ~9 % of the A100 tensor peak and gains 1.9x from "
     "AMP where its FLOPs and bytes predict 3x: per-cluster adaptive-softmax gathers and "
     "relative-attention reshapes that the shape does not describe"},
    {"GNMT v2", "gnmt-v2"},
    {"SSD300", "ssd300"},
    {"EfficientNet-B0", "efficientnet-b0"},
    {"BART-large", "bart-large"},
    {"Transformer-big", "transformer-big"},
    {"nnU-Net 3D", "nnunet-3d",
     "3D convolutions have no Winograd path, and 3/4 of nnU-Net's MACs are in layers with "
     "32-64 output channels over 64^3-128^3 voxels, which under-fill tensor-core tiles: "
     "22-70 % slower than params, MACs and activations predict, uniformly across GPUs"},
};

std::optional<model::Precision> RowPrecision(const std::string& text) {
  if (text == "amp_fp16") return model::Precision::kFp16;
  if (text == "amp_bf16") return model::Precision::kBf16;
  return model::ParsePrecision(text);
}

model::Interconnect RowInterconnect(const std::string& text, int gpus) {
  if (gpus <= 1) return model::Interconnect::kNone;
  if (text.find("NVSwitch") != std::string::npos) return model::Interconnect::kNvswitch;
  if (text.find("NVLink") != std::string::npos) return model::Interconnect::kNvlink;
  return model::Interconnect::kPcie;
}

// Gradient accumulation steps stated in a row's notes: "accumulation 32 steps",
// "micro-batch 32 = 4096/128", or "global batch 65536"; 1 when none is stated.
long long AccumulationSteps(const std::string& notes, long long batch, long long gpus) {
  std::smatch m;
  if (std::regex_search(notes, m, std::regex(R"(accumulation (\d+) steps)"))) {
    return std::stoll(m[1]);
  }
  if (std::regex_search(notes, m, std::regex(R"(micro-batch \d+ = \d+/(\d+))"))) {
    return std::stoll(m[1]);
  }
  if (std::regex_search(notes, m, std::regex(R"(global batch (\d+))"))) {
    return std::max(1LL, std::stoll(m[1]) / (batch * gpus));
  }
  return 1;
}

}  // namespace

Result<CalibrationData> LoadCalibrationData(const CsvTable& table, const GpuResolver& resolver) {
  for (const char* col : {"model", "gpu", "gpu_count", "interconnect", "precision",
                          "batch_per_gpu", "seq_len_or_image_size", "throughput",
                          "throughput_unit"}) {
    if (!table.Column(col)) return Error::Invalid(col, std::string("missing column ") + col);
  }
  CalibrationData data;
  for (const CsvRow& row : table.rows()) {
    auto f = [&](const char* c) { return std::string(Trim(CsvTable::Field(row, table.Column(c)))); };
    auto skip = [&](const std::string& why) { data.skipped.push_back({row.line, why}); };
    std::string model_name = f("model");
    const ModelMapping* mapping = nullptr;
    for (const auto& m : kModels) {
      if (model_name.rfind(m.prefix, 0) == 0) mapping = &m;
    }
    if (!mapping) { skip("no workload preset for model " + model_name); continue; }
    model::CalibrationPoint p;
    p.workload = *model::FindPreset(mapping->preset);
    p.model_group = mapping->prefix;
    std::string gpu_id = f("gpu");
    auto resolved = resolver.Resolve("*", gpu_id);
    if (resolved.outcome != GpuResolver::Outcome::kResolved) { skip("unknown GPU " + gpu_id); continue; }
    auto count = ParseInteger(f("gpu_count"));
    std::string batch_text = f("batch_per_gpu");
    bool batch_in_tokens = batch_text.find("tokens") != std::string::npos;
    if (batch_in_tokens) batch_text = std::string(Trim(batch_text.substr(0, batch_text.find(' '))));
    auto batch = ParseInteger(batch_text);
    auto measured = ParseDouble(f("throughput"));
    auto precision = RowPrecision(f("precision"));
    if (!count || *count < 1 || !batch || *batch < 1 || !measured || *measured <= 0 || !precision) {
      skip("malformed numbers or precision");
      continue;
    }
    std::string size = f("seq_len_or_image_size");
    p.workload.variable_length = size.find("variable") != std::string::npos;
    if (p.workload.family == model::Family::kEncoder ||
        (p.workload.family == model::Family::kEncoderDecoder && size.rfind("variable", 0) != 0)) {
      auto seq = ParseInteger(size);
      if (!seq) { skip("sequence length " + size); continue; }
      p.workload.seq_len = static_cast<int>(*seq);
      if (p.workload.family == model::Family::kEncoderDecoder) {
        p.workload.target_len = p.workload.seq_len;
      }
    }
    long long samples_per_gpu = *batch;
    if (batch_in_tokens) {
      // batch_per_gpu counts tokens: sentences of the preset's length per side.
      samples_per_gpu = std::max(1LL, *batch / std::max(1, p.workload.seq_len));
    }
    p.cluster.node.gpu = *resolved.gpu;
    p.cluster.node.gpus_per_node = static_cast<int>(*count);
    p.cluster.node.interconnect = RowInterconnect(f("interconnect"), static_cast<int>(*count));
    p.cluster.nodes = 1;
    p.job.precision = *precision;
    p.job.micro_batch = static_cast<int>(samples_per_gpu);
    p.job.global_batch = static_cast<int>(samples_per_gpu * *count *
                                          AccumulationSteps(f("notes"), *batch, *count));
    p.job.optimizer = p.workload.family == model::Family::kCnn ? model::Optimizer::kSgd
                                                               : model::Optimizer::kAdam;
    p.job.samples = 1;
    p.measured = *measured;
    std::string unit = f("throughput_unit");
    if (unit.rfind("tokens", 0) == 0) {
      // fairseq counts target tokens (wps); the others every token of a sample.
      p.units_per_sample = p.workload.family == model::Family::kEncoderDecoder
                               ? p.workload.target_len
                               : model::TokensPerSample(p.workload);
    }
    p.label = model_name + " / " + gpu_id + " x" + std::to_string(*count) + " / " +
              f("precision") + " / batch " + std::to_string(*batch) + " / " + size;
    if (f("source_repo") == "lambdal/deeplearning-benchmark" && p.model_group == "ResNet-50") {
      p.ratio_group = "Lambda ResNet-50 (own data loader)";
    }
    if (mapping->not_fitted) {
      p.fitted = false;
      p.not_fitted_reason = mapping->not_fitted;
    }
    if (f("notes").find("unusually small AMP speedup") != std::string::npos &&
        model::IsMixedPrecision(p.job.precision)) {
      p.fitted = false;
      p.not_fitted_reason = "the source flags its AMP speedup on this GPU as unusually small";
    }
    data.points.push_back(std::move(p));
  }
  return data;
}

Result<GpuResolver> EmbeddedGpuResolver() {
  std::string_view gpus_text;
  for (const SeedFile& f : SeedFiles()) {
    if (f.name == "gpus.csv") gpus_text = f.content;
  }
  auto gpus_table = ParseCsv(gpus_text);
  if (!gpus_table.ok()) return gpus_table.error();
  auto gpus = ParseGpuCsv(*gpus_table);
  if (!gpus.ok()) return gpus.error();
  GpuResolver resolver;
  for (const auto& g : *gpus) resolver.AddGpu(g);
  // Benchmark tables name GPUs as clouds do ("A6000"): the seed's synonyms apply.
  for (const SeedFile& f : SeedFiles()) {
    if (f.name != "gpu_synonyms.csv") continue;
    auto synonyms = ParseCsv(f.content);
    if (!synonyms.ok()) return synonyms.error();
    for (const CsvRow& row : synonyms->rows()) {
      auto field = [&](const char* c) {
        return std::string(Trim(CsvTable::Field(row, synonyms->Column(c))));
      };
      resolver.AddSynonym({field("cloud"), field("accelerator_name"), field("gpu_id"), ""});
    }
  }
  return resolver;
}

Result<CalibrationData> LoadEmbeddedCalibrationData() {
  auto embedded = EmbeddedGpuResolver();
  if (!embedded.ok()) return embedded.error();
  const GpuResolver& resolver = *embedded;
  CalibrationData all;
  for (const char* name : {"calibration.csv", "calibration_more.csv", "llm_training_mpt.csv"}) {
    std::string_view text;
    for (const SeedFile& f : SeedFiles()) {
      if (f.name == name) text = f.content;
    }
    auto table = ParseCsv(text);
    if (!table.ok()) return table.error();
    auto data = std::string_view(name) == "llm_training_mpt.csv"
                    ? LoadMptCalibrationData(*table, resolver)
                    : LoadCalibrationData(*table, resolver);
    if (!data.ok()) return data.error();
    for (auto& p : data->points) all.points.push_back(std::move(p));
    for (auto& s : data->skipped) {
      s.reason = std::string(name) + ": " + s.reason;
      all.skipped.push_back(std::move(s));
    }
  }
  return all;
}

}  // namespace gpuplan::db
