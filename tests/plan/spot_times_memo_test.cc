// SpotTimesMemo: a recommendation's spot options reuse spot times computed for the same
// estimate, node count, parameters and interruption range. Reused or not, every figure of
// the cost is the same; a different rate, range, notice or node count is not reused.
#include <gtest/gtest.h>

#include "model/spot_interruption.h"
#include "model/training.h"
#include "model/workload_presets.h"
#include "plan/training_cost.h"
#include "tests/model/model_fixtures.h"

namespace gpuplan::plan {
namespace {

SpotRisk Band(double low, double high) {
  SpotRisk r;
  r.source = SpotRisk::Source::kBand;
  r.rate = model::RateOfMonthlyBand(low, high);
  return r;
}

SpotRisk Flat(double per_hour) {
  SpotRisk r;
  r.rate = {per_hour, per_hour, per_hour};
  return r;
}

void ExpectSameSpot(const TrainingCost& a, const TrainingCost& b, const std::string& where) {
  ASSERT_EQ(a.spot.has_value(), b.spot.has_value()) << where;
  if (!a.spot) return;
  EXPECT_EQ(a.spot->run.wall_hours, b.spot->run.wall_hours) << where;
  EXPECT_EQ(a.spot->run.billable_hours, b.spot->run.billable_hours) << where;
  EXPECT_EQ(a.spot->run.expected_interruptions, b.spot->run.expected_interruptions) << where;
  EXPECT_EQ(a.spot->p10_wall_hours, b.spot->p10_wall_hours) << where;
  EXPECT_EQ(a.spot->p90_wall_hours, b.spot->p90_wall_hours) << where;
  EXPECT_EQ(a.spot->expected_total, b.spot->expected_total) << where;
  EXPECT_EQ(a.spot->p10_total, b.spot->p10_total) << where;
  EXPECT_EQ(a.spot->p90_total, b.spot->p90_total) << where;
}

TEST(SpotTimesMemoTest, ReusedTimesGiveTheCostComputedAfresh) {
  const model::Workload w = *model::FindPreset("bert-large");
  model::TrainingJob job;
  job.global_batch = 256;
  job.samples = 3e8;
  job.epochs = 1;
  job.precision = model::Precision::kBf16;
  auto one = model::EstimateTraining(w, job, model::testing::Node(model::testing::A100_80(), 8, 1),
                                     model::DefaultConstants(), false);
  auto two = model::EstimateTraining(w, job, model::testing::Node(model::testing::A100_80(), 8, 2),
                                     model::DefaultConstants(), false);
  ASSERT_TRUE(one.ok() && two.ok());
  PriceQuote price;
  price.currency = "USD";
  price.ondemand = 30;
  price.spot = 12;
  SpotPricing spot;
  spot.price_per_hour = 12;
  spot.p10_per_hour = 10;
  spot.p90_per_hour = 15;
  PricingRequest pricing;
  pricing.kinds = {model::PriceKind::kSpot};

  SpotTimesMemo memo;
  std::vector<double> walls;
  // Every option twice through the memo, in an order that interleaves the keys: the second
  // pass reads what the first computed.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto* e : {&*one, &*two}) {
      const int nodes = e == &*one ? 1 : 2;
      for (const SpotRisk& risk : {Band(0.05, 0.10), Band(0.15, 0.20), Flat(0.1)}) {
        for (const char* cloud : {"aws", "oci"}) {  // a 2-minute notice and none
          const std::string where = std::to_string(nodes) + " node(s), rate " +
                                    std::to_string(risk.rate.per_hour) + ", " + cloud;
          TrainingCost fresh = CostOfTraining(*e, w, nodes, price, pricing, spot, risk, cloud);
          TrainingCost reused =
              CostOfTraining(*e, w, nodes, price, pricing, spot, risk, cloud, &memo);
          ExpectSameSpot(fresh, reused, where);
          if (pass == 0 && fresh.spot) walls.push_back(fresh.spot->run.wall_hours);
        }
      }
    }
  }
  // The keys differ in what they change: no two of the 12 options share spot times.
  std::sort(walls.begin(), walls.end());
  EXPECT_EQ(walls.size(), 12u);
  EXPECT_EQ(std::adjacent_find(walls.begin(), walls.end()), walls.end())
      << "two options with different rates, notices or node counts had the same wall time";
}

}  // namespace
}  // namespace gpuplan::plan
