// Every constant of the performance model, named, with its default. Fitted ones were
// fitted by `gpuplan calibrate` on calibration.csv (docs/model.md lists the rows and the
// error); the others are assumptions or published figures, labelled as such.
#pragma once

#include <map>
#include <string>

#include "model/workload.h"

namespace gpuplan::model {

struct ModelConstants {
  // --- fitted on calibration.csv ---
  double eta_fp32 = 0.8766;  // achieved fraction of the FP32 (CUDA-core) peak in GEMM/conv
  double eta_tf32 = 0.5548;  // achieved fraction of the TF32 tensor peak
  double eta_16bit = 0.5172;  // achieved fraction of the FP16/BF16 tensor peak
  double eta_bw = 0.95;  // achieved fraction of HBM bandwidth in elementwise kernels
  // Bytes moved per training step = saved activation elements x bytes x passes.
  double transformer_traffic_passes = 6.981;  // transformers and RNNs
  double cnn_traffic_passes = 5.877;
  double cpu_step_overhead_s = 0.02072;   // per micro-step: framework and Python work
  double cpu_layer_overhead_s = 0.0008345;  // per kernel layer per micro-step (launch-bound)
  double link_efficiency = 0.4;  // achieved all-reduce bus bandwidth / per-direction link peak
  double dp_overlap = 0.0;       // share of the gradient all-reduce hidden behind backward
  double rnn_efficiency = 0.7738;   // extra factor on RNN matmuls (sequential, small GEMMs)
  double fp32_traffic_factor = 1.083;  // fp32/tf32 runs move more per element (unfused kernels)
  double dp_sync_fraction = 0.02727;    // per doubling of data-parallel GPUs, share of a micro-step
  double optimizer_bytes_per_param = 184.6;  // bytes read+written per parameter by the optimizer

  // --- assumptions and published figures (not fitted) ---
  double eta_fp8_vs_16bit = 0.6;  // FP8 reaches ~1.2x BF16 throughput at 2x peak (MosaicML)
  double optimized_overhead_factor = 0.3;  // CPU overhead left with CUDA graphs/fused kernels
  double optimized_optimizer_bytes_per_param = 36.0;  // fused Adam (MODEL.md 2.6)
  double smooth_k = 3.0;  // step = (gpu^k + cpu^k)^(1/k): CPU issue overlaps GPU work
  double network_efficiency = 0.8;     // achieved share of the per-GPU NIC bandwidth
  double default_network_gbps = 25.0;  // per node, when the instance does not state it
  double nvlink_latency_s = 5e-6;
  double pcie_latency_s = 10e-6;
  double network_latency_s = 20e-6;
  double images_per_vcpu_s = 150.0;  // JPEG decode + augment per vCPU (guides: 50-200)
  double cnn_saved_activation_fraction = 2.0 / 3.0;  // ReLU in place
  double usable_memory_fraction = 0.9;  // of HBM; minus the reserve below
  double memory_reserve_gb = 1.5;       // CUDA context, NCCL buffers, workspace
  double tight_fraction = 0.85;         // above this share of usable memory: "tight"

  // --- uncertainty: log-space standard deviation of the calibration residuals ---
  std::map<Family, double> sigma_by_family = {
      {Family::kCnn, 0.145}, {Family::kEncoder, 0.119}, {Family::kDecoder, 0.055},
      {Family::kRnn, 0.098}};
  double sigma_default = 0.25;  // families without calibration data (vit, moe)

  double Sigma(Family family) const;
};

// The constants the service uses: the fitted values (see docs/model.md).
const ModelConstants& DefaultConstants();

// The starting point of the fit: literature values before calibration (MODEL.md 2.2-2.6:
// MFU ~0.45 on tensor cores, 0.8 of HBM bandwidth, NVLink bus at 0.6 of peak, DDP overlap
// 0.7, fused Adam 36 bytes/param, ~5 ms of framework time per step). `gpuplan calibrate`
// fits from here, so the shipped constants are reproducible from scratch.
ModelConstants PriorConstants();

}  // namespace gpuplan::model
