// Named workloads with published shapes. Each preset is an ordinary Workload: the model
// knows nothing about presets, and any of them can be written inline from its shape.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/workload.h"

namespace gpuplan::model {

const std::vector<Workload>& WorkloadPresets();

// The preset with `id` (e.g. "bert-large"), or nullopt.
std::optional<Workload> FindPreset(std::string_view id);

}  // namespace gpuplan::model
