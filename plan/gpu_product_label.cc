#include "plan/gpu_product_label.h"

#include "plan/runnable.h"

namespace gpuplan::plan {

std::optional<GpuProductLabel> GfdProductLabel(const std::string& gpu_id, const std::string& vendor,
                                               const std::optional<db::GpuSynonym>& row) {
  if (!vendor.empty() && vendor != "NVIDIA") return std::nullopt;
  if (row && !row->accelerator_name.empty() && IsLabelValue(row->accelerator_name)) {
    const bool sourced = std::string_view(row->note).starts_with(kSourcedLabelNote);
    return GpuProductLabel{row->accelerator_name, sourced};
  }
  // GFD's rule on the catalog id: "NVIDIA-" + the product name with spaces as '-'.
  std::string derived = "NVIDIA-" + gpu_id;
  if (!IsLabelValue(derived)) return std::nullopt;
  return GpuProductLabel{derived, false};
}

}  // namespace gpuplan::plan
