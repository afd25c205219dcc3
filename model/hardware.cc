#include "model/hardware.h"

#include <algorithm>

#include "model/enum_names.h"

#include <array>
#include <cmath>
#include <utility>

namespace gpuplan::model {

namespace {
constexpr EnumNames<Interconnect, 4> kInterconnects = {{
    {"none", Interconnect::kNone},
    {"pcie", Interconnect::kPcie},
    {"nvlink", Interconnect::kNvlink},
    {"nvswitch", Interconnect::kNvswitch},
}};
}  // namespace

std::optional<Interconnect> ParseInterconnect(std::string_view text) {
  return ParseEnum(kInterconnects, text);
}

std::string_view InterconnectName(Interconnect interconnect) {
  return EnumName(kInterconnects, interconnect);
}

Interconnect DefaultInterconnect(const GpuSpec& gpu, int gpus) {
  if (gpus <= 1) return Interconnect::kNone;
  bool socketed = gpu.form_factor.rfind("SXM", 0) == 0 || gpu.form_factor.rfind("OAM", 0) == 0;
  if (socketed && gpu.nvlink_bw_gbps > 0) {
    // Eight SXM2 GPUs (P100, V100: DGX-1/HGX-1) are wired as an NVLink hybrid cube-mesh;
    // NVSwitch came with SXM3 (DGX-2) and every HGX board since (A100, H100, ...).
    bool switched = gpu.form_factor.rfind("SXM2", 0) != 0;
    return gpus >= 8 && switched ? Interconnect::kNvswitch : Interconnect::kNvlink;
  }
  return Interconnect::kPcie;
}

int NvlinkDomainGpus(const NodeSpec& node) {
  const bool nvlink = node.interconnect == Interconnect::kNvlink ||
                      node.interconnect == Interconnect::kNvswitch;
  return nvlink ? std::max(node.gpus_per_node, node.nvlink_domain_gpus) : node.gpus_per_node;
}

int DefaultNvlinkDomain(const NodeSpec& node) {
  const int domain = node.gpu.form_factor.find("NVL72") != std::string::npos ? 72 : 0;
  const bool nvlink = node.interconnect == Interconnect::kNvlink ||
                      node.interconnect == Interconnect::kNvswitch;
  return nvlink && domain > node.gpus_per_node && domain % node.gpus_per_node == 0 ? domain : 0;
}

Status ValidateCluster(const Cluster& c) {
  Status gpu = ValidateGpuSpec(c.node.gpu);
  if (!gpu.ok()) return Error::Invalid({Part::kHardware, "gpu"}, gpu.error().message);
  if (c.node.gpus_per_node < 1 || c.node.gpus_per_node > kMaxGpusPerNode) {
    return Error::Invalid({Part::kHardware, "gpus_per_node"},
                          "gpus_per_node must be from 1 to " + std::to_string(kMaxGpusPerNode));
  }
  if (c.nodes < 1 || c.nodes > kMaxNodes) {
    return Error::Invalid({Part::kHardware, "nodes"},
                          "nodes must be from 1 to " + std::to_string(kMaxNodes));
  }
  for (auto [value, name] : {std::pair<double, const char*>{c.node.interconnect_bw_gbps,
                                                            "interconnect_bw_gbps"},
                             {c.node.network_gbps, "network_gbps"},
                             {c.node.vcpus, "vcpus"}}) {
    if (!(value >= 0) || !std::isfinite(value)) {
      return Error::Invalid({Part::kHardware, name}, std::string(name) + " must not be negative");
    }
  }
  const int domain = c.node.nvlink_domain_gpus;
  if (domain != 0) {
    if (domain < 0 || domain > kMaxNvlinkDomainGpus || domain % c.node.gpus_per_node != 0) {
      return Error::Invalid({Part::kHardware, "nvlink_domain_gpus"},
                            "nvlink_domain_gpus must be a multiple of gpus_per_node (" +
                                std::to_string(c.node.gpus_per_node) + ") up to " +
                                std::to_string(kMaxNvlinkDomainGpus));
    }
    if (domain > c.node.gpus_per_node && c.node.interconnect != Interconnect::kNvlink &&
        c.node.interconnect != Interconnect::kNvswitch) {
      return Error::Invalid({Part::kHardware, "nvlink_domain_gpus"},
                            "an NVLink domain across nodes needs interconnect nvlink or nvswitch");
    }
  }
  return OkStatus();
}

}  // namespace gpuplan::model
