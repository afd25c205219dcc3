#include "model/collectives.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::model {

namespace {

double PcieBidirectionalGbps(int gen) {
  switch (gen) {
    case 3: return 32;
    case 5: return 128;
    case 6: return 256;
    default: return 64;
  }
}

double LinkBidirectionalGbps(const NodeSpec& node) {
  if (node.interconnect_bw_gbps > 0) return node.interconnect_bw_gbps;
  if ((node.interconnect == Interconnect::kNvlink || node.interconnect == Interconnect::kNvswitch) &&
      node.gpu.nvlink_bw_gbps > 0) {
    return node.gpu.nvlink_bw_gbps;
  }
  return PcieBidirectionalGbps(node.gpu.pcie_gen);
}

}  // namespace

double IntraNodeBusGbps(const NodeSpec& node, const ModelConstants& c) {
  return LinkBidirectionalGbps(node) / 2 * c.link_efficiency;
}

double InterNodeGbpsPerGpu(const NodeSpec& node, const ModelConstants& c) {
  double gbps = node.network_gbps > 0 ? node.network_gbps : c.default_network_gbps;
  return gbps / 8 / std::max(1, node.gpus_per_node) * c.network_efficiency;
}

double AllReduceSeconds(double bytes, int gpus_per_node, int nodes, const NodeSpec& node,
                        const ModelConstants& c) {
  double g = std::max(1, gpus_per_node), k = std::max(1, nodes);
  double t = 0;
  if (g > 1) {
    double alpha = node.interconnect == Interconnect::kPcie || node.interconnect == Interconnect::kNone
                       ? c.pcie_latency_s
                       : c.nvlink_latency_s;
    // Small messages go over a tree: the latency term grows with log2(g), not g.
    t += 2 * (g - 1) / g * bytes / (IntraNodeBusGbps(node, c) * 1e9) + 2 * std::log2(g) * alpha;
  }
  if (k > 1) {
    t += 2 * (k - 1) / k * (bytes / g) / (InterNodeGbpsPerGpu(node, c) * 1e9) +
         2 * std::log2(k) * c.network_latency_s;
  }
  return t;
}

}  // namespace gpuplan::model
