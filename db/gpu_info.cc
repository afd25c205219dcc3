#include "db/gpu_info.h"

#include <cmath>

#include "db/text.h"

namespace gpuplan::db {

std::optional<double> GpuInfoSizeInMiB(std::string_view gpu_info) {
  constexpr std::string_view kKey = "'SizeInMiB':";
  size_t at = gpu_info.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  size_t begin = at + kKey.size();
  size_t end = gpu_info.find_first_of(",}", begin);
  if (end == std::string_view::npos) return std::nullopt;
  auto value = ParseDouble(Trim(gpu_info.substr(begin, end - begin)));
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

std::optional<double> GpuInfoMemoryPerGpuGib(std::string_view gpu_info, int gpu_count,
                                             double spec_gb) {
  auto size = GpuInfoSizeInMiB(gpu_info);
  if (!size) return std::nullopt;
  double gib = *size < 1024 ? *size : *size / 1024.0;  // Shadeform writes GB
  if (gpu_count <= 1 || spec_gb <= 0) return gib;
  double per_gpu_if_total = gib / gpu_count;
  return std::fabs(per_gpu_if_total - spec_gb) < std::fabs(gib - spec_gb) ? per_gpu_if_total
                                                                           : gib;
}

bool GpuMemoryAgrees(double stated_gib, double spec_gb, double tolerance) {
  if (spec_gb <= 0) return true;  // the spec does not say: nothing to contradict
  return std::fabs(stated_gib - spec_gb) <= tolerance * spec_gb;
}

}  // namespace gpuplan::db
