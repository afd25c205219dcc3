#include "model/constants.h"

namespace gpuplan::model {

double ModelConstants::Sigma(Family family) const {
  auto it = sigma_by_family.find(family);
  return it == sigma_by_family.end() ? sigma_default : it->second;
}

const ModelConstants& DefaultConstants() {
  static const ModelConstants constants = [] {
    ModelConstants c;
    return c;
  }();
  return constants;
}

ModelConstants PriorConstants() {
  ModelConstants c;
  c.eta_fp32 = 0.55;
  c.eta_tf32 = 0.40;
  c.eta_16bit = 0.45;
  c.eta_bw = 0.80;
  c.transformer_traffic_passes = 8.0;
  c.cnn_traffic_passes = 6.0;
  c.cpu_step_overhead_s = 0.004;
  c.cpu_layer_overhead_s = 0.001;
  c.link_efficiency = 0.6;
  c.dp_overlap = 0.7;
  c.rnn_efficiency = 0.5;
  c.fp32_traffic_factor = 1.5;
  c.dp_sync_fraction = 0.03;
  c.optimizer_bytes_per_param = 36.0;
  return c;
}

}  // namespace gpuplan::model
