#include "model/constants.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::model {

double ModelConstants::Sigma(Family family) const {
  auto it = sigma_by_family.find(family);
  return it == sigma_by_family.end() ? sigma_default : it->second;
}

double ModelConstants::TrainingSigma(const Workload& w, const std::string& architecture,
                                     int gpus, int nodes, bool model_parallel,
                                     std::vector<std::string>* why) const {
  double sigma = Sigma(w.family);
  double extra = 0;
  if (w.family == Family::kCnn && w.spatial_dims == 3) {
    extra += sigma_volumetric * sigma_volumetric;
    if (why) {
      why->push_back("volumetric (3D) CNN: conv efficiencies come from 2D networks, and the "
                     "measured 3D U-Net (nnU-Net) trains 1.2-1.7x slower than this model "
                     "predicts: expect the lower part of the wider P10-P90");
    }
  }
  // The generations with calibration rows (db/seed/calibration*.csv).
  bool calibrated = false;
  for (const char* gen : {"Volta", "Turing", "Ampere", "Hopper"}) {
    if (architecture.rfind(gen, 0) == 0) calibrated = true;
  }
  if (!calibrated) {
    extra += sigma_new_generation * sigma_new_generation;
    if (why) {
      why->push_back("no calibration rows for the " +
                     (architecture.empty() ? std::string("unknown") : architecture) +
                     " generation (calibrated: Volta, Turing, Ampere, Hopper): wider P10-P90");
    }
  }
  const bool decoder = w.family == Family::kDecoder;
  const int max_gpus = decoder ? calibrated_max_gpus_decoder : calibrated_max_gpus;
  double beyond = gpus / double(max_gpus);
  if (!decoder && nodes > 1) beyond = std::max(beyond, 2.0);
  if (beyond > 1) {
    double widen = sigma_per_scale_doubling * std::log2(beyond);
    extra += widen * widen;
    if (why) {
      why->push_back(std::to_string(gpus) + " GPUs on " + std::to_string(nodes) +
                     " node(s) is beyond the calibration data (" +
                     (decoder ? "decoders: up to 512 GPUs on 64 nodes"
                              : "this family: one node of up to 16 GPUs") +
                     "): wider P10-P90");
    }
  }
  if (model_parallel) {
    extra += sigma_model_parallel * sigma_model_parallel;
    if (why) {
      why->push_back("tensor, pipeline or context parallelism is timed from its communication "
                     "and bubble terms; no calibration row splits the model: wider P10-P90");
    }
  }
  return std::sqrt(sigma * sigma + extra);
}

const ModelConstants& DefaultConstants() {
  static const ModelConstants constants = [] {
    ModelConstants c;
    return c;
  }();
  return constants;
}

ModelConstants PriorConstants() {
  // Literature values before calibration (docs/model.md, "Constants"): cuBLAS/cuDNN GEMMs
  // reach 60-75 % of the tensor peak; STREAM-like kernels ~80 % of DRAM bandwidth;
  // Korthikanti's ~8 passes over a transformer layer's activations; a conv output is
  // written, normalised, activated and read again in backward (~15 passes); a GEMM needs
  // about two 128x128x256 tiles per SM (2e7 FLOPs) to fill it; ~4 us per kernel on the GPU
  // and ~8 us per op of PyTorch eager dispatch; a few % step-time variation.
  ModelConstants c;
  c.eta_16bit = 0.6;
  c.eta_tf32 = 0.6;
  c.eta_fp32 = 0.75;
  c.eta_bw = 0.8;
  c.transformer_traffic_passes = 8.0;
  c.cnn_traffic_passes = 15.0;
  c.gemm_half_work_per_sm = 2e7;
  c.host_dispatch_s = 8e-6;
  c.step_time_cv = 0.03;
  c.sm_bytes_per_clock = 32;
  c.variable_length_cv = 0.1;
  c.eta_depthwise = 0.1;
  c.eta_attention = 0.5;
  c.eta_fp8_vs_16bit = 0.9;
  return c;
}

}  // namespace gpuplan::model
