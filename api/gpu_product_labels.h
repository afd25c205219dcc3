// The value NVIDIA GPU Feature Discovery (GFD, part of the NVIDIA GPU Operator and the
// k8s-device-plugin) gives a node's `nvidia.com/gpu.product` label for a catalog GPU: the
// product name nvidia-smi reports, spaces replaced by '-' ("NVIDIA A100-SXM4-40GB" ->
// "NVIDIA-A100-SXM4-40GB"). Values seen on real nodes are marked sourced; the others are
// derived from the product's naming and a manifest says so.
#pragma once

#include <optional>
#include <string>

namespace gpuplan::api {

inline constexpr const char* kGpuProductLabel = "nvidia.com/gpu.product";

struct GpuProductLabel {
  std::string value;
  bool sourced = false;  // seen on GFD-labelled nodes; false = derived from the product name
};

// The label value of catalog GPU `gpu_id` (gpus.csv ids) of `vendor`: the table's, else
// "NVIDIA-<gpu_id>" (derived); nullopt for a GPU that is not NVIDIA's (GFD labels NVIDIA
// GPUs only) and when the derived value is not a Kubernetes label value
// (plan::IsLabelValue: a catalog id may be longer or have '+', ':', '@', '(', ')', '=').
// An empty vendor is read as NVIDIA.
std::optional<GpuProductLabel> GfdProductLabel(const std::string& gpu_id, const std::string& vendor);

}  // namespace gpuplan::api
