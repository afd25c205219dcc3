#include "model/workload.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "model/counts.h"
#include "model/enum_names.h"

namespace gpuplan::model {

namespace {

constexpr EnumNames<Family, 7> kFamilies = {{
    {"cnn", Family::kCnn},
    {"encoder", Family::kEncoder},
    {"vit", Family::kVit},
    {"decoder", Family::kDecoder},
    {"moe", Family::kMoe},
    {"rnn", Family::kRnn},
    {"encoder_decoder", Family::kEncoderDecoder},
}};

Status Positive(double value, const char* field, const char* what) {
  if (!(value > 0) || !std::isfinite(value)) {
    return Error::Invalid({Part::kWorkload, field},
                          std::string(field) + " must be positive for a " + what + " workload");
  }
  return OkStatus();
}

Status NonNegative(double value, const char* field) {
  if (!(value >= 0) || !std::isfinite(value)) {
    return Error::Invalid({Part::kWorkload, field}, std::string(field) + " must not be negative");
  }
  return OkStatus();
}

}  // namespace

double ImageScale(const Workload& w) {
  if (w.reference_image_size <= 0 || w.image_size <= 0) return 1.0;
  double ratio = static_cast<double>(w.image_size) / w.reference_image_size;
  return std::pow(ratio, w.spatial_dims == 3 ? 3 : 2);
}

std::optional<Family> ParseFamily(std::string_view text) { return ParseEnum(kFamilies, text); }

std::string_view FamilyName(Family family) { return EnumName(kFamilies, family); }

bool IsDecoderOnly(Family f) { return f == Family::kDecoder || f == Family::kMoe; }

bool IsTransformer(Family f) {
  return f == Family::kEncoder || f == Family::kVit || f == Family::kDecoder ||
         f == Family::kMoe || f == Family::kEncoderDecoder;
}

std::vector<std::string> ShapeDefaults(const Workload& w) {
  std::vector<std::string> out;
  if (w.id != "custom") return out;
  auto number = [](double v) { return fmt::format("{:.3g}", v); };
  if (w.family == Family::kCnn) {
    if (w.conv_layers <= 0) {
      out.push_back("conv_layers not given: " + std::to_string(kDefaultConvLayers) +
                    " conv/linear layers assumed for kernel and launch counts");
    }
    if (w.depthwise_macs_share < 0) {
      out.push_back("depthwise_macs_share not given: taken as 0 (no depthwise or grouped "
                    "convs); depthwise-separable networks (MobileNet, EfficientNet, ConvNeXt) "
                    "are slower than this answer, so state the share");
    }
    if (w.image_size <= 0) {
      out.push_back("image_size not given: macs and activations taken as stated, per sample");
    } else if (w.reference_image_size <= 0) {
      out.push_back("reference_image_size not given: macs and activations taken as measured at "
                    "image_size " + std::to_string(w.image_size) + " px");
    }
    return out;
  }
  if (w.params <= 0) out.push_back("params not given: " + number(ParamsTotal(w)) + " from the shape");
  if (IsTransformer(w.family)) {
    if (w.kv_heads <= 0) {
      out.push_back("kv_heads not given: multi-head attention assumed (a key/value head per "
                    "query head, no grouped-query attention)");
    }
    if (w.ffn <= 0) out.push_back("ffn not given: 4 x hidden = " + std::to_string(FfnSize(w)));
  }
  return out;
}

bool IsImage(Family f) { return f == Family::kCnn || f == Family::kVit; }

namespace {

// A stated parameter count must agree with the shape (within 2x either way): a 64.7 B
// shape labelled 7 B would otherwise "fit" where it cannot.
Status CheckParamsAgainstShape(const Workload& w) {
  if (!(w.params > 0) || !IsTransformer(w.family)) return OkStatus();
  Workload shape = w;
  shape.params = 0;
  double derived = ParamsTotal(shape);
  if (derived > 0 && (w.params < derived / kParamsShapeTolerance ||
                      w.params > derived * kParamsShapeTolerance)) {
    return Error::Invalid({Part::kWorkload, "params"},
                          fmt::format("params {:.4g} disagrees with the shape (layers x hidden x "
                                      "... gives {:.4g}); fix the shape or leave params out",
                                      w.params, derived));
  }
  return OkStatus();
}

}  // namespace

Status ValidateWorkload(const Workload& w) {
  for (auto [value, field] : {std::pair<double, const char*>{w.params, "params"},
                              {static_cast<double>(w.layers), "layers"},
                              {static_cast<double>(w.hidden), "hidden"},
                              {static_cast<double>(w.heads), "heads"},
                              {static_cast<double>(w.kv_heads), "kv_heads"},
                              {static_cast<double>(w.head_dim), "head_dim"},
                              {static_cast<double>(w.ffn), "ffn"},
                              {static_cast<double>(w.vocab), "vocab"},
                              {static_cast<double>(w.seq_len), "seq_len"},
                              {static_cast<double>(w.attention_context), "attention_context"},
                              {static_cast<double>(w.image_size), "image_size"},
                              {w.macs_per_sample, "macs_per_sample"},
                              {w.flops_per_sample, "flops_per_sample"},
                              {w.matmul_params_per_token, "matmul_params_per_token"}}) {
    Status s = NonNegative(value, field);
    if (!s.ok()) return s;
  }
  const char* what = FamilyName(w.family).data();
  if (w.family == Family::kCnn) {
    if (w.macs_per_sample <= 0 && w.flops_per_sample <= 0) {
      return Error::Invalid({Part::kWorkload, "macs_per_sample"},
                            "a cnn workload needs macs_per_sample or flops_per_sample");
    }
    // Without it a CNN would have no activation traffic or memory: 4-12x too fast and
    // any batch "fits". Model zoos publish it next to params and MACs.
    if (!(w.activation_elements_per_sample > 0)) {
      return Error::Invalid({Part::kWorkload, "activation_elements_per_sample"},
                            "a cnn workload needs activation_elements_per_sample (outputs of "
                            "its conv, norm and activation layers per sample)");
    }
    if (w.depthwise_macs_share > 1 || !std::isfinite(w.depthwise_macs_share)) {
      return Error::Invalid({Part::kWorkload, "depthwise_macs_share"},
                            "depthwise_macs_share is a share of the MACs, from 0 to 1");
    }
    return Positive(w.params, "params", what);
  }
  if (w.family == Family::kRnn) {
    for (auto [value, field] : {std::pair<double, const char*>{double(w.layers), "layers"},
                                {double(w.hidden), "hidden"},
                                {double(w.seq_len), "seq_len"}}) {
      Status s = Positive(value, field, what);
      if (!s.ok()) return s;
    }
    return OkStatus();
  }
  for (auto [value, field] : {std::pair<double, const char*>{double(w.layers), "layers"},
                              {double(w.hidden), "hidden"},
                              {double(w.heads), "heads"}}) {
    Status s = Positive(value, field, what);
    if (!s.ok()) return s;
  }
  if (w.head_dim == 0 && w.hidden % w.heads != 0) {
    return Error::Invalid({Part::kWorkload, "heads"},
                          "hidden must be a multiple of heads (or head_dim given)");
  }
  if (w.kv_heads > 0 && w.heads % w.kv_heads != 0) {
    return Error::Invalid({Part::kWorkload, "kv_heads"}, "heads must be a multiple of kv_heads");
  }
  if (w.family == Family::kVit) {
    Status s = Positive(w.image_size, "image_size", what);
    if (s.ok()) s = Positive(w.patch_size, "patch_size", what);
    if (!s.ok()) return s;
    if (w.image_size % w.patch_size != 0) {
      return Error::Invalid({Part::kWorkload, "patch_size"},
                            "image_size must be a multiple of patch_size");
    }
    const long long side = w.image_size / w.patch_size;
    if (side * side + 1 > kMaxTokensPerSample) {
      return Error::Invalid({Part::kWorkload, "patch_size"},
                            std::to_string(side * side) +
                                " patches per image: over the maximum "
                                "of " +
                                std::to_string(kMaxTokensPerSample) + " tokens per sample");
    }
    return OkStatus();
  }
  Status s = Positive(w.seq_len, "seq_len", what);
  if (!s.ok()) return s;
  for (auto [len, field] : {std::pair<int, const char*>{w.seq_len, "seq_len"},
                            {w.target_len, "target_len"}}) {
    if (len > kMaxTokensPerSample) {
      return Error::Invalid({Part::kWorkload, field}, std::string(field) + " must not exceed " +
                                                          std::to_string(kMaxTokensPerSample) +
                                                          " tokens");
    }
  }
  if (w.family == Family::kEncoderDecoder) {
    s = Positive(w.decoder_layers, "decoder_layers", what);
    if (s.ok()) s = Positive(w.target_len, "target_len", what);
    if (!s.ok()) return s;
  }
  if (w.max_context > 0) {
    for (auto [len, field] : {std::pair<int, const char*>{w.seq_len, "seq_len"},
                              {w.target_len, "target_len"}}) {
      if (len > w.max_context) {
        return Error::Invalid({Part::kWorkload, field},
                              std::string(field) + " " + std::to_string(len) +
                                  " is beyond the model's context of " +
                                  std::to_string(w.max_context) + " tokens");
      }
    }
  }
  if (w.family == Family::kMoe) {
    s = Positive(w.experts, "experts", what);
    if (s.ok()) s = Positive(w.active_experts, "active_experts", what);
    if (!s.ok()) return s;
    if (w.active_experts > w.experts) {
      return Error::Invalid({Part::kWorkload, "active_experts"},
                            "active_experts must not exceed experts");
    }
  }
  return CheckParamsAgainstShape(w);
}

int KvHeads(const Workload& w) { return w.kv_heads > 0 ? w.kv_heads : w.heads; }
int HeadDim(const Workload& w) { return w.head_dim > 0 ? w.head_dim : w.hidden / w.heads; }
int FfnSize(const Workload& w) { return w.ffn > 0 ? w.ffn : 4 * w.hidden; }

int TokensPerSample(const Workload& w) {
  if (w.family == Family::kCnn) return 0;
  if (w.family == Family::kVit) {
    int side = w.image_size / w.patch_size;
    return side * side + 1;
  }
  if (w.family == Family::kEncoderDecoder) return w.seq_len + w.target_len;
  return w.seq_len;
}

double TokenLayers(const Workload& w) {
  if (w.family == Family::kCnn) return 0;
  if (w.family == Family::kEncoderDecoder) {
    // A decoder layer keeps about 4/3 of an encoder layer's activations (cross-attention).
    return static_cast<double>(w.seq_len) * w.layers +
           4.0 / 3.0 * static_cast<double>(w.target_len) * w.decoder_layers;
  }
  return static_cast<double>(TokensPerSample(w)) * w.layers;
}

int AttentionContext(const Workload& w) {
  return w.attention_context > 0 ? w.attention_context : TokensPerSample(w);
}

namespace {

// Width of the queries (and of the attention output): heads x head_dim, hidden unless
// head_dim is stated.
double QueryWidth(const Workload& w) { return static_cast<double>(w.heads) * HeadDim(w); }

// Attention projections and the MLP of one transformer layer, per token, as parameters.
double AttentionParams(const Workload& w) {
  double h = w.hidden, kv = static_cast<double>(KvHeads(w)) * HeadDim(w);
  return 2 * h * QueryWidth(w) + 2 * h * kv;
}

double MlpParams(const Workload& w) {
  return (w.gated_mlp ? 3.0 : 2.0) * w.hidden * FfnSize(w);
}

}  // namespace

double HeadParamsPerToken(const Workload& w) {
  double head = static_cast<double>(w.vocab) * w.hidden;
  if (w.family == Family::kEncoder) return 0.15 * head;
  if (w.family == Family::kVit) return 0;
  return head;
}

double ProjectionIoWidth(const Workload& w) {
  const double h = w.hidden, q = QueryWidth(w), kv = static_cast<double>(KvHeads(w)) * HeadDim(w);
  const double f = FfnSize(w);
  const double attention = (h + q + 2 * kv) + (q + h);
  double mlp = (h + (w.gated_mlp ? 2 : 1) * f) + (f + h);
  if (w.family == Family::kMoe) mlp *= std::max(1, w.active_experts);
  return attention + mlp;
}

namespace {
// Encoder-decoder matmul parameters per sample's tokens: encoder layers on the source,
// decoder layers (self- and cross-attention, MLP) and the output head on the target.
double EncoderDecoderMatmulParamTokens(const Workload& w) {
  double encoder = w.layers * (AttentionParams(w) + MlpParams(w));
  double decoder = w.decoder_layers * (2 * AttentionParams(w) + MlpParams(w)) +
                   static_cast<double>(w.vocab) * w.hidden;
  return encoder * w.seq_len + decoder * w.target_len;
}
}  // namespace

double MatmulParamsPerToken(const Workload& w) {
  if (w.matmul_params_per_token > 0) return w.matmul_params_per_token;
  if (w.family == Family::kEncoderDecoder) {
    return EncoderDecoderMatmulParamTokens(w) / TokensPerSample(w);
  }
  if (w.family == Family::kCnn) return w.params;
  if (w.family == Family::kRnn) {
    // LSTM: four gates over [input, hidden] per layer, plus the output projection.
    return w.layers * 8.0 * w.hidden * w.hidden + static_cast<double>(w.vocab) * w.hidden;
  }
  double mlp = MlpParams(w);
  if (w.family == Family::kMoe) mlp *= w.active_experts;
  return w.layers * (AttentionParams(w) + mlp) + HeadParamsPerToken(w);
}

double ParamsTotal(const Workload& w) {
  if (w.params > 0) return w.params;
  if (w.family == Family::kRnn) {
    return MatmulParamsPerToken(w) + static_cast<double>(w.vocab) * w.hidden;
  }
  double mlp = MlpParams(w);
  if (w.family == Family::kMoe) mlp *= w.experts;
  double embeddings = static_cast<double>(w.vocab) * w.hidden;
  if (w.family == Family::kEncoderDecoder) {  // shared, tied embeddings (BART, T5, fairseq)
    return w.layers * (AttentionParams(w) + mlp) +
           w.decoder_layers * (2 * AttentionParams(w) + mlp) + embeddings;
  }
  if (IsDecoderOnly(w.family)) {
    embeddings *= w.tied_embeddings ? 1 : 2;
  }
  if (w.family == Family::kVit) {
    embeddings = 3.0 * w.patch_size * w.patch_size * w.hidden +
                 static_cast<double>(TokensPerSample(w)) * w.hidden;
  }
  return w.layers * (AttentionParams(w) + mlp) + embeddings;
}

double ForwardFlopsPerSample(const Workload& w) {
  if (w.family == Family::kCnn) {
    double base = w.flops_per_sample > 0 ? w.flops_per_sample : 2 * w.macs_per_sample;
    return base * ImageScale(w);
  }
  double tokens = TokensPerSample(w);
  double flops = 2 * MatmulParamsPerToken(w) * tokens;
  if (w.family == Family::kEncoderDecoder) {
    double q = QueryWidth(w), s = w.seq_len, t = w.target_len;
    // Encoder self-attention, decoder self-attention and cross-attention.
    return flops + 4.0 * q * (w.layers * s * s + w.decoder_layers * (t * t + t * s));
  }
  if (IsTransformer(w.family)) {
    // QK^T and attention x V: 2 matmuls of tokens x context x heads x head_dim, 2 FLOPs
    // per MAC.
    flops += 4.0 * w.layers * QueryWidth(w) * tokens * AttentionContext(w);
  }
  return flops;
}

double TrainFlopsPerSample(const Workload& w) { return 3 * ForwardFlopsPerSample(w); }

double ActivationElementsPerTokenLayer(const Workload& w) {
  if (w.family == Family::kRnn) return 10.0 * w.hidden;  // 4 gates, cell, hidden, inputs
  // Korthikanti et al. 2022 count 34 bytes per token and hidden unit per layer in 16-bit
  // with f = 4h: attention 11h, norms 4h, MLP 3h + 4f (gated MLP: 3h + 8f). In elements
  // (2 bytes) that is half of the bytes.
  double f = FfnSize(w);
  double mlp = 3.0 * w.hidden + (w.gated_mlp ? 8.0 : 4.0) * f;
  if (w.family == Family::kMoe) mlp *= w.active_experts;
  return (15.0 * w.hidden + mlp) / 2.0;
}

int KernelLayers(const Workload& w) {
  if (w.family == Family::kCnn) return w.conv_layers > 0 ? w.conv_layers : kDefaultConvLayers;
  if (w.family == Family::kEncoderDecoder) return w.layers + w.decoder_layers;
  return w.layers;
}

std::vector<const char*> ShapeFieldsNotFor(Family family) {
  using F = Family;
  const std::vector<const char*> image_counts = {"macs_per_sample", "flops_per_sample",
                                                 "activation_elements_per_sample",
                                                 "reference_image_size", "conv_layers",
                                                 "depthwise_macs_share", "spatial_dims"};
  const std::vector<const char*> moe = {"experts", "active_experts"};
  const std::vector<const char*> seq2seq = {"decoder_layers", "target_len"};
  std::vector<const char*> out;
  auto add = [&](const std::vector<const char*>& keys) {
    out.insert(out.end(), keys.begin(), keys.end());
  };
  switch (family) {
    case F::kCnn:
      add({"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "seq_len",
           "attention_context", "patch_size", "gated_mlp", "tied_embeddings", "max_context",
           "variable_length"});
      add(moe);
      add(seq2seq);
      break;
    case F::kRnn:
      add({"heads", "kv_heads", "head_dim", "ffn", "attention_context", "image_size", "patch_size",
           "gated_mlp"});
      add(image_counts);
      add(moe);
      add(seq2seq);
      break;
    case F::kVit:
      add({"vocab", "seq_len", "tied_embeddings", "max_context", "variable_length"});
      add(image_counts);
      add(moe);
      add(seq2seq);
      break;
    case F::kEncoder:
    case F::kDecoder:
      add({"image_size", "patch_size"});
      add(image_counts);
      add(moe);
      add(seq2seq);
      break;
    case F::kMoe:
      add({"image_size", "patch_size"});
      add(image_counts);
      add(seq2seq);
      break;
    case F::kEncoderDecoder:
      add({"image_size", "patch_size", "attention_context", "tied_embeddings"});
      add(image_counts);
      add(moe);
      break;
  }
  return out;
}

bool ShapeFieldApplies(Family family, std::string_view field) {
  // ShapeFieldsNotFor builds its list: every family's is built once (a renderer asks per
  // field of every workload it writes).
  static const auto kNotFor = [] {
    static_assert(static_cast<size_t>(Family::kEncoderDecoder) == 6, "one list per family");
    std::array<std::vector<std::string_view>, 7> lists;
    for (Family f : {Family::kCnn, Family::kEncoder, Family::kVit, Family::kDecoder,
                     Family::kMoe, Family::kRnn, Family::kEncoderDecoder}) {
      for (const char* name : ShapeFieldsNotFor(f)) {
        lists[static_cast<size_t>(f)].emplace_back(name);
      }
    }
    return lists;
  }();
  const auto& not_for = kNotFor.at(static_cast<size_t>(family));
  return std::find(not_for.begin(), not_for.end(), field) == not_for.end();
}

}  // namespace gpuplan::model
