// What a runnable plan takes from a training plan, an inference plan and a recommendation
// item: the price kind, the checkpoint interval, the fallback's switch hour and deadline,
// the name.
#include "plan/runnable.h"

#include <gtest/gtest.h>

#include "tests/model/model_fixtures.h"

namespace gpuplan::plan {
namespace {

TrainingPlan OnA100s() {
  TrainingPlan p;
  p.workload.id = "llama-2-7b";
  p.workload.name = "Llama-2-7B";
  p.cluster.node.gpu = model::testing::A100_80();
  p.cluster.node.gpus_per_node = 8;
  p.cluster.nodes = 2;
  p.estimate.total_hours = 10;
  p.estimate.p90_hours = 12;
  p.cost.currency = "USD";
  db::Offer offer;
  offer.instance.cloud = "gcp";
  offer.instance.id = "a2-ultragpu-8g";
  offer.instance.gpu_id = "A100-80GB-SXM4";
  offer.instance.gpu_count = 8;
  offer.region = "us-central1";
  p.offer = offer;
  return p;
}

TEST(Runnable, PriceKindOfATrainingPlan) {
  TrainingPlan p = OnA100s();
  p.cost.ondemand = OnDemandTrainingCost{};
  p.cost.ondemand->total = 500;
  p.cost.spot = SpotTrainingCost{};
  p.cost.spot->run.checkpoint_interval_minutes = 25;
  RunnablePlan r = RunnableFromTraining(p);
  EXPECT_EQ(r.price_kind, model::PriceKind::kOndemand);  // on demand wins over spot when both are priced
  EXPECT_FALSE(r.use_spot);
  EXPECT_EQ(r.checkpoint_interval_minutes, 0);
  EXPECT_EQ(r.expected_cost, 500);
  EXPECT_EQ(r.nodes, 2);
  EXPECT_EQ(r.gpus_per_node, 8);
  EXPECT_EQ(r.instance_type, "a2-ultragpu-8g");
  EXPECT_EQ(r.name, "gpuplan-llama-2-7b");

  p.cost.ondemand.reset();
  p.cost.spot->run.wall_hours = 14;
  r = RunnableFromTraining(p);
  EXPECT_EQ(r.price_kind, model::PriceKind::kSpot);
  EXPECT_TRUE(r.use_spot);
  EXPECT_EQ(r.checkpoint_interval_minutes, 25);
  EXPECT_EQ(r.expected_hours, 14);

  p.cost.fallback = FallbackTrainingCost{};
  p.cost.fallback->run.checkpoint_interval_minutes = 30;
  p.cost.fallback->run.switch_at_hours = 20;
  p.cost.fallback->run.deadline_hours = 36;
  p.cost.fallback->run.expected_hours = 15;
  r = RunnableFromTraining(p);
  EXPECT_EQ(r.price_kind, model::PriceKind::kSpotWithFallback);
  EXPECT_TRUE(r.use_spot);
  EXPECT_EQ(r.checkpoint_interval_minutes, 30);
  EXPECT_EQ(r.switch_to_ondemand_at_hours, 20);
  EXPECT_EQ(r.deadline_hours, 36);
  EXPECT_EQ(r.expected_hours, 15);
}

TEST(Runnable, GcpBundleLaunchesItsHostVm) {
  TrainingPlan p = OnA100s();
  p.offer->instance.id = "n1-standard-8+1xT4";
  p.offer->instance.host_instance_type = "n1-standard-8";
  RunnablePlan r = RunnableFromTraining(p);
  EXPECT_EQ(r.instance_type, "n1-standard-8");
  EXPECT_EQ(r.catalog_instance_type, "n1-standard-8+1xT4");
}

TEST(Runnable, RecommendationItems) {
  Recommendation rec;
  RecommendedOption o;
  o.offer = *OnA100s().offer;
  o.nodes = 3;
  o.price_kind = model::PriceKind::kSpot;
  o.checkpoint_interval_minutes = 12;
  o.hours = 9;
  o.training = std::make_shared<model::TrainingEstimate>();
  rec.items = {o};
  RecommendRequest request;
  request.training = TrainingRequest{};
  request.training->workload.id = "bert-large";
  request.constraints.deadline_hours = 24;
  auto r = RunnableFromItem(rec, 1, request);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->nodes, 3);
  EXPECT_EQ(r->price_kind, model::PriceKind::kSpot);
  EXPECT_EQ(r->checkpoint_interval_minutes, 12);
  EXPECT_EQ(r->deadline_hours, 24);
  EXPECT_EQ(r->name, "gpuplan-bert-large");

  auto fallback = std::make_shared<FallbackTrainingCost>();
  fallback->run.switch_at_hours = 18;
  fallback->run.deadline_hours = 24;
  fallback->run.checkpoint_interval_minutes = 40;
  rec.items[0].fallback = fallback;
  r = RunnableFromItem(rec, 1, request);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->price_kind, model::PriceKind::kSpotWithFallback);
  EXPECT_EQ(r->switch_to_ondemand_at_hours, 18);
  EXPECT_EQ(r->checkpoint_interval_minutes, 40);

  auto missing = RunnableFromItem(rec, 2, request);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().fields.at(0).id, FieldId(Part::kExport, "item"));
}

TEST(Runnable, NamesAreDns1123Labels) {
  EXPECT_EQ(PlanName("bert-large"), "gpuplan-bert-large");
  EXPECT_EQ(PlanName("Llama_2 70B!"), "gpuplan-llama-2-70b");
  EXPECT_EQ(PlanName(""), "gpuplan");
  std::string name = PlanName(std::string(100, 'x') + "-");
  EXPECT_LE(name.size(), 63u);
  EXPECT_NE(name.back(), '-');
}

}  // namespace
}  // namespace gpuplan::plan
