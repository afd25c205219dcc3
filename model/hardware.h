// The hardware a job runs on: GPUs per node, how they are linked, the node's network and
// CPUs, and how many nodes.
#pragma once

#include <optional>
#include <string_view>

#include "model/gpu_spec.h"
#include "model/result.h"

namespace gpuplan::model {

enum class Interconnect { kNone, kPcie, kNvlink, kNvswitch };

std::optional<Interconnect> ParseInterconnect(std::string_view text);  // none|pcie|nvlink|nvswitch
std::string_view InterconnectName(Interconnect interconnect);

// The most GPUs one node may hold in a model estimate (the largest cloud node has 16;
// NVL72 racks are nodes of 4 in one NVLink domain: NodeSpec::nvlink_domain_gpus).
inline constexpr int kMaxGpusPerNode = 64;
// The most nodes one estimate may span.
inline constexpr int kMaxNodes = 4096;

struct NodeSpec {
  GpuSpec gpu;
  int gpus_per_node = 1;
  Interconnect interconnect = Interconnect::kNone;
  double interconnect_bw_gbps = 0;  // per GPU, bidirectional, GB/s; 0 = from the GPU spec
  double network_gbps = 0;          // per node, Gbit/s; 0 = unknown (an assumption is used)
  double vcpus = 0;                 // per node; 0 = unknown (input pipeline not limited)
  // GPUs joined by NVLink across nodes (GB200/GB300 NVL72: 72 GPUs over 18 trays of 4);
  // 0 = the node's own GPUs. A multiple of gpus_per_node; only with an NVLink interconnect.
  int nvlink_domain_gpus = 0;
};

// The most GPUs one NVLink domain may hold in an estimate (NVIDIA's NVL576 rack design).
inline constexpr int kMaxNvlinkDomainGpus = 576;

// GPUs one GPU reaches over NVLink (never fewer than its node's; its node's without NVLink).
int NvlinkDomainGpus(const NodeSpec& node);
// The NVLink domain `node`'s GPU is built into, from gpus.csv's form factor (72 for the
// GB200 and GB300 NVL72 parts), where the node has NVLink and the domain holds whole nodes;
// 0 (the node's own GPUs) otherwise.
int DefaultNvlinkDomain(const NodeSpec& node);

struct Cluster {
  NodeSpec node;
  int nodes = 1;
  int TotalGpus() const { return node.gpus_per_node * nodes; }
};

// The usual link of `gpus` GPUs of this model in one node: none for one GPU; NVLink for
// SXM/OAM parts with NVLink (NVSwitch from 8 GPUs); PCIe otherwise.
Interconnect DefaultInterconnect(const GpuSpec& gpu, int gpus);

// Errors name the hardware field ({Part::kHardware, "nodes"}, ...). A node of several GPUs
// with interconnect none is read as PCIe.
Status ValidateCluster(const Cluster& cluster);

}  // namespace gpuplan::model
