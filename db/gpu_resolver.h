// Maps a cloud's accelerator name to a GPU id through the synonym table, and derives
// an instance's GPU interconnect when the source does not state it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "db/catalog_types.h"
#include "model/gpu_spec.h"

namespace gpuplan::db {

class GpuResolver {
 public:
  enum class Outcome { kResolved, kUnsupported, kUnknown };
  struct Resolution {
    Outcome outcome = Outcome::kUnknown;
    const model::GpuSpec* gpu = nullptr;  // set when kResolved
  };

  void AddGpu(model::GpuSpec gpu);
  void AddSynonym(const GpuSynonym& synonym);

  // A cloud-specific synonym wins over a "*" one; a GPU id itself always resolves.
  Resolution Resolve(const std::string& cloud, const std::string& accelerator_name) const;
  const model::GpuSpec* FindGpu(const std::string& id) const;

 private:
  std::map<std::string, model::GpuSpec> gpus_;
  std::map<std::pair<std::string, std::string>, std::string> synonyms_;
};

// Fills interconnect and interconnect_bw_gbps from the GPU's spec when they are unset
// (interconnect ""): one GPU -> none; an SXM/OAM part with NVLink -> nvlink at the GPU's
// NVLink bandwidth (nvswitch for 8 or more GPUs); otherwise pcie at the bidirectional
// x16 bandwidth of the GPU's PCIe generation (gen 4 when unknown). A stated kind with
// no bandwidth gets the GPU's figure for that kind.
void DeriveInterconnect(const model::GpuSpec& gpu, InstanceType& instance);

}  // namespace gpuplan::db
