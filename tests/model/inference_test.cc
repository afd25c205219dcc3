#include "model/inference.h"

#include <gtest/gtest.h>

#include "model/workload_presets.h"
#include "tests/model/model_fixtures.h"

namespace gpuplan::model {
namespace {

using testing::A100_80;
using testing::Chat;
using testing::Node;
using testing::T4;

TEST(InferenceTest, NodesOutsideTheModelsRangeAreErrorsNotEndlessLoops) {
  // 2^30 GPUs per node once overflowed the tensor-parallel loop and grew memory forever.
  for (int gpus : {0, 65, 1 << 30, 2147483647}) {
    NodeSpec node = Node(A100_80(), 1).node;
    node.gpus_per_node = gpus;
    auto e = EstimateServing(*FindPreset("llama-2-7b"), node, Chat(50, 20));
    ASSERT_FALSE(e.ok()) << gpus;
    EXPECT_EQ(e.error().fields.at(0).id, FieldId(Part::kHardware, "gpus_per_node"));
  }
  NodeSpec largest = Node(A100_80(), 1).node;
  largest.gpus_per_node = kMaxGpusPerNode;
  EXPECT_TRUE(EstimateServing(*FindPreset("llama-2-7b"), largest, Chat(50, 20)).ok());
}

// Issue 22, finding 4: 1e9 requests/s of 4000 + 4000 tokens on 8x A100 needed more replicas
// than an int holds; the cast to int made them -2147483648 (and a negative cost).
TEST(InferenceTest, ALoadBeyondTheGpuMaximumIsAnErrorNotAnOverflowedCount) {
  ServingRequest r = Chat(1e9, 0);
  r.input_tokens = r.output_tokens = 2000;
  auto e = EstimateServing(*FindPreset("llama-2-70b"), Node(A100_80(), 8).node, r);
  ASSERT_FALSE(e.ok()) << "replicas " << e->replicas << ", total_gpus " << e->total_gpus;
  EXPECT_EQ(e.error().fields.at(0).id, FieldId(Part::kServing, "target_requests_per_s"));
  EXPECT_NE(e.error().message.find("over the maximum of 262144 GPUs"), std::string::npos)
      << e.error().message;
}

// Every load either is refused on the target or has whole, consistent, bounded counts.
TEST(InferenceTest, ReplicasTimesGpusPerReplicaIsTheTotalUpToTheMaximum) {
  for (const char* id : {"llama-2-70b", "llama-2-7b", "resnet-50"}) {
    for (double rps : {0.0, 5e-324, 1.0, 1e3, 1e5, 1e7, 1e9, 1e300}) {
      ServingRequest r = Chat(rps, 0);
      r.input_tokens = r.output_tokens = 2000;
      auto e = EstimateServing(*FindPreset(id), Node(A100_80(), 8).node, r);
      if (!e.ok()) {
        EXPECT_EQ(e.error().fields.at(0).id, FieldId(Part::kServing, "target_requests_per_s"))
            << id << " " << rps;
        continue;
      }
      EXPECT_GE(e->replicas, 1) << id << " " << rps;
      EXPECT_EQ(static_cast<long long>(e->replicas) * e->gpus_per_replica, e->total_gpus)
          << id << " " << rps;
      EXPECT_LE(e->total_gpus, kMaxGpusPerNode * kMaxNodes) << id << " " << rps;
    }
  }
}

TEST(InferenceTest, SevenBOnA100MeetsAChatSlo) {
  auto e = EstimateServing(*FindPreset("llama-2-7b"), Node(A100_80(), 8).node, Chat(50, 20));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_TRUE(e->slo_met);
  EXPECT_LE(e->chosen.latency_s, 20);
  EXPECT_GE(e->replicas, 1);
  EXPECT_GE(e->chosen.requests_per_s * e->replicas, 50 * 0.99);
  EXPECT_GT(e->max_batch, 8);
  // Decode is bandwidth-bound: per-token time at batch 1 >= each GPU's share of the weights
  // over its peak bandwidth.
  double floor = 6.74e9 * 2 / e->gpus_per_replica / (2039e9);
  EXPECT_GT(e->curve.front().tpot_s, floor);
}

TEST(InferenceTest, BatchRaisesThroughputAndLatency) {
  auto e = EstimateServing(*FindPreset("llama-2-7b"), Node(A100_80(), 1).node, Chat(0, 0));
  ASSERT_TRUE(e.ok());
  ASSERT_GE(e->curve.size(), 3u);
  for (size_t i = 1; i < e->curve.size(); ++i) {
    EXPECT_GT(e->curve[i].tokens_per_s, e->curve[i - 1].tokens_per_s);
    EXPECT_GE(e->curve[i].tpot_s, e->curve[i - 1].tpot_s);
  }
}

TEST(InferenceTest, KvCacheLimitsTheBatch) {
  ServingRequest short_ctx = Chat(0, 0), long_ctx = Chat(0, 0);
  long_ctx.input_tokens = 3500;
  auto a = EstimateServing(*FindPreset("llama-2-7b"), Node(A100_80(), 1).node, short_ctx);
  auto b = EstimateServing(*FindPreset("llama-2-7b"), Node(A100_80(), 1).node, long_ctx);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(a->max_batch, b->max_batch);
}

TEST(InferenceTest, MoreLoadNeedsMoreReplicas) {
  auto low = EstimateServing(*FindPreset("resnet-50"), Node(T4(), 1).node, Chat(100, 0.1));
  auto high = EstimateServing(*FindPreset("resnet-50"), Node(T4(), 1).node, Chat(5000, 0.1));
  ASSERT_TRUE(low.ok() && high.ok());
  EXPECT_GT(high->replicas, low->replicas);
}

TEST(InferenceTest, SeventyBDoesNotFitOnT4s) {
  auto e = EstimateServing(*FindPreset("llama-2-70b"), Node(T4(), 4).node, Chat(1, 10));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->verdict, FitVerdict::kDoesNotFit);
  EXPECT_FALSE(e->warnings.empty());
  // Nothing served: never "0 replicas, SLO met".
  EXPECT_FALSE(e->slo_met);
  EXPECT_EQ(e->replicas, 0);
  EXPECT_TRUE(e->curve.empty());
}

TEST(InferenceTest, BadRequestsNameTheField) {
  ServingRequest r = Chat(1, 1);
  r.output_tokens = 0;
  auto e = EstimateServing(*FindPreset("llama-2-7b"), Node(A100_80(), 1).node, r);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().fields.at(0).id, FieldId(Part::kServing, "output_tokens"));
}

}  // namespace
}  // namespace gpuplan::model
