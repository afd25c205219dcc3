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
  bool nvlink = (node.interconnect == Interconnect::kNvlink ||
                 node.interconnect == Interconnect::kNvswitch) &&
                (node.interconnect_bw_gbps > 0 || node.gpu.nvlink_bw_gbps > 0);
  return LinkBidirectionalGbps(node) / 2 *
         (nvlink ? c.nvlink_bus_efficiency : c.pcie_bus_efficiency);
}

double InterNodeGbpsPerGpu(const NodeSpec& node, const ModelConstants& c) {
  double gbps = node.network_gbps > 0 ? node.network_gbps : c.default_network_gbps;
  return gbps / 8 / std::max(1, node.gpus_per_node) * c.network_efficiency;
}

namespace {

// log2 of a GPU or node count: exact and without libm for powers of two (the usual case).
double Log2Count(double n) {
  const long long i = static_cast<long long>(n);
  if (static_cast<double>(i) == n && i > 0 && (i & (i - 1)) == 0) {
    return static_cast<double>(63 - __builtin_clzll(static_cast<unsigned long long>(i)));
  }
  return std::log2(n);
}

}  // namespace

double AllReduceSeconds(double bytes, int gpus_per_node, int nodes, const NodeSpec& node,
                        const ModelConstants& c) {
  double g = std::max(1, gpus_per_node), k = std::max(1, nodes);
  double n = g * k;
  if (n <= 1) return 0;
  // Nodes of one NVLink domain (NVL72) are one node to the ring: their GPUs talk over NVLink.
  const int domain_nodes = std::max(1, NvlinkDomainGpus(node) / std::max(1, node.gpus_per_node));
  if (domain_nodes > 1 && k > 1) {
    const double joined = std::min(k, static_cast<double>(domain_nodes));
    g *= joined;
    k = std::ceil(k / joined);
  }
  // NCCL rings span every GPU; the slowest hop sets the bus bandwidth: the node's link
  // inside a node, the node's share of the network across nodes.
  double bus = g > 1 ? IntraNodeBusGbps(node, c) : 1e30;
  if (k > 1) bus = std::min(bus, InterNodeGbpsPerGpu(node, c) * g);
  double alpha = 0;
  if (g > 1) {
    bool pcie = node.interconnect == Interconnect::kPcie || node.interconnect == Interconnect::kNone;
    // Small messages go over a tree: the latency term grows with log2, not linearly.
    alpha += 2 * Log2Count(g) * (pcie ? c.pcie_latency_s : c.nvlink_latency_s);
  }
  if (k > 1) alpha += 2 * Log2Count(k) * c.network_latency_s;
  return 2 * (n - 1) / n * bytes / (bus * 1e9) + alpha;
}

}  // namespace gpuplan::model
