// Every constant of the performance model, named, with its default. The twelve fitted ones
// were fitted by `gpuplan calibrate` on calibration.csv + calibration_more.csv +
// llm_training_mpt.csv
// (docs/model.md lists the rows, priors and errors); the others are physical, published
// figures or assumptions, labelled as such.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/workload.h"

namespace gpuplan::model {

struct ModelConstants {
  // --- fitted by `gpuplan calibrate` (log space, with the priors of PriorConstants) ---
  // Achieved share of the dense tensor peak by large GEMMs/convolutions.
  double eta_16bit = 0.76993;  // FP16/BF16 (and FP8/INT8 via eta_fp8_vs_16bit)
  double eta_tf32 = 0.76652;
  double eta_fp32 = 0.95;  // CUDA-core FP32 (GPUs without tensor cores, or fp32 runs)
  double eta_bw = 0.84696;  // share of peak DRAM bandwidth where no achievable figure is published
  // DRAM bytes of elementwise and normalisation work per activation element per sample
  // and training step (forward and backward), in units of the element size.
  double transformer_traffic_passes = 6.7741;  // per Korthikanti element (+ attention scores)
  double cnn_traffic_passes = 15.758;         // per model-zoo activation (conv output)
  double step_time_cv = 0.029606;        // step-time variation between data-parallel replicas
  // Achieved share of the CUDA-core FP32 peak by depthwise/grouped convolutions (forward
  // and both backward kernels): few MACs per byte, poor reuse, and reductions over the
  // batch for the weight gradient.
  double eta_depthwise = 0.065712;
  // Added step-time variation of variable-length batches (Workload::variable_length).
  double variable_length_cv = 0.13999;
  // Bytes per SM per clock elementwise kernels sustain through the SM's load/store path
  // (the L1 path peaks at 128 B/clk/SM on Volta, Ampere and Hopper).
  double sm_bytes_per_clock = 21.047;
  // Achieved share of the 16-bit tensor peak by fused attention (FlashAttention-class
  // kernels, forward and backward) in optimized frameworks: softmax, masking and the
  // backward's recompute keep it below the GEMMs' share.
  double eta_attention = 0.34996;
  // FP8 GEMMs reach this share of the 16-bit GEMMs' share of their own (2x) peak: scaling
  // factors, FP8-to-BF16 output and smaller tiles per byte (Transformer Engine on H100).
  double eta_fp8_vs_16bit = 0.92477;

