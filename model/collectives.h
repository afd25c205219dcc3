// Collective communication times by the alpha-beta model with NCCL's bus-bandwidth
// definition (nccl-tests doc/PERFORMANCE.md), hierarchical across nodes.
#pragma once

#include "model/constants.h"
#include "model/hardware.h"

namespace gpuplan::model {

// Achieved bus bandwidth between GPUs of one node, GB/s per direction.
double IntraNodeBusGbps(const NodeSpec& node, const ModelConstants& c);
// Achieved network bandwidth per GPU between nodes, GB/s per direction.
double InterNodeGbpsPerGpu(const NodeSpec& node, const ModelConstants& c);

// Ring all-reduce of `bytes` over `gpus_per_node` GPUs in each of `nodes` nodes:
// 2(g-1)/g * S / B_intra + 2(k-1)/k * (S/g) / B_inter + 2 log2(g) alpha_link +
// 2 log2(k) alpha_net (small messages take a tree). 0 for one GPU. Nodes of one NVLink
// domain (NodeSpec::nvlink_domain_gpus) count as one node: their GPUs are all on NVLink.
double AllReduceSeconds(double bytes, int gpus_per_node, int nodes, const NodeSpec& node,
                        const ModelConstants& c);

}  // namespace gpuplan::model
