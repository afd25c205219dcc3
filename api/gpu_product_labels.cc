#include "api/gpu_product_labels.h"

#include <map>

#include "plan/runnable.h"

namespace gpuplan::api {

std::optional<GpuProductLabel> GfdProductLabel(const std::string& gpu_id,
                                               const std::string& vendor) {
  if (!vendor.empty() && vendor != "NVIDIA") return std::nullopt;
  // Sourced: the label value as it appears on GFD-labelled nodes in public Kubernetes
  // manifests, node listings and GPU Operator examples (nodeSelector / nodeAffinity on
  // nvidia.com/gpu.product). Derived: nvidia-smi's product name for the part with spaces
  // replaced by '-' (GFD's rule), not seen on a node.
  static const std::map<std::string, GpuProductLabel> kLabels = {
      {"T4", {"Tesla-T4", true}},
      {"V100-16GB-SXM2", {"Tesla-V100-SXM2-16GB", true}},
      {"V100-32GB-SXM2", {"Tesla-V100-SXM2-32GB", true}},
      {"P100-16GB-PCIe", {"Tesla-P100-PCIE-16GB", true}},
      {"K80", {"Tesla-K80", false}},
      {"A10", {"NVIDIA-A10", true}},
      {"A10G", {"NVIDIA-A10G", true}},
      {"A40", {"NVIDIA-A40", true}},
      {"A30", {"NVIDIA-A30", false}},
      {"L4", {"NVIDIA-L4", true}},
      {"L40S", {"NVIDIA-L40S", true}},
      {"A100-40GB-SXM4", {"NVIDIA-A100-SXM4-40GB", true}},
      {"A100-80GB-SXM4", {"NVIDIA-A100-SXM4-80GB", true}},
      {"A100-40GB-PCIe", {"NVIDIA-A100-PCIE-40GB", true}},
      {"A100-80GB-PCIe", {"NVIDIA-A100-80GB-PCIe", true}},
      {"H100-80GB-SXM5", {"NVIDIA-H100-80GB-HBM3", true}},
      {"H100-80GB-PCIe", {"NVIDIA-H100-PCIe", true}},
      {"H100-NVL-94GB", {"NVIDIA-H100-NVL", true}},
      {"H200-141GB-SXM", {"NVIDIA-H200", false}},
      {"B200-180GB-SXM", {"NVIDIA-B200", false}},
      {"RTX-A6000", {"NVIDIA-RTX-A6000", true}},
      {"RTX-A5000", {"NVIDIA-RTX-A5000", true}},
      {"RTX-4090", {"NVIDIA-GeForce-RTX-4090", false}},
      {"RTX-3090", {"NVIDIA-GeForce-RTX-3090", true}},
  };
  auto it = kLabels.find(gpu_id);
  if (it != kLabels.end()) return it->second;
  std::string derived = "NVIDIA-" + gpu_id;
  if (!plan::IsLabelValue(derived)) return std::nullopt;
  return GpuProductLabel{derived, false};
}

}  // namespace gpuplan::api
