#include "model/workload_presets.h"

#include <initializer_list>
#include <utility>

#include <fmt/format.h>

namespace gpuplan::model {

namespace {

Workload Cnn(const char* id, const char* name, double params, double gmacs, double act_m,
             int image, int convs, const char* source) {
  Workload w;
  w.id = id;
  w.name = name;
  w.family = Family::kCnn;
  w.params = params;
  w.macs_per_sample = gmacs * 1e9;
  w.activation_elements_per_sample = act_m * 1e6;
  w.image_size = w.reference_image_size = image;
  w.conv_layers = convs;
  w.source = source;
  return w;
}

Workload Transformer(const char* id, const char* name, Family family, double params, int layers,
                     int hidden, int heads, int kv_heads, int ffn, int vocab, int seq_len,
                     const char* source) {
  Workload w;
  w.id = id;
  w.name = name;
  w.family = family;
  w.params = params;
  w.layers = layers;
  w.hidden = hidden;
  w.heads = heads;
  w.kv_heads = kv_heads;
  w.ffn = ffn;
  w.vocab = vocab;
  w.seq_len = seq_len;
  w.source = source;
  return w;
}

Workload Vit(const char* id, const char* name, double params, int layers, int hidden, int heads,
             int ffn, const char* source) {
  Workload w = Transformer(id, name, Family::kVit, params, layers, hidden, heads, 0, ffn, 0, 0,
                           source);
  w.image_size = 224;
  w.patch_size = 16;
  return w;
}

Workload Llama(const char* id, const char* name, double params, int layers, int hidden,
               int heads, int kv_heads, int ffn, int vocab, int seq_len, const char* source) {
  Workload w = Transformer(id, name, Family::kDecoder, params, layers, hidden, heads, kv_heads,
                           ffn, vocab, seq_len, source);
  w.gated_mlp = true;
  return w;
}

// A decoder LLM as its Hugging Face config.json gives it: a gated-MLP decoder (SwiGLU or
// GeGLU) whose `context` is max_position_embeddings.
Workload Llm(const char* id, const char* name, double params, int layers, int hidden, int heads,
             int kv_heads, int ffn, int vocab, int seq_len, int context, const char* source) {
  Workload w =
      Llama(id, name, params, layers, hidden, heads, kv_heads, ffn, vocab, seq_len, source);
  w.max_context = context;
  return w;
}

Workload Tied(Workload w) {
  w.tied_embeddings = true;
  return w;
}

Workload WithHeadDim(Workload w, int head_dim) {
  w.head_dim = head_dim;
  return w;
}

Workload Moe(Workload w, int experts, int active_experts) {
  w.family = Family::kMoe;
  w.experts = experts;
  w.active_experts = active_experts;
  return w;
}

// d_model 1024, 16 heads, ffn 4096 (the "big"/"large" shape); `len` tokens per side.
Workload EncoderDecoder(const char* id, const char* name, double params, int encoder_layers,
                        int decoder_layers, int vocab, int len, int context, const char* source) {
  Workload w = Transformer(id, name, Family::kEncoderDecoder, params, encoder_layers, 1024, 16,
                           0, 4096, vocab, len, source);
  w.decoder_layers = decoder_layers;
  w.target_len = len;
  w.max_context = context;
  return w;
}

// A 3D U-Net over 128^3 voxel patches: counts from scripts/cnn_macs.py nnunet_3d().
Workload NnUnet3d() {
  Workload w = Cnn("nnunet-3d", "nnU-Net 3D (128^3 patch, 4 channels)", 31.18e6, 482.8, 454.89,
                   128, 28,
                   "Isensee et al. 2021 (nnU-Net, Nature Methods 18:203); NVIDIA "
                   "DeepLearningExamples PyTorch nnU-Net (MONAI DynUNet) for MSD Task01: "
                   "filters min(2^(5+i), 320), 6 levels, two 3^3 convs per level");
  w.spatial_dims = 3;
  return w;
}

// facebook/opt-125m: a GPT-2-like decoder (ReLU MLP, not gated) with learned positions.
Workload OptDecoder() {
  Workload w = Transformer(
      "opt-125m", "OPT-125M", Family::kDecoder, 125e6, 12, 768, 12, 12, 3072, 50272, 2048,
      "Zhang et al. 2022 (arXiv 2205.01068); HF facebook/opt-125m config: 12 layers, hidden "
      "768, 12 heads, ffn_dim 3072 (ReLU, not gated), vocab 50272, 2048 positions, tied "
      "embeddings (OPTConfig's default; word_embed_proj_dim 768); the 1.6 M learned position "
      "embeddings are not in the shape");
  w.tied_embeddings = true;
  w.max_context = 2048;
  return w;
}

// gpt-oss (OpenAI 2025): both sizes share hidden 2880, 64 query heads of 64 (4096 wide, not
// 2880), 8 KV heads, SwiGLU experts of intermediate 2880 with top-4 routing, vocab 201088
// and 131072 positions (YaRN over an initial 4096).
Workload GptOss(const char* id, const char* name, double params, int layers, int experts,
                double active_b, const char* source_head) {
  const std::string source = fmt::format(
      "{}, hidden 2880, 64 heads of head_dim 64, 8 KV heads, {} experts of intermediate 2880, "
      "top-4 ({:.1f} B active), vocab 201088, 131072 positions (YaRN over "
      "initial_context_length 4096); the alternating 128-token sliding-window layers, "
      "attention sinks and biases are not modelled (every layer counted as full attention)",
      source_head, experts, active_b);
  return WithHeadDim(
      Moe(Llm(id, name, params, layers, 2880, 64, 8, 2880, 201088, 4096, 131072, source.c_str()),
          experts, 4),
      64);
}

// Decoder LLMs people serve (vLLM and the like), shapes from each model's Hugging Face
// config.json; params are the published totals. seq_len is a training length: the model's
// original one where its config states it (Llama 3.x 8192, gpt-oss 4096), its whole
// context where that is short (Gemma-2, Phi-3-mini-4k, OPT), else 4096. Attention biases
// (Qwen2, gpt-oss), sliding windows and logit soft-capping are left out of the shape.
std::vector<Workload> ServedLlms() {
  return {
      Llm("llama-3.1-8b", "Llama-3.1-8B", 8.03e9, 32, 4096, 32, 8, 14336, 128256, 8192, 131072,
          "HF meta-llama/Llama-3.1-8B config: 32 layers, hidden 4096, 32 heads, 8 KV heads, "
          "intermediate 14336, vocab 128256, 131072 positions (llama3 RoPE scaling of 8192)"),
      Llm("llama-3.1-70b", "Llama-3.1-70B", 70.6e9, 80, 8192, 64, 8, 28672, 128256, 8192, 131072,
          "HF meta-llama/Llama-3.1-70B config: 80 layers, hidden 8192, 64 heads, 8 KV heads, "
          "intermediate 28672, vocab 128256, 131072 positions"),
      Llm("llama-3.1-405b", "Llama-3.1-405B", 405.9e9, 126, 16384, 128, 8, 53248, 128256, 8192,
          131072,
          "HF meta-llama/Llama-3.1-405B config: 126 layers, hidden 16384, 128 heads, 8 KV "
          "heads, intermediate 53248, vocab 128256, 131072 positions"),
      Tied(Llm("llama-3.2-1b", "Llama-3.2-1B", 1.24e9, 16, 2048, 32, 8, 8192, 128256, 8192, 131072,
               "HF meta-llama/Llama-3.2-1B config: 16 layers, hidden 2048, 32 heads of 64, 8 KV "
               "heads, intermediate 8192, vocab 128256, 131072 positions, tied embeddings")),
      Tied(Llm("llama-3.2-3b", "Llama-3.2-3B", 3.21e9, 28, 3072, 24, 8, 8192, 128256, 8192, 131072,
               "HF meta-llama/Llama-3.2-3B config: 28 layers, hidden 3072, 24 heads of 128, 8 "
               "KV heads, intermediate 8192, vocab 128256, 131072 positions, tied embeddings")),
      Llm("mistral-7b", "Mistral-7B-v0.3", 7.25e9, 32, 4096, 32, 8, 14336, 32768, 4096, 32768,
          "HF mistralai/Mistral-7B-v0.3 config (as litgpt mirrors it): 32 layers, hidden 4096, "
          "32 heads, 8 KV heads, intermediate 14336, vocab 32768 (v0.3's extended "
          "vocabulary), 32768 positions"),
      WithHeadDim(
          Llm("mistral-nemo-12b", "Mistral-Nemo-12B (2407)", 12.2e9, 40, 5120, 32, 8, 14336, 131072,
              4096, 1024000,
              "HF mistralai/Mistral-Nemo-Instruct-2407 config: 40 layers, hidden 5120, 32 "
              "heads of head_dim 128 (not 5120 / 32), 8 KV heads, intermediate 14336, vocab "
              "131072, max_position_embeddings 1024000 (Base-2407: 128000; trained with a 128k "
              "window)"),
          128),
      Moe(Llm("mixtral-8x22b", "Mixtral-8x22B", 140.6e9, 56, 6144, 48, 8, 16384, 32768, 4096, 65536,
              "HF mistralai/Mixtral-8x22B-Instruct-v0.1 config (as litgpt mirrors it): 56 "
              "layers, hidden 6144, 48 heads, 8 KV heads, 8 experts of intermediate 16384, "
              "top-2 (39 B active), vocab 32768, 65536 positions"),
          8, 2),
      Llm("codellama-34b", "CodeLlama-34B", 33.7e9, 48, 8192, 64, 8, 22016, 32000, 4096, 16384,
          "Roziere et al. 2023 (arXiv 2308.12950); HF codellama/CodeLlama-34b-hf config (as "
          "litgpt mirrors it): 48 layers, hidden 8192, 64 heads, 8 KV heads, intermediate "
          "22016, vocab 32000, 16384 positions, RoPE theta 1e6"),
      Llm("mistral-large-2407", "Mistral-Large-2407 (123B)", 122.6e9, 88, 12288, 96, 8, 28672,
          32768, 4096, 131072,
          "HF mistralai/Mistral-Large-Instruct-2407 config (as litgpt and NVIDIA NeMo mirror "
          "it): 88 layers, hidden 12288, 96 heads, 8 KV heads, intermediate 28672, vocab "
          "32768, max_position_embeddings 131072"),
      Tied(Llm("qwen2.5-0.5b", "Qwen2.5-0.5B", 0.49e9, 24, 896, 14, 2, 4864, 151936, 4096, 32768,
               "HF Qwen/Qwen2.5-0.5B-Instruct config: 24 layers, hidden 896, 14 heads, 2 KV "
               "heads, intermediate 4864, vocab 151936, 32768 positions, tied embeddings; QKV "
               "biases not counted")),
      Tied(Llm("qwen2.5-1.5b", "Qwen2.5-1.5B", 1.54e9, 28, 1536, 12, 2, 8960, 151936, 4096, 32768,
               "HF Qwen/Qwen2.5-1.5B-Instruct config: 28 layers, hidden 1536, 12 heads, 2 KV "
               "heads, intermediate 8960, vocab 151936, 32768 positions, tied embeddings; QKV "
               "biases not counted")),
      Tied(Llm("qwen2.5-3b", "Qwen2.5-3B", 3.09e9, 36, 2048, 16, 2, 11008, 151936, 4096, 32768,
               "HF Qwen/Qwen2.5-3B config: 36 layers, hidden 2048, 16 heads, 2 KV heads, "
               "intermediate 11008, vocab 151936, 32768 positions, tied embeddings; QKV biases "
               "not counted")),
      Llm("qwen2.5-7b", "Qwen2.5-7B", 7.61e9, 28, 3584, 28, 4, 18944, 152064, 4096, 131072,
          "HF Qwen/Qwen2.5-7B config: 28 layers, hidden 3584, 28 heads, 4 KV heads, "
          "intermediate 18944, vocab 152064, 131072 positions (the -Instruct config states "
          "32768); QKV biases not counted"),
      Llm("qwen2.5-14b", "Qwen2.5-14B", 14.7e9, 48, 5120, 40, 8, 13824, 152064, 4096, 131072,
          "HF Qwen/Qwen2.5-14B config: 48 layers, hidden 5120, 40 heads, 8 KV heads, "
          "intermediate 13824, vocab 152064, 131072 positions; QKV biases not counted"),
      Tied(WithHeadDim(
          Llm("gemma-2-9b", "Gemma-2-9B", 9.24e9, 42, 3584, 16, 8, 14336, 256000, 8192, 8192,
              "HF google/gemma-2-9b-it config: 42 layers, hidden 3584, 16 heads of head_dim "
              "256 (not 3584 / 16), 8 KV heads, GeGLU intermediate 14336, vocab 256000, 8192 "
              "positions, tied embeddings (Gemma2Config's default); every other layer's "
              "4096-token sliding window and the logit soft-capping are not modelled"),
          256)),
      Llm("phi-3-mini", "Phi-3-mini (3.8B, 4k)", 3.82e9, 32, 3072, 32, 32, 8192, 32064, 4096, 4096,
          "Abdin et al. 2024 (arXiv 2404.14219); HF microsoft/Phi-3-mini-4k-instruct config (as "
          "litgpt mirrors it): 32 layers, hidden 3072, 32 heads (no GQA), gated intermediate "
          "8192 (fused gate_up), vocab 32064, 4096 positions"),
      OptDecoder(),
      GptOss("gpt-oss-20b", "gpt-oss-20b", 20.9e9, 24, 32, 3.6,
             "HF openai/gpt-oss-20b config: 24 layers"),
      GptOss("gpt-oss-120b", "gpt-oss-120b", 116.8e9, 36, 128, 5.1,
             "HF openai/gpt-oss-120b config: 36 layers"),
  };
}

// MosaicML MPT (llm-foundry's benchmark yamls, scripts/train/benchmarking, commit 49521837):
// GPT-style decoders without biases, ffn 4 x hidden (not gated), multi-head attention,
// vocabulary 50368, tied embeddings; seq_len 2048 as the yamls' default (the benchmark table
// runs 512 to 65536). params: 0 = from the shape (the published counts add a learned
// position table of max_seq_len x hidden that the shape leaves out).
std::vector<Workload> MptDecoders() {
  struct Shape {
    const char* id;
    const char* name;
    int layers, hidden, heads;
  };
  constexpr Shape kShapes[] = {
      {"mpt-125m", "MPT-125M", 12, 768, 12},   {"mpt-350m", "MPT-350M", 24, 1024, 16},
      {"mpt-760m", "MPT-760M", 24, 1536, 12},  {"mpt-1b", "MPT-1B", 24, 2048, 16},
      {"mpt-3b", "MPT-3B", 32, 2560, 20},      {"mpt-7b", "MPT-7B", 32, 4096, 32},
      {"mpt-13b", "MPT-13B", 40, 5120, 40},    {"mpt-30b", "MPT-30B", 48, 7168, 64},
      {"mpt-70b", "MPT-70B", 80, 8192, 64},
  };
  std::vector<Workload> out;
  for (const Shape& s : kShapes) {
    const std::string source = fmt::format(
        "mosaicml/llm-foundry scripts/train/benchmarking (commit 49521837) yamls: {} layers, "
        "d_model {}, {} heads, expansion ratio 4, vocab 50368, no biases, tied embeddings, ALiBi",
        s.layers, s.hidden, s.heads);
    out.push_back(Tied(Transformer(s.id, s.name, Family::kDecoder, 0, s.layers, s.hidden, s.heads,
                                   0, 4 * s.hidden, 50368, 2048, source.c_str())));
  }
  return out;
}

std::vector<Workload> BuildPresets() {
  // CNN counts (MACs at the reference size, model-zoo activations = conv/linear output
  // elements, conv + linear layers) come from scripts/cnn_macs.py, which walks the
  // published layer tables; MACs match torchvision, activations timm's published counts
  // (ResNet-50 11.11 M, EfficientNet-B0 6.75 M).
  std::vector<Workload> p = {
      Cnn("resnet-18", "ResNet-18", 11.69e6, 1.814, 2.48, 224, 21,
          "He et al. 2016 (arXiv 1512.03385) Table 1; torchvision: 1.81 GMAC, 11.7 M params"),
      Cnn("resnet-50", "ResNet-50 v1.5", 25.56e6, 4.089, 11.11, 224, 54,
          "He et al. 2016 Table 1; torchvision: 4.09 GMAC, 25.6 M params"),
      Cnn("efficientnet-b0", "EfficientNet-B0", 5.29e6, 0.386, 6.75, 224, 82,
          "Tan & Le 2019 (arXiv 1905.11946) Table 1; torchvision: 0.39 GMAC, 5.3 M params"),
      Cnn("ssd300", "SSD300 (ResNet-50 backbone)", 22.9e6, 19.28, 30.25, 300, 59,
          "Liu et al. 2016 (arXiv 1512.02325); NVIDIA DeepLearningExamples SSD300 v1.1: "
          "ResNet-50 to conv4_x with stride 1, 5 extra blocks, 6 heads, 81 classes"),
      NnUnet3d(),
      Vit("vit-b-16", "ViT-B/16", 86.6e6, 12, 768, 12, 3072,
          "Dosovitskiy et al. 2021 (arXiv 2010.11929) Table 1; torchvision: 17.56 GMAC"),
      Vit("vit-l-16", "ViT-L/16", 304.3e6, 24, 1024, 16, 4096,
          "Dosovitskiy et al. 2021 Table 1; torchvision: 61.55 GMAC"),
      Transformer("bert-base", "BERT-base", Family::kEncoder, 110e6, 12, 768, 12, 0, 3072, 30522,
                  128, "Devlin et al. 2019 (arXiv 1810.04805)"),
      Transformer("bert-large", "BERT-large", Family::kEncoder, 340e6, 24, 1024, 16, 0, 4096,
                  30522, 128, "Devlin et al. 2019 (arXiv 1810.04805)"),
      Transformer("gpt2", "GPT-2 (124M)", Family::kDecoder, 124e6, 12, 768, 12, 0, 3072, 50257,
                  1024, "Radford et al. 2019; HF gpt2 config"),
      Transformer("gpt2-xl", "GPT-2 XL (1.5B)", Family::kDecoder, 1.558e9, 48, 1600, 25, 0, 6400,
                  50257, 1024, "Radford et al. 2019; HF gpt2-xl config"),
      Llama("llama-2-7b", "Llama-2-7B", 6.74e9, 32, 4096, 32, 32, 11008, 32000, 4096,
            "Touvron et al. 2023 (arXiv 2307.09288); HF meta-llama/Llama-2-7b-hf config"),
      Llama("llama-2-13b", "Llama-2-13B", 13.0e9, 40, 5120, 40, 40, 13824, 32000, 4096,
            "Touvron et al. 2023; HF meta-llama/Llama-2-13b-hf config"),
      Llama("llama-3-8b", "Llama-3-8B", 8.03e9, 32, 4096, 32, 8, 14336, 128256, 8192,
            "Llama 3 (arXiv 2407.21783); HF meta-llama/Meta-Llama-3-8B config"),
      Llama("llama-2-70b", "Llama-2-70B", 69.0e9, 80, 8192, 64, 8, 28672, 32000, 4096,
            "Touvron et al. 2023; HF meta-llama/Llama-2-70b-hf config"),
  };
  p[8].tied_embeddings = p[9].tied_embeddings = true;
  p[2].depthwise_macs_share = 0.090;  // scripts/cnn_macs.py
  for (const auto& [id, context] : std::initializer_list<std::pair<const char*, int>>{
           {"bert-base", 512}, {"bert-large", 512}, {"gpt2", 1024}, {"gpt2-xl", 1024},
           {"llama-2-7b", 4096}, {"llama-2-13b", 4096}, {"llama-3-8b", 8192},
           {"llama-2-70b", 4096}}) {
    for (Workload& w : p) {
      if (w.id == id) w.max_context = context;  // position embeddings / RoPE training length
    }
  }

  p.push_back(EncoderDecoder("bart-large", "BART-large", 406e6, 12, 12, 50265, 1024, 1024,
                             "Lewis et al. 2019 (arXiv 1910.13461); HF facebook/bart-large "
                             "config: 12+12 layers, d_model 1024, 16 heads, ffn 4096, vocab "
                             "50265, 1024 positions"));
  p.push_back(EncoderDecoder("transformer-big", "Transformer-big (WMT en-de)", 210e6, 6, 6,
                             32768, 32, 1024,
                             "Vaswani et al. 2017 (arXiv 1706.03762) Table 3 'big'; fairseq "
                             "transformer_wmt_en_de_big_t2t with shared 32k BPE vocabulary as "
                             "in NVIDIA DeepLearningExamples; 32 tokens per side is an assumed "
                             "mean sentence length (WMT14 en-de, BPE)"));

  Workload txl = Transformer(
      "transformer-xl-base", "Transformer-XL base (WikiText-103)", Family::kDecoder, 187e6, 16,
      512, 8, 0, 2048, 267735, 192,
      "Dai et al. 2019 (arXiv 1901.02860) as configured in NVIDIA DeepLearningExamples "
      "(Transformer-XL base: 16 layers, d_model 512, 8 heads, d_inner 2048, tgt_len 192, "
      "mem_len 192, adaptive softmax with cutoffs 20000/40000/200000, div_val 1)");
  txl.attention_context = 384;  // 192 new tokens attend to themselves and 192 of memory
  // 16 * (4*512^2 + 2*512*2048) = 50.3 M matmul parameters in the layers; the adaptive
  // softmax's head cluster (20000 words + 3 cluster logits) x 512 applies to every token.
  // Parameters: 50.3 M + 267735 x 512 embeddings = 187 M.
  txl.matmul_params_per_token = 50.33e6 + 20003.0 * 512;
  p.push_back(txl);

  Workload mixtral = Llama("mixtral-8x7b", "Mixtral-8x7B", 46.7e9, 32, 4096, 32, 8, 14336,
                           32000, 4096,
                           "Jiang et al. 2024 (arXiv 2401.04088): 8 experts, top-2, 12.9 B "
                           "active parameters");
  mixtral.family = Family::kMoe;
  mixtral.experts = 8;
  mixtral.active_experts = 2;
  p.push_back(mixtral);

  Workload gnmt;
  gnmt.id = "gnmt-v2";
  gnmt.name = "GNMT v2 (8-layer LSTM encoder-decoder)";
  gnmt.family = Family::kRnn;
  gnmt.layers = 8;
  gnmt.hidden = 1024;
  gnmt.vocab = 32320;
  gnmt.seq_len = 50;
  gnmt.params = 160e6;
  // Per counted token (source and target tokens alike): the encoder's LSTMs (46 M: a
  // bidirectional first layer and three of input 1024/2048) for source tokens; the
  // decoder's four attention-fed LSTMs (50 M) and the 1024x32320 classifier (33 M) for
  // target tokens; averaged over equal numbers of each.
  gnmt.matmul_params_per_token = (46e6 + 50e6 + 33e6) / 2;
  gnmt.source =
      "Wu et al. 2016 (arXiv 1609.08144); NVIDIA DeepLearningExamples GNMT v2: 4+4 LSTM "
      "layers of 1024, vocabulary 32320, sequences up to 50 tokens";
  p.push_back(gnmt);
  for (Workload& w : ServedLlms()) p.push_back(std::move(w));
  for (Workload& w : MptDecoders()) p.push_back(std::move(w));
  return p;
}

}  // namespace

const std::vector<Workload>& WorkloadPresets() {
  static const std::vector<Workload> presets = BuildPresets();
  return presets;
}

std::optional<Workload> FindPreset(std::string_view id) {
  for (const Workload& w : WorkloadPresets()) {
    if (w.id == id) return w;
  }
  return std::nullopt;
}

}  // namespace gpuplan::model
