// The planner against an in-memory catalog (no SQLite, no HTTP): what it ranks, prices and
// refuses follows from the catalog it is given, and it estimates each distinct hardware
// configuration once.
#include "plan/planner.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "model/workload_presets.h"
#include "tests/model/model_fixtures.h"
#include "tests/plan/describe_options.h"
#include "tests/plan/memory_catalog.h"

namespace gpuplan::plan {
namespace {

class FakeCatalog : public testing::MemoryCatalog {
 public:
  FakeCatalog() {
    gpus = {model::testing::A100_80(), model::testing::H100(), model::testing::T4()};
    // The same 8x A100 machine in three regions of one cloud, and cheaper H100s elsewhere.
    for (const char* region : {"r-east", "r-west", "r-north"}) {
      AddOffer("cloudy", "a100x8", "A100-80GB-SXM4", 8, region, 20.0, 8.0);
    }
    AddOffer("cloudy", "h100x8", "H100-80GB-SXM5", 8, "r-east", 40.0, std::nullopt);
    AddOffer("other", "t4x1", "T4", 1, "o-1", 0.5, 0.2);
  }
};

TrainingRequest ResNet() {
  TrainingRequest r;
  r.workload = *model::FindPreset("resnet-50");
  r.job.samples = 1281167;
  r.job.epochs = 10;
  r.job.global_batch = 1024;
  r.job.precision_auto = true;
  return r;
}

TEST(PlannerTest, RecommendationRanksWhatTheCatalogOffers) {
  FakeCatalog catalog;
  Planner planner(catalog);
  RecommendRequest request;
  request.training = ResNet();
  request.constraints.max_nodes = 1;
  auto r = planner.Recommend(request);
  ASSERT_TRUE(r.ok()) << r.error().message;
  // 5 offers x 1 node x 2 price kinds; the H100 has no spot price.
  EXPECT_EQ(r->considered, 10);
  EXPECT_EQ(r->rejected.at("no_price"), 1);
  ASSERT_FALSE(r->items.empty());
  for (size_t i = 1; i < r->items.size(); ++i) {
    EXPECT_LE(r->items[i - 1].score, r->items[i].score);
  }
  // Cost ranking: each item's cost is its price x instances x hours (on-demand).
  for (const auto& item : r->items) {
    ASSERT_TRUE(item.training);
    if (!item.spot()) {
      EXPECT_NEAR(item.cost, item.price_per_hour * item.nodes * item.training->total_hours, 1e-9);
    }
  }
  // The same 8x A100 in three regions is one hardware configuration: same estimate object.
  std::set<const model::TrainingEstimate*> a100;
  for (const auto& item : r->items) {
    if (item.offer.instance.id == "a100x8") a100.insert(item.training.get());
  }
  EXPECT_EQ(a100.size(), 1u);
  // The catalog is read once for the offers and once per distinct GPU (A100, H100, T4), not
  // once per offer, node count or price kind.
  EXPECT_EQ(catalog.offer_listings, 1);
  EXPECT_EQ(catalog.gpu_lookups, 3);
}

// Offers of a cloud that lists one price in every region (price_scope "cloud", Lambda and
// OCI) take their options from the type's first offer instead of walking (issue 27: the
// full catalog's speed): the answer is exactly what walking each of them answers, with each
// option naming its own region, in the same order; an offer whose price differs walks.
TEST(PlannerTest, CloudWidePricesAnswerWhatWalkingEveryRegionAnswers) {
  auto answer = [&](const std::string& scope) {
    FakeCatalog catalog;
    catalog.AddOffer("cloudy", "a100x8", "A100-80GB-SXM4", 8, "r-south", 21.0, 8.0);
    for (auto& o : catalog.offers) o.price_scope = scope;
    RecommendRequest request;
    request.training = ResNet();
    request.constraints.max_nodes = 4;
    request.constraints.deadline_hours = 1000;
    request.limit = 100;
    return Planner(catalog).Recommend(request);
  };
  auto walked = answer("region");
  auto repeated = answer("cloud");
  ASSERT_TRUE(walked.ok() && repeated.ok());
  testing::ExpectSameAnswer(*repeated, *walked);
  std::set<std::string> regions;
  for (const auto& o : repeated->items) {
    if (o.offer.instance.id == "a100x8") regions.insert(o.offer.region);
  }
  EXPECT_EQ(regions, (std::set<std::string>{"r-east", "r-west", "r-north", "r-south"}));
}

// The same when the request's regions leave out the offer that comes first in the catalog:
// the first offer the walk meets of a repeat group (plan/offer_index.h) serves the others.
TEST(PlannerTest, CloudWidePricesUnderARegionFilterAnswerWhatWalkingAnswers) {
  auto answer = [&](const std::string& scope) {
    FakeCatalog catalog;  // a100x8 in r-east (first), r-west, r-north
    catalog.AddOffer("cloudy", "a100x8", "A100-80GB-SXM4", 8, "r-south", 20.0, 8.0);
    for (auto& o : catalog.offers) o.price_scope = scope;
    RecommendRequest request;
    request.training = ResNet();
    request.constraints.max_nodes = 2;
    request.constraints.deadline_hours = 1000;  // spot_with_fallback options too
    request.constraints.regions = {"r-west", "r-north", "r-south"};
    request.constraints.region_names = {"r-west", "r-north", "r-south"};
    request.limit = 100;
    return Planner(catalog).Recommend(request);
  };
  auto walked = answer("region");
  auto repeated = answer("cloud");
  ASSERT_TRUE(walked.ok() && repeated.ok());
  ASSERT_GT(walked->feasible, 0);
  testing::ExpectSameAnswer(*repeated, *walked);
  std::set<std::string> regions;
  for (const auto& o : repeated->items) regions.insert(o.offer.region);
  bool fallback = false;
  for (const auto& o : repeated->items) fallback = fallback || o.fallback != nullptr;
  EXPECT_TRUE(fallback) << "no spot_with_fallback option was ranked";
  EXPECT_EQ(regions.count("r-east"), 0u);
  EXPECT_EQ(regions.count("r-west"), 1u);
}

TEST(PlannerTest, ConstraintNamesAreCheckedAgainstTheCatalog) {
  FakeCatalog catalog;
  Planner planner(catalog);
  RecommendRequest request;
  request.training = ResNet();
  request.constraints.gpu_names = {"h100", "B300"};
  request.constraints.cloud_names = {"cloudy", "Cloudy"};
  auto r = planner.Recommend(request);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.error().fields.size(), 2u);
  EXPECT_EQ(r.error().fields[0].id, FieldId(Part::kConstraints, "clouds", 1));
  EXPECT_EQ(r.error().fields[1].id, FieldId(Part::kConstraints, "gpus", 1));
}

TEST(PlannerTest, TrainingPlanIsPricedInTheRequestCurrency) {
  FakeCatalog catalog;
  Planner planner(catalog);
  TrainingRequest request = ResNet();
  request.hardware.from_catalog = true;
  request.hardware.cloud = "cloudy";
  request.hardware.instance_type = "a100x8";
  request.currency = "EUR";
  auto plan = planner.Training(request);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_TRUE(plan->cost.ondemand);
  EXPECT_DOUBLE_EQ(plan->price.ondemand.value(), 10.0);  // 20 USD at 0.5 EUR per USD
  EXPECT_NEAR(plan->cost.ondemand->total, 10.0 * plan->estimate.total_hours, 1e-9);
  ASSERT_TRUE(plan->price.fx_rate);
  EXPECT_DOUBLE_EQ(*plan->price.fx_rate, 0.5);
  // No region given: said, with the region chosen.
  ASSERT_FALSE(plan->warnings.empty());
  EXPECT_NE(plan->warnings.front().find("region not given"), std::string::npos);
  // Explicit hardware: its prices come from the request, and the answer says so.
  TrainingRequest own = ResNet();
  own.hardware.gpu = "T4";
  own.hardware.price_per_hour = 0.5;
  auto priced = planner.Training(own);
  ASSERT_TRUE(priced.ok());
  EXPECT_EQ(priced->price.source, "request");
  request.currency = "XYZ";
  auto unknown = planner.Training(request);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().fields[0].id, FieldId(Part::kInput, "currency"));
}

