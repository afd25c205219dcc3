#include "model/workload.h"

#include <gtest/gtest.h>

#include <string>

#include "model/inference.h"
#include "model/workload_presets.h"

namespace gpuplan::model {
namespace {

TEST(WorkloadPresetsTest, EveryRequiredPresetExistsAndIsValid) {
  for (const char* id : {"resnet-18", "resnet-50", "efficientnet-b0", "ssd300", "vit-b-16",
                         "vit-l-16", "bert-base", "bert-large", "gpt2", "gpt2-xl",
                         "transformer-xl-base", "llama-2-7b", "llama-2-13b", "llama-3-8b",
                         "llama-2-70b", "mixtral-8x7b"}) {
    auto w = FindPreset(id);
    ASSERT_TRUE(w.has_value()) << id;
    EXPECT_TRUE(ValidateWorkload(*w).ok()) << id;
    EXPECT_FALSE(w->source.empty()) << id;
    EXPECT_GT(TrainFlopsPerSample(*w), 0) << id;
  }
}

// Decoder LLMs people serve, shapes from their Hugging Face configs.
constexpr const char* kServedLlms[] = {
    "llama-3.1-8b",  "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b",       "llama-3.2-3b",
    "mistral-7b",    "mistral-nemo-12b", "mixtral-8x22b", "codellama-34b",   "mistral-large-2407",
    "qwen2.5-0.5b",  "qwen2.5-1.5b",  "qwen2.5-3b",     "qwen2.5-7b",         "qwen2.5-14b",
    "gemma-2-9b",    "phi-3-mini",    "opt-125m",       "gpt-oss-20b",        "gpt-oss-120b"};

TEST(WorkloadPresetsTest, ServedLlmsAreValidDecodersWithTheirContext) {
  for (const char* id : kServedLlms) {
    auto w = FindPreset(id);
    ASSERT_TRUE(w.has_value()) << id;
    EXPECT_TRUE(ValidateWorkload(*w).ok()) << id;
    EXPECT_TRUE(w->family == Family::kDecoder || w->family == Family::kMoe) << id;
    EXPECT_NE(w->source.find("HF "), std::string::npos) << id << ": " << w->source;
    EXPECT_GT(w->max_context, 0) << id;
    EXPECT_LE(w->seq_len, w->max_context) << id;
  }
  EXPECT_EQ(FindPreset("llama-3.1-8b")->max_context, 131072);
  EXPECT_EQ(FindPreset("opt-125m")->max_context, 2048);
  EXPECT_FALSE(FindPreset("opt-125m")->gated_mlp);
  for (const char* id : {"llama-3.2-1b", "llama-3.2-3b", "qwen2.5-0.5b", "qwen2.5-1.5b",
                         "qwen2.5-3b", "gemma-2-9b", "opt-125m"}) {
    EXPECT_TRUE(FindPreset(id)->tied_embeddings) << id;
  }
  for (const char* id : {"llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "gpt-oss-20b"}) {
    EXPECT_FALSE(FindPreset(id)->tied_embeddings) << id;
  }
}

TEST(WorkloadTest, ServedLlmParamsAgreeWithTheirShape) {
  // The published totals; the shape leaves out biases, norms and learned positions (OPT's
  // 1.6 M), so it lands within 2 % of them.
  for (const char* id : kServedLlms) {
    Workload w = *FindPreset(id);
    double published = w.params;
    w.params = 0;
    EXPECT_NEAR(ParamsTotal(w) / published, 1.0, 0.02) << id;
  }
  struct Case {
    const char* id;
    double active;  // published active parameters per token
  } moe[] = {{"mixtral-8x22b", 39e9}, {"gpt-oss-20b", 3.6e9}, {"gpt-oss-120b", 5.1e9}};
  for (const Case& c : moe) {
    Workload w = *FindPreset(c.id);
    EXPECT_NEAR(MatmulParamsPerToken(w) / c.active, 1.0, 0.03) << c.id;
  }
}

TEST(WorkloadTest, HeadDimSetsTheAttentionWidth) {
  // Mistral-Nemo: 32 heads of 128 (4096 wide) and 8 KV heads of 128 on hidden 5120.
  Workload nemo = *FindPreset("mistral-nemo-12b");
  EXPECT_EQ(HeadDim(nemo), 128);
  nemo.params = 0;
  double stated = ParamsTotal(nemo);
  Workload even = nemo;
  even.head_dim = 0;  // 5120 / 32 = 160
  EXPECT_EQ(HeadDim(even), 160);
  EXPECT_DOUBLE_EQ(stated - ParamsTotal(even),
                   40.0 * (2 * 5120.0 * (4096 - 5120) + 2 * 5120.0 * 8 * (128 - 160)));
  EXPECT_NEAR(stated, 12.25e9, 0.01e9);
  // The attention matmuls (QK^T, AV) are heads x head_dim wide: Gemma-2-9B 16 x 256 = 4096.
  Workload gemma = *FindPreset("gemma-2-9b");
  double tokens = gemma.seq_len;
  EXPECT_NEAR(ForwardFlopsPerSample(gemma) - 2 * MatmulParamsPerToken(gemma) * tokens,
              4.0 * 42 * 4096 * tokens * tokens, 1e6);
  // A hidden size no multiple of the heads is a shape once the head width is stated.
  Workload odd = *FindPreset("gpt-oss-20b");
  odd.hidden = 2881;
  EXPECT_TRUE(ValidateWorkload(odd).ok());
  odd.head_dim = 0;
  EXPECT_EQ(ValidateWorkload(odd).error().fields.at(0).id, FieldId(Part::kWorkload, "heads"));
  odd.head_dim = -64;
  EXPECT_EQ(ValidateWorkload(odd).error().fields.at(0).id, FieldId(Part::kWorkload, "head_dim"));
}

TEST(WorkloadTest, ParameterCountsFollowFromTheShape) {
  // The shape formula must land near the published parameter counts.
  struct Case {
    const char* id;
    double published;
  } cases[] = {{"bert-large", 340e6}, {"gpt2", 124e6},       {"gpt2-xl", 1.558e9},
               {"llama-2-7b", 6.74e9}, {"llama-2-13b", 13.0e9}, {"llama-2-70b", 69.0e9},
               {"llama-3-8b", 8.03e9}, {"mixtral-8x7b", 46.7e9}, {"vit-b-16", 86.6e6}};
  for (const Case& c : cases) {
    Workload w = *FindPreset(c.id);
    w.params = 0;  // derive
    EXPECT_NEAR(ParamsTotal(w) / c.published, 1.0, 0.05) << c.id;
  }
}

TEST(WorkloadTest, DecoderTrainingFlopsAreSixNDWithShortContext) {
  Workload w = *FindPreset("gpt2-xl");
  w.seq_len = 64;  // s << 6h: the attention term is negligible
  double per_token = TrainFlopsPerSample(w) / w.seq_len;
  EXPECT_NEAR(per_token / (6 * MatmulParamsPerToken(w)), 1.0, 0.01);
  // And 6N for N = all parameters but the input embedding.
  double n = ParamsTotal(w) - static_cast<double>(w.vocab) * w.hidden;
  EXPECT_NEAR(per_token / (6 * (n + static_cast<double>(w.vocab) * w.hidden)), 1.0, 0.05);
}

TEST(WorkloadTest, VitFlopsMatchTorchvision) {
  // torchvision: ViT-B/16 17.56 GMAC forward at 224.
  EXPECT_NEAR(ForwardFlopsPerSample(*FindPreset("vit-b-16")) / 2 / 17.56e9, 1.0, 0.03);
  EXPECT_NEAR(ForwardFlopsPerSample(*FindPreset("vit-l-16")) / 2 / 61.55e9, 1.0, 0.03);
}

TEST(WorkloadTest, CnnFlopsAreTwiceTheMacsAndScaleWithPixels) {
  Workload w = *FindPreset("resnet-50");
  EXPECT_DOUBLE_EQ(ForwardFlopsPerSample(w), 2 * 4.089e9);
  EXPECT_DOUBLE_EQ(TrainFlopsPerSample(w), 3 * 2 * 4.089e9);
  w.image_size = 448;
  EXPECT_DOUBLE_EQ(ForwardFlopsPerSample(w), 4 * 2 * 4.089e9);
}

TEST(WorkloadTest, VolumetricCountsScaleWithVoxels) {
  Workload w = *FindPreset("nnunet-3d");
  EXPECT_EQ(w.spatial_dims, 3);
  double flops = ForwardFlopsPerSample(w);
  EXPECT_DOUBLE_EQ(flops, 2 * 482.8e9);
  w.image_size = 256;  // twice the side: eight times the voxels
  EXPECT_DOUBLE_EQ(ForwardFlopsPerSample(w), 8 * flops);
  EXPECT_DOUBLE_EQ(ImageScale(w), 8.0);
  w.spatial_dims = 2;
  EXPECT_DOUBLE_EQ(ImageScale(w), 4.0);
}

TEST(WorkloadTest, MoeCountsActiveExpertsPerToken) {
  Workload w = *FindPreset("mixtral-8x7b");
  w.params = 0;
  EXPECT_NEAR(MatmulParamsPerToken(w) / 12.9e9, 1.0, 0.06);  // published active params
}

TEST(WorkloadTest, KvCacheOfLlama2_70bIs320KiBPerTokenInBf16) {
  EXPECT_DOUBLE_EQ(KvCacheBytesPerToken(*FindPreset("llama-2-70b"), 2),
                   320.0 * 1024);
  EXPECT_DOUBLE_EQ(KvCacheBytesPerToken(*FindPreset("llama-2-7b"), 2),
                   512.0 * 1024);
  EXPECT_DOUBLE_EQ(KvCacheBytesPerToken(*FindPreset("llama-3-8b"), 2),
                   128.0 * 1024);
}

TEST(WorkloadTest, KvCacheUsesTheStatedHeadDim) {
  // 2 (K and V) x layers x KV heads x head_dim x 2 bytes: hidden / heads would give 200 KiB
  // for Mistral-Nemo, 294 KiB for Gemma-2-9B and 34 KiB for gpt-oss-20b.
  struct Case {
    const char* id;
    double kib;
  } cases[] = {{"mistral-nemo-12b", 2 * 40 * 8 * 128 * 2 / 1024.0},
               {"gemma-2-9b", 2 * 42 * 8 * 256 * 2 / 1024.0},
               {"gpt-oss-20b", 2 * 24 * 8 * 64 * 2 / 1024.0},
               {"gpt-oss-120b", 2 * 36 * 8 * 64 * 2 / 1024.0},
               {"llama-3.1-405b", 2 * 126 * 8 * 128 * 2 / 1024.0}};
  for (const Case& c : cases) {
    EXPECT_DOUBLE_EQ(KvCacheBytesPerToken(*FindPreset(c.id), 2), c.kib * 1024)
        << c.id;
  }
  EXPECT_DOUBLE_EQ(KvCacheBytesPerToken(*FindPreset("mistral-nemo-12b"), 1),
                   80.0 * 1024);
}

// model/ names a field by its object and its own name; where a request carries the workload
// is the wire layer's business (api/field_names.h), so no request path is in the error.
TEST(WorkloadTest, ErrorsNameTheWorkloadFieldNotARequestPath) {
  Workload w = *FindPreset("llama-2-7b");
  w.params = 1e9;
  Status s = ValidateWorkload(w);
  ASSERT_FALSE(s.ok());
  ASSERT_EQ(s.error().fields.size(), 1u);
  const FieldError& f = s.error().fields[0];
  EXPECT_EQ(f.id.object, Part::kWorkload);
  EXPECT_EQ(f.id.name, "params");
  EXPECT_TRUE(f.id.within.empty());
  EXPECT_EQ(f.field, "");  // no wire name: model/ knows no request layout
}

TEST(WorkloadTest, InvalidShapesNameTheField) {
  struct Case {
    void (*mutate)(Workload&);
    const char* field;  // of the workload
  } cases[] = {
      {[](Workload& w) { w.params = -1; }, "params"},
      {[](Workload& w) { w.layers = 0; }, "layers"},
      {[](Workload& w) { w.heads = 7; }, "heads"},
      {[](Workload& w) { w.kv_heads = 3; }, "kv_heads"},
      {[](Workload& w) { w.seq_len = 0; }, "seq_len"},
      // A 7 B label on a shape of ~65 B (layers x 9, hidden x 3) and the reverse.
      {[](Workload& w) { w.layers = 288; }, "params"},
      {[](Workload& w) { w.params = 1e9; }, "params"},
  };
  for (const Case& c : cases) {
    Workload w = *FindPreset("llama-2-7b");
    c.mutate(w);
    Status s = ValidateWorkload(w);
    ASSERT_FALSE(s.ok()) << c.field;
    EXPECT_EQ(s.error().fields.at(0).id, FieldId(Part::kWorkload, c.field));
  }
  Workload cnn = *FindPreset("resnet-50");
  cnn.macs_per_sample = 0;
  EXPECT_EQ(ValidateWorkload(cnn).error().fields.at(0).id,
            FieldId(Part::kWorkload, "macs_per_sample"));
  Workload no_activations = *FindPreset("resnet-50");
  no_activations.activation_elements_per_sample = 0;
  EXPECT_EQ(ValidateWorkload(no_activations).error().fields.at(0).id,
            FieldId(Part::kWorkload, "activation_elements_per_sample"));
  // Within the tolerance a stated params wins over the shape (tied heads, biases...).
  Workload close = *FindPreset("llama-2-7b");
  close.params *= 1.3;
  EXPECT_TRUE(ValidateWorkload(close).ok());
}

}  // namespace
}  // namespace gpuplan::model
