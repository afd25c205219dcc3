#include "model/operators.h"

#include <algorithm>

namespace gpuplan::model {

OperatorProfile Profile(const Workload& w) {
  OperatorProfile p;
  double forward = ForwardFlopsPerSample(w);
  if (w.family == Family::kCnn) {
    double share = std::clamp(w.depthwise_macs_share, 0.0, 1.0);
    p.vector_flops = forward * share;
    p.gemm_flops = forward - p.vector_flops;
    double scale = ImageScale(w);
    p.activation_elements = w.activation_elements_per_sample * scale;
    p.gemm_kernels = KernelLayers(w);
    p.elementwise_kernels = kCnnElementwisePerConv * KernelLayers(w);
    p.cnn_counting = true;
    return p;
  }
  p.gemm_flops = forward;
  p.activation_elements = ActivationElementsPerTokenLayer(w) * TokenLayers(w);
  if (IsTransformer(w.family)) {
    const double tokens = TokensPerSample(w);
    p.attention_flops = std::max(0.0, forward - 2 * MatmulParamsPerToken(w) * tokens);
    p.gemm_flops = forward - p.attention_flops;
    p.causal_attention = IsDecoderOnly(w.family);
    if (w.matmul_params_per_token <= 0 && w.family != Family::kEncoderDecoder) {
      p.head_flops = 2 * HeadParamsPerToken(w) * tokens;
    }
    p.fp8_cast_elements = ProjectionIoWidth(w) * TokenLayers(w);
  }
  if (w.family == Family::kRnn) {
    // One recurrent GEMM and one fused cell kernel per layer and time step, plus the
    // input projection per layer and the classifier.
    p.gemm_kernels = static_cast<double>(w.layers) * (w.seq_len + 1) + 1;
    p.elementwise_kernels = static_cast<double>(w.layers) * w.seq_len;
    return p;
  }
  // QKV (fused), output projection, QK^T and AV, and the MLP's 2 or 3 matmuls per
  // active expert; plus the output head.
  double experts = w.family == Family::kMoe ? std::max(1, w.active_experts) : 1;
  double per_layer = 4 + (w.gated_mlp ? 3 : 2) * experts;
  p.gemm_kernels = w.layers * per_layer + 1;
  double elementwise_layers = w.layers;
  if (w.family == Family::kEncoderDecoder) {
    // Decoder layers add cross-attention: Q, KV, output and its two attention matmuls.
    p.gemm_kernels += w.decoder_layers * (per_layer + 5);
    elementwise_layers += 1.4 * w.decoder_layers;
  }
  p.elementwise_kernels = kTransformerElementwisePerLayer * elementwise_layers;
  return p;
}

}  // namespace gpuplan::model