  // --- physical, sourced or assumed (not fitted; docs/model.md gives each source) ---
  // A GEMM kernel with w FLOPs per SM runs at w / (w + gemm_half_work_per_sm) of the
  // saturated rate: small kernels (small batch, RNN steps, big GPUs) are slower. Two
  // 128x128x256 tiles per SM (2 x 8.4e6 FLOPs) fill an SM's pipeline.
  double gemm_half_work_per_sm = 2e7;
  double kernel_floor_s = 4.0e-6;  // GPU time of the shortest kernel (launch and ramp)
  double host_dispatch_s = 8e-6;   // host time per op of PyTorch eager dispatch (5-10 us)
  // FlashAttention's training work in forward passes: forward (QK^T, AV) plus a backward
  // of five matmuls that recomputes the scores (Dao 2023): 1 + 2.5.
  double fused_attention_passes = 3.5;
  // Dense 16-bit tensor FLOPs per SM per clock that a kernel built on Ampere's warp-level
  // mma.sync reaches: A100 312 TFLOPS / (108 SMs x 1.41 GHz). Hopper and Blackwell double
  // (and more) their per-SM peak only through warpgroup (wgmma) or tcgen05 instructions;
  // portable attention kernels (FlashAttention-2, Triton) do not use them, so on those
  // GPUs they run against this rate, not the datasheet peak (FlashAttention-3 paper: FA2
  // reaches ~35 % of the H100 peak, ~70 % of A100's).
  double portable_tensor_flops_per_sm_clock = 2048;
  // DRAM bytes per element of an FP8 cast in training: read the 16-bit tensor, write its FP8
  // copy and the transposed FP8 copy the other GEMM of the pair needs (Transformer Engine's
  // fused cast-transpose, amax taken in the same pass: delayed scaling). Current
  // (per-tensor dynamic) scaling reads the tensor once more for its amax first.
  double fp8_cast_bytes_delayed = 4.0;
  double fp8_cast_bytes_current = 6.0;
  // MXFP8 (block scaling): one fused pass reads the 16-bit tensor and writes a row-wise and
  // a column-wise FP8 copy (blocks run along the reduction dimension of each GEMM of the
  // pair), each with one 8-bit scale per 32 elements: 2 + 2 x (1 + 1/32). Derived, not fitted.
  double fp8_cast_bytes_mxfp8 = 2.0 + 2.0 * (1.0 + 1.0 / 32.0);
  // NVFP4 (Transformer Engine's NVFP4BlockScaling): a first pass reads the 16-bit tensor for
  // its per-tensor FP32 scale (amax), a second reads it again and writes a row-wise and a
  // column-wise FP4 copy (half a byte each) with one E4M3 scale per 16 elements (the random
  // Hadamard transform of the weight-gradient inputs is fused into that pass):
  // 2 + 2 + 2 x (0.5 + 1/16). Derived, not fitted.
  double nvfp4_cast_bytes = 2.0 + 2.0 + 2.0 * (0.5 + 1.0 / 16.0);
  double optimized_dispatch_factor = 0.3;  // host work left with CUDA graphs/fused kernels
  double smooth_k = 3.0;  // micro-step = (gpu^k + host^k)^(1/k): issue overlaps GPU work
  // Achieved all-reduce bus bandwidth (nccl-tests busbw, large messages) as a share of
  // the link's per-direction peak, and per-hop latency of small messages.
  // Sources (docs/nccl_busbw.md): 8x A100 NVSwitch 228-232 GB/s of 300 (0.77), H100
  // ring ~0.82; PCIe without NVLink 0.25 (Gen3, no P2P) to 0.44 (Gen5); InfiniBand HDR
  // ~0.96 and RoCE ~0.78 of the node's NIC bandwidth; tiny all-reduces 6-20 us inside a
  // node, 120-160 us across nodes (EFA, TCPXO).
  double nvlink_bus_efficiency = 0.77;
  double pcie_bus_efficiency = 0.4;
  double network_efficiency = 0.8;     // achieved share of the node's NIC bandwidth
  double default_network_gbps = 25.0;  // per node, when the instance does not state it
  double nvlink_latency_s = 10e-6;
  double pcie_latency_s = 15e-6;
  double network_latency_s = 60e-6;
  double ddp_bucket_bytes = 25e6;  // PyTorch DDP bucket_cap_mb default
  double images_per_vcpu_s = 150.0;  // JPEG decode + augment per vCPU (guides: 50-200)
  // Saved elements per model-zoo activation in a CNN's backward: the conv output and its
  // normalised copy (ReLU in place).
  double cnn_saved_elements_per_activation = 2.0;
  double usable_memory_fraction = 0.9;  // of HBM; minus the reserve below
  double memory_reserve_gb = 1.5;       // CUDA context, NCCL buffers, workspace
  double tight_fraction = 0.85;         // above this share of usable memory: "tight"

  // --- uncertainty: log-space spread of the leave-one-model-out residuals (each model
  // predicted by a fit without it), so the p10-p90 range is that of an unseen model ---
  std::map<Family, double> sigma_by_family = {
      {Family::kCnn, 0.185},    {Family::kEncoder, 0.189},         {Family::kDecoder, 0.096},
      {Family::kRnn, 0.261},    {Family::kEncoderDecoder, 0.139}};
  double sigma_default = 0.30;  // families without fitted rows (vit, moe)
  // Widening outside the calibrated region (assumed, added in quadrature): a GPU
  // generation without calibration rows; each doubling of the GPU count beyond the largest
  // calibrated job of the family (decoders: 512 GPUs on 64 nodes, the MPT FSDP runs; the
  // other families: one node of 16, a second node counting as a doubling); and a layout that
  // splits the model (tensor, pipeline or context parallelism: every calibration row is
  // data parallel or FSDP).
  double sigma_new_generation = 0.15;
  double sigma_per_scale_doubling = 0.05;
  double sigma_model_parallel = 0.10;
  int calibrated_max_gpus = 16;
  int calibrated_max_gpus_decoder = 512;
  // Volumetric (3D) CNNs: the one measured 3D U-Net (nnU-Net, reported, not fitted) runs
  // 1.2-1.7x slower than predicted, mean log residual 0.37 (docs/model.md section 6).
  double sigma_volumetric = 0.37;

  // Log-space spread of a training answer for `w` on `gpus` GPUs over `nodes` nodes of
  // `architecture` (gpus.csv wording, e.g. "Ampere (GA100)"); `why` receives one line per
  // reason the spread was widened.
  // `model_parallel`: the layout splits the model (tensor, pipeline or context degree > 1),
  // which no calibration row does.
  double TrainingSigma(const Workload& w, const std::string& architecture, int gpus, int nodes,
                       bool model_parallel, std::vector<std::string>* why) const;

  double Sigma(Family family) const;
};

// The constants the service uses: the fitted values (see docs/model.md).
const ModelConstants& DefaultConstants();

// The priors of the fit: literature values before calibration (docs/model.md). `gpuplan
// calibrate` fits from here, penalising the log distance from them, so the shipped
// constants are reproducible from scratch.
ModelConstants PriorConstants();

}  // namespace gpuplan::model
