// The node label a Kubernetes export selects a GPU by: `nvidia.com/gpu.product`, which
// NVIDIA GPU Feature Discovery (GFD, part of the NVIDIA GPU Operator and the
// k8s-device-plugin) sets to the product name nvidia-smi reports with spaces replaced by
// '-' ("NVIDIA A100-SXM4-40GB" -> "NVIDIA-A100-SXM4-40GB").
// The values live in the catalog: the gpu_synonyms row of scope db::kKubernetesScope names
// the value for its GPU, and its note starts with "sourced:" (seen on GFD-labelled nodes)
// or "derived:" (GFD's rule applied to the product name; not seen on a node). This file
// holds the rule for a GPU without a row. Pure functions of their arguments; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "db/catalog_types.h"

namespace gpuplan::plan {

inline constexpr const char* kGpuProductLabel = "nvidia.com/gpu.product";
// How a kubernetes-scope row's note starts when its value was seen on a node.
inline constexpr std::string_view kSourcedLabelNote = "sourced:";

struct GpuProductLabel {
  std::string value;     // a Kubernetes label value (IsLabelValue)
  bool sourced = false;  // seen on GFD-labelled nodes; false = derived from the product name
};

// The label value of catalog GPU `gpu_id` of `vendor` ("" is read as NVIDIA), given the
// catalog's kubernetes-scope row for it (`row`, nullopt: none): the row's value when it is a
// Kubernetes label value (sourced when its note starts with kSourcedLabelNote), else
// "NVIDIA-<gpu_id>" (derived) when that is one (IsLabelValue: a catalog id may be longer or
// have '+', ':', '@', '(', ')', '='). nullopt for a GPU that is not NVIDIA's (GFD labels
// NVIDIA GPUs only) and when neither is a label value.
std::optional<GpuProductLabel> GfdProductLabel(const std::string& gpu_id, const std::string& vendor,
                                               const std::optional<db::GpuSynonym>& row);

}  // namespace gpuplan::plan
