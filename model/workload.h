// A workload: a model architecture by its shape. FLOPs, parameter counts and activation
// sizes are derived from the shape, so any architecture of a supported family can be
// described inline; presets (workload_presets.h) are just named shapes with sources.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace gpuplan::model {

enum class Family { kCnn, kEncoder, kVit, kDecoder, kMoe, kRnn, kEncoderDecoder };

std::optional<Family> ParseFamily(std::string_view text);  // "cnn", "encoder", ...
std::string_view FamilyName(Family family);

struct Workload {
  std::string id;    // preset id, or "custom"
  std::string name;  // human name
  Family family = Family::kDecoder;
  double params = 0;  // total parameters; 0 = derive from the shape

  // Transformers (encoder, vit, decoder, moe) and RNNs.
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // 0 = heads (multi-head attention)
  // Width of one attention head; 0 = hidden / heads. Stated where a model's heads are not
  // hidden / heads wide (Mistral-Nemo 5120 / 32 heads of 128, Gemma-2, gpt-oss): queries and
  // keys/values are heads x head_dim and kv_heads x head_dim wide.
  int head_dim = 0;
  int ffn = 0;       // MLP inner size; 0 = 4 * hidden
  int vocab = 0;
  int seq_len = 0;            // tokens per sample (training sequence length)
  int attention_context = 0;  // keys each query attends to; 0 = seq_len
  bool gated_mlp = false;     // SwiGLU-style MLP (three matrices)
  bool tied_embeddings = false;
  int experts = 0;         // MoE: experts per layer
  int active_experts = 0;  // MoE: experts used per token (top-k)
  // Encoder-decoder: `layers` encoder layers over `seq_len` source tokens, and
  // `decoder_layers` (self-attention, cross-attention, MLP) over `target_len` tokens.
  int decoder_layers = 0;
  int target_len = 0;
  // Longest sequence the model was built for (positions); 0 = not stated (not checked).
  int max_context = 0;
  // Sequences of varying length (padded or token-bucketed batches, e.g. translation): each
  // replica's step work varies with its batch, so data-parallel replicas wait for the
  // slowest (ModelConstants::variable_length_cv). Sequence families only.
  bool variable_length = false;

  // Images (cnn, vit).
  int image_size = 0;  // pixels (voxels when spatial_dims is 3) per side
  int spatial_dims = 2;  // cnn: 2 for images, 3 for volumes (3D U-Nets): how counts scale
  int patch_size = 0;  // vit

  // CNNs (any image classifier described as model zoos do): counts at
  // `reference_image_size`, scaled by pixel count for other sizes.
  double macs_per_sample = 0;   // forward multiply-accumulates
  double flops_per_sample = 0;  // forward FLOPs; 0 = 2 * MACs
  // Output elements of the conv and linear layers per sample: the model-zoo convention
  // (fvcore's activation count, timm's "activations"). Norms and activation functions
  // are not counted; the step model's traffic constant covers them.
  double activation_elements_per_sample = 0;
  int reference_image_size = 0;
  int conv_layers = 0;  // conv + linear layers; 0 = unknown (kDefaultConvLayers)
  double depthwise_macs_share = -1;  // share of MACs in depthwise/grouped convs; -1 = unknown

  // Any family: matmul parameters applied per token, when the shape formula does not
  // describe the model (e.g. adaptive softmax, encoder-decoder RNNs). 0 = derive.
  double matmul_params_per_token = 0;

  std::string source;  // where the shape comes from
};

// How far a stated `params` may be from what a transformer's shape gives (either way).
inline constexpr double kParamsShapeTolerance = 2.0;

// Checks the fields the family needs; a CNN needs its activation count, and a
// transformer's stated params must agree with its shape within kParamsShapeTolerance.
// Errors name the workload field ({Part::kWorkload, "layers"}).
Status ValidateWorkload(const Workload& w);

// The defaults an inline shape (id "custom") relies on, one readable line each (kv_heads
// taken as heads, ffn as 4 x hidden, params derived, CNN counts taken at image_size...),
// for an answer's warnings. Presets define their fields, so they get none.
std::vector<std::string> ShapeDefaults(const Workload& w);

// Kernel-count default for a CNN without conv_layers (ResNet-50 has 54).
inline constexpr int kDefaultConvLayers = 50;

// The shape fields (Workload members, by the names requests give them) that mean nothing
// for `family`: an image_size on a decoder, experts on a dense model, MACs on a
// transformer. A request that sets one is refused, not silently ignored.
std::vector<const char*> ShapeFieldsNotFor(Family family);
// Whether shape field `field` means something for `family` (not one of ShapeFieldsNotFor):
// what a request may set and an answer shows.
bool ShapeFieldApplies(Family family, std::string_view field);

bool IsTransformer(Family family);  // encoder, vit, decoder, moe, encoder_decoder
bool IsDecoderOnly(Family family);  // decoder, moe: served token by token with a KV cache
bool IsImage(Family family);

// Derived quantities (the workload must be valid).
int KvHeads(const Workload& w);
int HeadDim(const Workload& w);  // head_dim, or hidden / heads
int FfnSize(const Workload& w);
int TokensPerSample(const Workload& w);     // sequence tokens, or ViT patches + 1; CNN: 0
int AttentionContext(const Workload& w);    // keys per query
// Sum over layers of the tokens each layer processes, per sample (activation memory and
// traffic scale with it). CNN: 0.
double TokenLayers(const Workload& w);
double ParamsTotal(const Workload& w);      // every parameter, all experts
double MatmulParamsPerToken(const Workload& w);  // parameters in matmuls per token (active)
// The output projection's parameters applied per token: the LM head of decoders, the MLM
// head of encoders (applied to the ~15% masked tokens), none for ViT (its classifier is tiny).
double HeadParamsPerToken(const Workload& w);
// Transformers: the input plus output widths of one layer's projections (QKV, attention
// output, the MLP's matrices; MoE: the active experts'), elements per token.
double ProjectionIoWidth(const Workload& w);
double ForwardFlopsPerSample(const Workload& w);
// CNN counts at image_size relative to reference_image_size: (image / reference) to the
// power spatial_dims; 1 when either size is unknown.
double ImageScale(const Workload& w);
double TrainFlopsPerSample(const Workload& w);  // 3x forward (model FLOPs, no recompute)
// Elements a training step keeps per sample per layer for backward (transformers and
// RNNs), excluding the attention score matrix; see memory.cc.
double ActivationElementsPerTokenLayer(const Workload& w);
// Count of layers that issue kernels (transformer/RNN layers, CNN conv layers).
int KernelLayers(const Workload& w);

}  // namespace gpuplan::model
