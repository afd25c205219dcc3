#include "db/calibration_data.h"

#include <map>
#include <regex>

#include "db/gpu_csv.h"
#include "db/seed_files.h"
#include "db/text.h"
#include "model/workload_presets.h"

namespace gpuplan::db {

namespace {

struct ModelMapping {
  const char* prefix;  // of the calibration row's model column
  const char* preset;
};

constexpr ModelMapping kModels[] = {
    {"ResNet-50", "resnet-50"},
    {"BERT-large", "bert-large"},
    {"Transformer-XL base", "transformer-xl-base"},
    {"GNMT v2", "gnmt-v2"},
    {"SSD300", "ssd300"},
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
    if (gpu_id == "V100-32GB-SXM3") gpu_id = "V100-32GB-SXM2";
    auto resolved = resolver.Resolve("*", gpu_id);
    if (resolved.outcome != GpuResolver::Outcome::kResolved) { skip("unknown GPU " + gpu_id); continue; }
    auto count = ParseInteger(f("gpu_count"));
    auto batch = ParseInteger(f("batch_per_gpu"));
    auto measured = ParseDouble(f("throughput"));
    auto precision = RowPrecision(f("precision"));
    if (!count || *count < 1 || !batch || *batch < 1 || !measured || *measured <= 0 || !precision) {
      skip("malformed numbers or precision");
      continue;
    }
    std::string size = f("seq_len_or_image_size");
    if (p.workload.family == model::Family::kEncoder) {
      auto seq = ParseInteger(size);
      if (!seq) { skip("sequence length " + size); continue; }
      p.workload.seq_len = static_cast<int>(*seq);
    }
    p.cluster.node.gpu = *resolved.gpu;
    p.cluster.node.gpus_per_node = static_cast<int>(*count);
    p.cluster.node.interconnect = RowInterconnect(f("interconnect"), static_cast<int>(*count));
    p.cluster.nodes = 1;
    p.job.precision = *precision;
    p.job.micro_batch = static_cast<int>(*batch);
    p.job.global_batch =
        static_cast<int>(*batch * *count * AccumulationSteps(f("notes"), *batch, *count));
    p.job.optimizer = p.workload.family == model::Family::kCnn ? model::Optimizer::kSgd
                                                               : model::Optimizer::kAdam;
    p.job.samples = 1;
    p.measured = *measured;
    std::string unit = f("throughput_unit");
    if (unit.rfind("tokens", 0) == 0) p.units_per_sample = model::TokensPerSample(p.workload);
    p.label = model_name + " / " + gpu_id + " x" + std::to_string(*count) + " / " +
              f("precision") + " / batch " + std::to_string(*batch) + " / " + size;
    data.points.push_back(std::move(p));
  }
  return data;
}

Result<CalibrationData> LoadEmbeddedCalibrationData() {
  std::string_view gpus_text, calibration_text;
  for (const SeedFile& f : SeedFiles()) {
    if (f.name == "gpus.csv") gpus_text = f.content;
    if (f.name == "calibration.csv") calibration_text = f.content;
  }
  auto gpus_table = ParseCsv(gpus_text);
  if (!gpus_table.ok()) return gpus_table.error();
  auto gpus = ParseGpuCsv(*gpus_table);
  if (!gpus.ok()) return gpus.error();
  GpuResolver resolver;
  for (const auto& g : *gpus) resolver.AddGpu(g);
  auto table = ParseCsv(calibration_text);
  if (!table.ok()) return table.error();
  return LoadCalibrationData(*table, resolver);
}

}  // namespace gpuplan::db
