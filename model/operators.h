// The operator classes of one training or inference pass of a workload, counted from
// its shape (what Habitat, Calculon and llm-analysis share): tensor-core GEMM/conv work,
// depthwise/grouped conv work on the vector units, elementwise/normalisation traffic,
// and how many kernels of each kind a forward pass issues. The step model
// (training.cc, inference.cc) turns these into time with the GPU's specs.
// Pure and deterministic; thread-safe.
#pragma once

#include "model/workload.h"

namespace gpuplan::model {

struct OperatorProfile {
  // Per sample, forward pass.
  double gemm_flops = 0;    // matmuls and convolutions on tensor cores, attention excluded
  // The part of gemm_flops in the output head (LM/MLM head): FP8 recipes keep it in 16-bit.
  double head_flops = 0;
  // Attention's QK^T and attention x V (transformers), counted over the whole score matrix
  // (a causal mask's skipped half included): what an eager framework's batched matmuls run.
  // A fused kernel (FlashAttention) of a causal model does half of it.
  double attention_flops = 0;
  bool causal_attention = false;  // decoder-only families: the mask hides the upper half
  // Elements per sample that an FP8 recipe casts per training step: each projection's
  // input (forward) and its output gradient (backward), over the layers' tokens.
  double fp8_cast_elements = 0;
  double vector_flops = 0;  // depthwise/grouped convs (CUDA cores, memory-bound)
  // Elements elementwise and normalisation kernels read and write per sample, in the
  // family's own count (CNN: model-zoo activations; others: Korthikanti's per-token
  // count over TokenLayers). The traffic constants turn them into bytes.
  double activation_elements = 0;
  // Per forward pass of a micro-batch, independent of its size.
  double gemm_kernels = 0;         // tensor-core GEMM/conv kernels
  double elementwise_kernels = 0;  // norm, activation, residual, softmax, dropout, SE
  bool cnn_counting = false;       // which traffic constant applies
};

// Kernels per layer in a forward pass of an eager framework (PyTorch without fusion):
// a transformer layer issues its projections and MLP matmuls plus two batched attention
// matmuls, and about ten elementwise kernels; an LSTM layer one recurrent GEMM and one
// fused cell kernel per time step; a conv layer one conv and two elementwise kernels.
inline constexpr double kTransformerElementwisePerLayer = 10;
inline constexpr double kCnnElementwisePerConv = 2;
// DRAM passes of a conv kernel over its output-sized tensors in one training step:
// forward reads the input and writes the output, data-gradient reads the output gradient
// and writes the input gradient, weight-gradient reads the input and the output gradient.
inline constexpr double kConvIoPasses = 6;

OperatorProfile Profile(const Workload& w);

}  // namespace gpuplan::model
