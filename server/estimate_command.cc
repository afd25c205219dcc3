#include "server/estimate_command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <ostream>

#include "api/model_json.h"
#include "db/csv.h"
#include "db/gpu_csv.h"
#include "db/seed_files.h"
#include "model/training.h"
#include "model/workload_presets.h"

namespace gpuplan::server {

namespace {

Result<model::GpuSpec> FindGpu(const std::string& id) {
  for (const db::SeedFile& f : db::SeedFiles()) {
    if (f.name != "gpus.csv") continue;
    auto table = db::ParseCsv(f.content);
    if (!table.ok()) return table.error();
    auto gpus = db::ParseGpuCsv(*table);
    if (!gpus.ok()) return gpus.error();
    for (const auto& g : *gpus) {
      if (g.id == id) return g;
    }
  }
  return Error::Invalid("--gpu", "unknown GPU '" + id + "' (see GET /api/v1/gpus)");
}

Result<model::TrainingJob> BuildJob(const EstimateOptions& o) {
  model::TrainingJob job;
  job.precision_auto = o.precision == "auto";
  auto precision = job.precision_auto ? model::Precision::kBf16 : model::ParsePrecision(o.precision);
  if (!precision) return Error::Invalid("--precision", "unknown precision '" + o.precision + "'");
  auto optimizer = model::ParseOptimizer(o.optimizer);
  if (!optimizer) return Error::Invalid("--optimizer", "unknown optimizer '" + o.optimizer + "'");
  auto ckpt = model::ParseCheckpointing(o.checkpointing);
  if (!ckpt) return Error::Invalid("--checkpointing", "unknown mode '" + o.checkpointing + "'");
  auto framework = model::ParseFramework(o.framework);
  if (!framework) return Error::Invalid("--framework", "unknown framework '" + o.framework + "'");
  job.precision = *precision;
  job.optimizer = *optimizer;
  job.checkpointing = *ckpt;
  job.framework = *framework;
  job.samples = o.samples;
  job.epochs = o.epochs;
  job.tokens = o.tokens;
  job.global_batch = o.global_batch;
  job.micro_batch = o.micro_batch;
  job.zero_stage = o.zero_stage;
  return job;
}

void PrintText(const model::TrainingEstimate& e, const model::Workload& w,
               const model::Cluster& cluster, std::ostream& out) {
  char line[256];
  auto print = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof(line), fmt, args...);
    out << line;
  };
  print("%s on %d x %s (%d node(s)), %s\n", w.name.c_str(), cluster.TotalGpus(),
        cluster.node.gpu.id.c_str(), cluster.nodes, std::string(model::PrecisionName(e.precision)).c_str());
  print("  layout: tensor %d x pipeline %d x data %d, ZeRO %d; micro-batch %d x %d accumulation\n",
        e.layout.tensor, e.layout.pipeline, e.layout.data, e.layout.zero_stage, e.micro_batch,
        e.grad_accumulation_steps);
  print("  throughput: %.1f samples/s", e.samples_per_s);
  if (e.tokens_per_s > 0) print(", %.0f tokens/s", e.tokens_per_s);
  print("\n  step: %.4f s, bottleneck %s (%.0f%%)\n", e.step.step_time_s, e.step.bottleneck.c_str(),
        e.step.bottleneck_share * 100);
  const auto& b = e.step.breakdown;
  print("    compute %.4f  memory %.4f  communication %.4f  bubble %.4f  optimizer %.4f  input %.4f  overhead %.4f\n",
        b.compute_s, b.memory_s, b.communication_s, b.bubble_s, b.optimizer_s, b.input_s,
        b.overhead_s);
  print("  MFU %.3f, scaling efficiency %.3f\n", e.mfu, e.scaling_efficiency);
  print("  memory per GPU: %.1f of %.0f GB (%s); weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f; max micro-batch %d\n",
        e.memory.total_gb, e.memory.capacity_gb, std::string(model::VerdictName(e.memory.verdict)).c_str(),
        e.memory.weights_gb, e.memory.gradients_gb, e.memory.optimizer_gb, e.memory.activations_gb,
        e.max_micro_batch);
  if (e.smallest_layout) {
    print("  fits on as few as %d GPU(s) (%d node(s)): tensor %d x pipeline %d x data %d, ZeRO %d\n",
          e.smallest_layout->gpus, e.smallest_layout->nodes, e.smallest_layout->layout.tensor,
          e.smallest_layout->layout.pipeline, e.smallest_layout->layout.data,
          e.smallest_layout->layout.zero_stage);
  } else {
    print("  does not fit on up to 1024 GPUs of this node type\n");
  }
  print("  total: %.2f h (P10 %.2f, P90 %.2f) for %.0f steps\n", e.total_hours, e.p10_hours,
        e.p90_hours, e.steps);
  for (const auto& wmsg : e.warnings) out << "  warning: " << wmsg << "\n";
  for (const auto& a : e.assumptions) out << "  assumption: " << a << "\n";
}

}  // namespace