TEST(PlannerTest, RequestErrorsAreNotCountedAsRejections) {
  FakeCatalog catalog;
  Planner planner(catalog);
  RecommendRequest request;
  request.training = ResNet();
  request.training->job.tensor_parallel = 2;  // a CNN has no tensor parallelism
  auto r = planner.Recommend(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().fields[0].id, FieldId(Part::kJob, "tensor_parallel"));
  // int8 is no training precision on any GPU: the request's error, not 'unsupported' options.
  request.training = ResNet();
  request.training->job.precision = model::Precision::kInt8;
  request.training->job.precision_auto = false;
  auto int8 = planner.Recommend(request);
  ASSERT_FALSE(int8.ok());
  EXPECT_EQ(int8.error().fields[0].id, FieldId(Part::kJob, "precision"));
  // A fixed duration takes the same hours everywhere: nothing to rank, so it is refused.
  request.training = ResNet();
  request.training->job.hours = 10;
  auto hours = planner.Recommend(request);
  ASSERT_FALSE(hours.ok());
  EXPECT_EQ(hours.error().fields[0].id, FieldId(Part::kDataset, "hours"));
  CompareRequest none;
  none.training = ResNet();
  none.gpus_given = true;  // an empty list compares nothing, not everything
  auto c = planner.Compare(none);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->rows.empty());
}

