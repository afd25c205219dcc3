#include "db/mpt_calibration_data.h"

#include <algorithm>
#include <regex>
#include <string>

#include "db/text.h"
#include "model/workload_presets.h"

namespace gpuplan::db {

namespace {

// "H100 80GB (table: h100_80gb; form factor not stated)" -> "H100-80GB-SXM5". The tables do
// not state the form factor; 8-GPU NVSwitch nodes are SXM boards.
std::optional<std::string> MptGpuId(const std::string& text) {
  if (text.rfind("H100 80GB", 0) == 0) return "H100-80GB-SXM5";
  if (text.rfind("A100 80GB", 0) == 0) return "A100-80GB-SXM4";
  if (text.rfind("A100 40GB", 0) == 0) return "A100-40GB-SXM4";
  return std::nullopt;
}

std::optional<long long> NoteInteger(const std::string& notes, const char* pattern) {
  std::smatch m;
  if (!std::regex_search(notes, m, std::regex(pattern))) return std::nullopt;
  return ParseInteger(m[1].str());
}

}  // namespace

Result<CalibrationData> LoadMptCalibrationData(const CsvTable& table, const GpuResolver& resolver) {
  for (const char* col : {"model", "gpu", "gpu_count", "interconnect", "precision",
                          "batch_per_gpu", "seq_len_or_image_size", "throughput",
                          "throughput_unit", "params", "notes"}) {
    if (!table.Column(col)) return Error::Invalid(col, std::string("missing column ") + col);
  }
  CalibrationData data;
  for (const CsvRow& row : table.rows()) {
    auto f = [&](const char* c) { return std::string(Trim(CsvTable::Field(row, table.Column(c)))); };
    auto skip = [&](const std::string& why) { data.skipped.push_back({row.line, why}); };
    const std::string model_name = f("model");  // "MPT-7b"
    std::string preset_id = model_name;
    std::transform(preset_id.begin(), preset_id.end(), preset_id.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    auto preset = model::FindPreset(preset_id);
    if (!preset) { skip("no workload preset for model " + model_name); continue; }
    auto gpu_id = MptGpuId(f("gpu"));
    auto resolved = gpu_id ? resolver.Resolve("*", *gpu_id) : GpuResolver::Resolution{};
    if (!gpu_id || resolved.outcome != GpuResolver::Outcome::kResolved) {
      skip("unknown GPU " + f("gpu"));
      continue;
    }
    const std::string notes = f("notes");
    auto count = ParseInteger(f("gpu_count"));
    auto micro = ParseInteger(f("batch_per_gpu"));
    auto seq = ParseInteger(f("seq_len_or_image_size"));
    auto per_gpu = ParseDouble(f("throughput"));
    auto params = ParseDouble(f("params"));
    auto global = NoteInteger(notes, R"(GlobalBatchSize=(\d+))");
    const std::string precision_text = f("precision");
    std::optional<model::Precision> precision;
    if (precision_text.rfind("BF16", 0) == 0) precision = model::Precision::kBf16;
    if (precision_text.rfind("FP8", 0) == 0) precision = model::Precision::kFp8;
    if (!count || *count < 1 || !micro || *micro < 1 || !seq || *seq < 1 || !per_gpu ||
        *per_gpu <= 0 || !params || !global || !precision || f("throughput_unit") != "tokens/s/GPU") {
      skip("malformed numbers, unit or precision");
      continue;
    }
    model::CalibrationPoint p;
    p.workload = *preset;
    p.workload.seq_len = static_cast<int>(*seq);
    p.workload.params = *params;  // the published count (with its position table)
    p.model_group = model_name;
    const int gpus = static_cast<int>(*count);
    p.cluster.node.gpu = *resolved.gpu;
    p.cluster.node.gpus_per_node = std::min(gpus, 8);
    p.cluster.node.interconnect = model::Interconnect::kNvswitch;
    p.cluster.nodes = std::max(1, gpus / 8);
    std::string fabric;
    if (p.cluster.nodes > 1) {
      if (f("interconnect").find("1600 Gbps") != std::string::npos) {
        p.cluster.node.network_gbps = 1600;
      } else {
        p.cluster.node.network_gbps = kMptAssumedH100NetworkGbps;
        fabric = " / fabric assumed 3200 Gbit/s";
      }
    }
    p.job.precision = *precision;
    p.job.framework = model::Framework::kOptimized;
    p.job.zero_stage = notes.find("sharding=FULL_SHARD") != std::string::npos ? 3 : 0;
    p.job.tensor_parallel = 1;
    p.job.pipeline_parallel = 1;
    p.job.checkpointing = notes.find("act ckpt=True") != std::string::npos
                              ? model::Checkpointing::kFull
                              : model::Checkpointing::kNone;
    p.job.optimizer = model::Optimizer::kAdamW;
    p.job.micro_batch = static_cast<int>(*micro);
    p.job.global_batch = static_cast<int>(*global);
    p.job.samples = 1;
    p.measured = *per_gpu * gpus;
    p.units_per_sample = static_cast<double>(*seq);
    p.label = model_name + " / " + *gpu_id + " x" + std::to_string(gpus) + " / " +
              std::string(model::PrecisionName(*precision)) + " / batch " + std::to_string(*micro) +
              " / seq " + std::to_string(*seq) +
              (p.job.checkpointing == model::Checkpointing::kFull ? " / ckpt" : "") + fabric;
    data.points.push_back(std::move(p));
  }
  return data;
}

}  // namespace gpuplan::db