void AddEstimateOptions(CLI::App& app, EstimateOptions& o) {
  app.add_option("--workload", o.workload, "workload preset id (see GET /api/v1/workloads)")
      ->capture_default_str();
  app.add_option("--gpu", o.gpu, "GPU id from gpus.csv")->capture_default_str();
  app.add_option("--gpus", o.gpus, "GPUs per node")->capture_default_str();
  app.add_option("--nodes", o.nodes, "nodes")->capture_default_str();
  app.add_option("--interconnect", o.interconnect, "none|pcie|nvlink|nvswitch (default: from GPU)");
  app.add_option("--network-gbps", o.network_gbps, "network Gbit/s per node");
  app.add_option("--vcpus", o.vcpus, "vCPUs per node (input pipeline)");
  app.add_option("--precision", o.precision, "auto|fp32|tf32|fp16|bf16|fp8 (auto: bf16 where the GPU has it, else fp16)")->capture_default_str();
  app.add_option("--samples", o.samples, "dataset samples per epoch");
  app.add_option("--epochs", o.epochs, "epochs")->capture_default_str();
  app.add_option("--tokens", o.tokens, "total training tokens (instead of samples x epochs)");
  app.add_option("--global-batch", o.global_batch, "samples per optimizer step")
      ->capture_default_str();
  app.add_option("--micro-batch", o.micro_batch, "samples per GPU per pass (0 = largest fit)");
  app.add_option("--optimizer", o.optimizer, "adamw|adam|lamb|sgd")->capture_default_str();
  app.add_option("--checkpointing", o.checkpointing, "none|selective|full")->capture_default_str();
  app.add_option("--framework", o.framework, "eager|optimized")->capture_default_str();
  app.add_option("--zero-stage", o.zero_stage, "0-3 (default: choose)");
  app.add_flag("--json", o.json, "print JSON");
}

int RunEstimate(const EstimateOptions& o, std::ostream& out, std::ostream& err) {
  auto fail = [&](const Error& e) {
    err << "error: " << (e.fields.empty() ? "" : e.fields[0].field + ": ") << e.message << "\n";
    return 2;
  };
  auto workload = model::FindPreset(o.workload);
  if (!workload) return fail(Error::Invalid("--workload", "unknown workload '" + o.workload + "'"));
  auto gpu = FindGpu(o.gpu);
  if (!gpu.ok()) return fail(gpu.error());
  auto job = BuildJob(o);
  if (!job.ok()) return fail(job.error());
  model::Cluster cluster;
  cluster.node.gpu = *gpu;
  cluster.node.gpus_per_node = o.gpus;
  cluster.nodes = o.nodes;
  cluster.node.network_gbps = o.network_gbps;
  cluster.node.vcpus = o.vcpus;
  if (o.interconnect.empty()) {
    cluster.node.interconnect = model::DefaultInterconnect(*gpu, o.gpus);
  } else {
    auto ic = model::ParseInterconnect(o.interconnect);
    if (!ic) return fail(Error::Invalid("--interconnect", "unknown interconnect"));
    cluster.node.interconnect = *ic;
  }
  auto estimate = model::EstimateTraining(*workload, *job, cluster);
  if (!estimate.ok()) return fail(estimate.error());
  if (o.json) {
    out << api::TrainingEstimateJson(*estimate, *workload, cluster, *job).dump(2) << "\n";
  } else {
    PrintText(*estimate, *workload, cluster, out);
  }
  return 0;
}

}  // namespace gpuplan::server