TEST(PlannerTest, ServingReplicasWiderThanANodeRejectOnlyThatOption) {
  FakeCatalog catalog;
  Planner planner(catalog);
  RecommendRequest request;
  InferenceRequest& serve = request.inference.emplace();
  serve.workload = *model::FindPreset("llama-3-8b");
  serve.serving.precision_auto = true;
  serve.serving.input_tokens = 512;
  serve.serving.output_tokens = 128;
  serve.serving.target_requests_per_s = 1;
  serve.serving.tensor_parallel = 4;  // the 1-GPU T4 offer cannot hold a replica
  auto r = planner.Recommend(request);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->rejected.at("tensor_parallel_too_large"), 1);
  ASSERT_FALSE(r->items.empty());
  for (const auto& item : r->items) EXPECT_GE(item.offer.instance.gpu_count, 4);
}

// A degree that cannot split the model on any GPU is the request's error, not a rejection of
// every option (it was counted as tensor_parallel_too_large for each).
TEST(PlannerTest, ServingTensorParallelThatSplitsNoHeadsIsARequestError) {
  FakeCatalog catalog;
  Planner planner(catalog);
  RecommendRequest request;
  InferenceRequest& serve = request.inference.emplace();
  serve.workload = *model::FindPreset("llama-3-8b");  // 32 heads
  serve.serving.precision_auto = true;
  serve.serving.input_tokens = 512;
  serve.serving.output_tokens = 128;
  serve.serving.target_requests_per_s = 1;
  serve.serving.tensor_parallel = 3;
  auto r = planner.Recommend(request);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.error().fields.size(), 1u);
  EXPECT_EQ(r.error().fields[0].id, FieldId(Part::kServing, "tensor_parallel"));
  EXPECT_NE(r.error().message.find("attention heads"), std::string::npos) << r.error().message;
}

TEST(PlannerTest, ComparisonPutsBestValueFirst) {
  FakeCatalog catalog;
  Planner planner(catalog);
  CompareRequest request;
  request.training = ResNet();
  auto c = planner.Compare(request);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->rows.size(), 3u);  // every GPU with a price
  for (size_t i = 1; i < c->rows.size(); ++i) {
    EXPECT_GE(c->rows[i - 1].samples_per_currency_unit, c->rows[i].samples_per_currency_unit);
  }
  for (const auto& row : c->rows) {
    ASSERT_TRUE(row.price_per_gpu_hour);
    EXPECT_EQ(row.precision, row.gpu == "T4" ? model::Precision::kFp16 : model::Precision::kBf16);
  }
}

}  // namespace
}  // namespace gpuplan::plan
