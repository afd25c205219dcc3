#include "plan/feasibility.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "db/text.h"

namespace gpuplan::plan {

namespace {

std::string Gb(double v) { return fmt::format("{:.3g} GB", v); }

std::string LayoutWords(const model::ParallelLayout& l) {
  return "tensor " + std::to_string(l.tensor) + " x pipeline " + std::to_string(l.pipeline) +
         " x data " + std::to_string(l.data) + ", ZeRO stage " + std::to_string(l.zero_stage);
}

}  // namespace

bool Feasibility::Has(Infeasible code) const {
  return std::any_of(reasons.begin(), reasons.end(),
                     [code](const InfeasibleReason& r) { return r.code == code; });
}

void Feasibility::Add(Infeasible code, std::string detail, std::string change) {
  reasons.push_back({code, std::move(detail)});
  if (nearest_change.empty()) nearest_change = std::move(change);
}

Feasibility TrainingFeasibility(const model::TrainingEstimate& e, const model::Cluster& cluster,
                                const model::TrainingJob& job) {
  Feasibility f;
  if (e.memory.verdict != model::FitVerdict::kDoesNotFit) return f;
  const model::GpuSpec& gpu = cluster.node.gpu;
  const int gpus = cluster.TotalGpus();
  std::string detail = "needs " + Gb(e.memory.total_gb) + " per GPU at micro-batch " +
                       std::to_string(e.micro_batch) + " with the leanest layout on " +
                       std::to_string(gpus) + " GPU(s) (" + LayoutWords(e.layout) + "); each " +
                       gpu.id + " has " + Gb(e.memory.capacity_gb);
  std::string change;
  if (job.micro_batch > 0 && e.max_micro_batch > 0 && e.max_micro_batch < job.micro_batch) {
    change = "micro_batch_size " + std::to_string(e.max_micro_batch) +
             " or smaller fits on this layout (the global batch is kept by gradient "
             "accumulation)";
  } else if (e.smallest_layout && e.smallest_layout->gpus > gpus) {
    const model::FittingLayout& s = *e.smallest_layout;
    change = "at least " + std::to_string(s.gpus) + " " + gpu.id + " GPUs (" +
             std::to_string(s.nodes) + " node(s); " + LayoutWords(s.layout) +
             ") fit at micro-batch 1, " + Gb(s.memory.total_gb) + " per GPU";
  } else if (job.checkpointing != model::Checkpointing::kFull) {
    change = "activation_checkpointing \"full\", more GPUs to shard over (ZeRO-3), or a GPU "
             "with more memory than " + Gb(e.memory.capacity_gb);
  } else {
    change = "more GPUs to shard over (ZeRO-3), or a GPU with more memory than " +
             Gb(e.memory.capacity_gb);
  }
  f.Add(Infeasible::kDoesNotFit, std::move(detail), std::move(change));
  return f;
}

Feasibility ServingFeasibility(const model::ServingEstimate& e, const model::NodeSpec& node) {
  Feasibility f;
  if (e.verdict == model::FitVerdict::kDoesNotFit) {
    std::string detail = "needs " + Gb(e.memory_total_gb) + " per GPU (" + Gb(e.weights_gb) +
                         " of weights) over " + std::to_string(e.gpus_per_replica) +
                         " GPU(s) per replica; each " + node.gpu.id + " has " +
                         Gb(e.memory_capacity_gb);
    if (!e.engine.name.empty()) {
      detail += ", of which the engine takes gpu_memory_utilization " +
                fmt::format("{:.2g}", e.engine.gpu_memory_utilization) + " (" +
                Gb(e.memory_capacity_gb * e.engine.gpu_memory_utilization) + ")";
    }
    std::string change =
        e.gpus_per_replica < node.gpus_per_node
            ? "more GPUs per replica (tensor_parallel up to " +
                  std::to_string(node.gpus_per_node) + " on this node), a quantized precision "
                  "(int8, fp8), or a GPU with more memory"
            : "a quantized precision (int8, fp8), a node with more GPUs, or a GPU with more "
              "memory";
    f.Add(Infeasible::kDoesNotFit, std::move(detail), std::move(change));
    return f;
  }
  if (!e.slo_met) {
    std::string detail =
        !e.slo_detail.empty()
            ? "no load meets the latency target: " + e.slo_detail
            : "no batch meets the latency target: the fastest, batch " +
                  std::to_string(e.curve.empty() ? 1 : e.curve.front().batch) + ", takes " +
                  fmt::format("{:.3g} s", e.curve.empty() ? 0 : e.curve.front().latency_s);
    f.Add(Infeasible::kSloNotMet, std::move(detail),
          "a faster GPU, more GPUs per replica (tensor parallel), fewer output tokens, or a "
          "looser latency_slo_ms (ttft_slo_ms, tpot_slo_ms)");
  }
  return f;
}

}  // namespace gpuplan::plan
