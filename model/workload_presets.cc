#include "model/workload_presets.h"

#include <initializer_list>
#include <utility>

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
