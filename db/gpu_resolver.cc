#include "db/gpu_resolver.h"

#include "model/hardware.h"

namespace gpuplan::db {

void GpuResolver::AddGpu(model::GpuSpec gpu) {
  std::string id = gpu.id;
  gpus_[id] = std::move(gpu);
}

void GpuResolver::AddSynonym(const GpuSynonym& synonym) {
  synonyms_[{synonym.cloud, synonym.accelerator_name}] = synonym.gpu_id;
}

const model::GpuSpec* GpuResolver::FindGpu(const std::string& id) const {
  auto it = gpus_.find(id);
  return it == gpus_.end() ? nullptr : &it->second;
}

GpuResolver::Resolution GpuResolver::Resolve(const std::string& cloud,
                                             const std::string& accelerator_name) const {
  for (const std::string& scope : {cloud, std::string("*")}) {
    auto it = synonyms_.find({scope, accelerator_name});
    if (it == synonyms_.end()) continue;
    if (it->second.empty()) return {Outcome::kUnsupported, nullptr};
    const model::GpuSpec* gpu = FindGpu(it->second);
    return gpu ? Resolution{Outcome::kResolved, gpu} : Resolution{Outcome::kUnknown, nullptr};
  }
  if (const model::GpuSpec* gpu = FindGpu(accelerator_name)) {
    return {Outcome::kResolved, gpu};
  }
  return {Outcome::kUnknown, nullptr};
}

namespace {
double PcieX16BidirectionalGbps(int gen) {
  switch (gen) {
    case 3: return 32;
    case 5: return 128;
    case 6: return 256;
    default: return 64;  // gen 4, also when unknown
  }
}
}  // namespace

void DeriveInterconnect(const model::GpuSpec& gpu, InstanceType& instance) {
  if (instance.gpu_count <= 1) {
    instance.interconnect = "none";
    instance.interconnect_bw_gbps = 0;
    return;
  }
  if (instance.interconnect.empty() || instance.interconnect == "none") {
    instance.interconnect =
        model::InterconnectName(model::DefaultInterconnect(gpu, instance.gpu_count));
    instance.interconnect_bw_gbps = 0;
  }
  if (instance.interconnect_bw_gbps <= 0) {
    instance.interconnect_bw_gbps = instance.interconnect == "pcie"
                                        ? PcieX16BidirectionalGbps(gpu.pcie_gen)
                                        : gpu.nvlink_bw_gbps;
  }
}

}  // namespace gpuplan::db
