#include "db/serving_calibration_data.h"

#include <map>

#include "db/calibration_data.h"
#include "db/seed_files.h"
#include "db/text.h"
#include "model/workload_presets.h"

namespace gpuplan::db {

Result<ServingCalibrationData> LoadServingCalibrationData(const CsvTable& table,
                                                          const GpuResolver& resolver) {
  ServingCalibrationData data;
  std::map<std::string, size_t> run_index;
  for (const CsvRow& row : table.rows()) {
    auto f = [&](const char* c) { return std::string(Trim(CsvTable::Field(row, table.Column(c)))); };
    auto skip = [&](std::string why) { data.skipped.push_back({row.line, std::move(why)}); };
    auto metric = model::ParseServingMetric(f("metric"));
    auto value = ParseDouble(f("value"));
    if (!metric || !value || !(*value > 0)) { skip("metric or value not understood"); continue; }
    const std::string fitted = f("fitted");
    model::ServingMeasurement m{*metric, *value, fitted == "1", f("not_fitted_reason")};
    const std::string id = f("run");
    auto found = run_index.find(id);
    if (found != run_index.end()) {
      data.runs[found->second].measurements.push_back(std::move(m));
      continue;
    }
    model::ServingRun run;
    run.id = id;
    auto preset = model::FindPreset(f("model"));
    if (!preset) { skip("no workload preset for " + f("model_source")); continue; }
    run.workload = *preset;
    run.model_group = f("model");
    if (f("gpu").empty()) { skip(f("not_fitted_reason")); continue; }
    auto resolved = resolver.Resolve("*", f("gpu"));
    if (resolved.outcome != GpuResolver::Outcome::kResolved) { skip("unknown GPU " + f("gpu")); continue; }
    run.node.gpu = *resolved.gpu;
    run.gpu_group = resolved.gpu->id;
    auto tp = ParseInteger(f("tensor_parallel"));
    if (!tp || *tp < 1 || *tp > 64) { skip("tensor_parallel not understood"); continue; }
    run.tensor_parallel = static_cast<int>(*tp);
    run.node.gpus_per_node = run.tensor_parallel;
    run.node.interconnect = model::ParseInterconnect(f("interconnect")).value_or(model::Interconnect::kNone);
    auto precision = model::ParsePrecision(f("precision"));
    auto quant = model::ParseEnum(model::kWeightQuantizationNames, f("weight_quantization"));
    if (!precision || !quant) { skip("precision or weight_quantization not understood"); continue; }
    run.precision = *precision;
    run.quantization = *quant;
    run.engine.version = f("engine_version");
    auto opt_int = [&](const char* c) -> std::optional<int> {
      auto v = ParseInteger(f(c));
      return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
    };
    run.engine.num_scheduler_steps = opt_int("num_scheduler_steps");
    run.engine.max_num_seqs = opt_int("max_num_seqs");
    run.engine.max_num_batched_tokens = opt_int("max_num_batched_tokens");
    run.engine.max_model_len = opt_int("max_model_len");
    if (auto v = opt_int("frontend_multiprocessing")) run.engine.frontend_multiprocessing = *v != 0;
    auto in = ParseDouble(f("mean_input_tokens"));
    auto out = ParseDouble(f("mean_output_tokens"));
    auto prompts = ParseInteger(f("num_prompts"));
    auto rate = ParseDouble(f("request_rate"));
    if (!in || !out || !(*in >= 1) || !(*out >= 1)) { skip("lengths not published"); continue; }
    run.load.mean_input = *in;
    run.load.mean_output = *out;
    run.load.cached_prompt_tokens = ParseDouble(f("cached_prompt_tokens")).value_or(0);
    run.load.max_output = ParseDouble(f("max_output_tokens")).value_or(0);
    run.load.rate = rate.value_or(0);
    run.load.evenly_spaced = f("arrivals") == "constant";
    run.load.max_concurrency = opt_int("max_concurrency").value_or(0);
    // Runs without a prompt count (constant concurrency tables) are long streams.
    run.load.requests = static_cast<int>(prompts.value_or(1000));
    const std::string dataset = f("dataset");
    run.load.length_cv = dataset == "sharegpt" ? 1.0 : 0.0;  // ShareGPT lengths vary ~1:1
    run.label = f("model") + " / " + run.gpu_group + " x" + std::to_string(run.tensor_parallel) +
                " / " + run.engine.version + " / " + dataset + " " +
                (run.load.rate > 0 ? f("request_rate") + " req/s"
                                   : (run.load.max_concurrency > 0
                                          ? "concurrency " + std::to_string(run.load.max_concurrency)
                                          : std::to_string(run.load.requests) + " at once"));
    run.measurements.push_back(std::move(m));
    run_index[id] = data.runs.size();
    data.runs.push_back(std::move(run));
  }
  return data;
}

Result<ServingCalibrationData> LoadEmbeddedServingCalibrationData() {
  auto resolver = EmbeddedGpuResolver();
  if (!resolver.ok()) return resolver.error();
  std::string_view text;
  for (const SeedFile& f : SeedFiles()) {
    if (f.name == "serving_calibration.csv") text = f.content;
  }
  auto table = ParseCsv(text);
  if (!table.ok()) return table.error();
  return LoadServingCalibrationData(*table, *resolver);
}

}  // namespace gpuplan::db
