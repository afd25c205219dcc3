// SpotTimesMemo: a recommendation's spot options reuse spot times computed for the same
// estimate, node count, parameters and interruption range, and its spot_with_fallback options
// the fallback outcome of the same estimate, node count, parameters and deadline (and the P10
// of its spot run). Reused or not, every figure of the cost is the same; a different rate,
// range, notice, deadline or node count is not reused.
#include <gtest/gtest.h>

#include <algorithm>

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

// BERT-large on one and two nodes of 8 A100s, priced at 30 on demand and 12 on spot.
class SpotTimesMemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model::TrainingJob job;
    job.global_batch = 256;
    job.samples = 3e8;
    job.epochs = 1;
    job.precision = model::Precision::kBf16;
    for (int nodes : {1, 2}) {
      auto e = model::EstimateTraining(w, job,
                                       model::testing::Node(model::testing::A100_80(), 8, nodes),
                                       model::DefaultConstants(), false);
      ASSERT_TRUE(e.ok());
      estimates.push_back(std::move(e).value());
    }
    price.currency = "USD";
    price.ondemand = 30;
    price.spot = 12;
    spot.price_per_hour = 12;
    spot.p10_per_hour = 10;
    spot.p90_per_hour = 15;
  }
  // Nodes of estimates[i].
  static int NodesOf(size_t i) { return static_cast<int>(i) + 1; }

  const model::Workload w = *model::FindPreset("bert-large");
  std::vector<model::TrainingEstimate> estimates;
  PriceQuote price;
  SpotPricing spot;
};

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

TEST_F(SpotTimesMemoTest, ReusedTimesGiveTheCostComputedAfresh) {
  PricingRequest pricing;
  pricing.kinds = {model::PriceKind::kSpot};

  SpotTimesMemo memo;
  std::vector<double> walls;
  // Every option twice through the memo, in an order that interleaves the keys: the second
  // pass reads what the first computed.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < estimates.size(); ++i) {
      const model::TrainingEstimate* e = &estimates[i];
      const int nodes = NodesOf(i);
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

void ExpectSameFallback(const TrainingCost& a, const TrainingCost& b, const std::string& where) {
  ASSERT_EQ(a.fallback.has_value(), b.fallback.has_value()) << where;
  if (!a.fallback) return;
  const model::FallbackOutcome &x = a.fallback->run, &y = b.fallback->run;
  EXPECT_EQ(x.switch_at_hours, y.switch_at_hours) << where;
  EXPECT_EQ(x.expected_hours, y.expected_hours) << where;
  EXPECT_EQ(x.expected_spot_hours, y.expected_spot_hours) << where;
  EXPECT_EQ(x.expected_ondemand_hours, y.expected_ondemand_hours) << where;
  EXPECT_EQ(x.p90_hours, y.p90_hours) << where;
  EXPECT_EQ(x.fallback_probability, y.fallback_probability) << where;
  EXPECT_EQ(x.feasible, y.feasible) << where;
  EXPECT_EQ(a.fallback->expected_total, b.fallback->expected_total) << where;
  EXPECT_EQ(a.fallback->p90_total, b.fallback->p90_total) << where;
}

TEST_F(SpotTimesMemoTest, ReusedFallbackOutcomesGiveTheCostComputedAfresh) {

  SpotTimesMemo memo;
  std::vector<std::pair<double, double>> outcomes;  // switch point, expected hours
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < estimates.size(); ++i) {
      const model::TrainingEstimate* e = &estimates[i];
      const int nodes = NodesOf(i);
      // Deadlines with room for spot: the switch point moves with each of them.
      for (double deadline : {1.5 * e->p90_hours, 3 * e->p90_hours}) {
        for (const SpotRisk& risk : {Flat(0.05), Flat(0.2)}) {
          for (const char* cloud : {"aws", "oci"}) {
            PricingRequest pricing;
            pricing.kinds = {model::PriceKind::kSpotWithFallback};
            pricing.deadline_hours = deadline;
            const std::string where = std::to_string(nodes) + " node(s), deadline " +
                                      std::to_string(deadline) + ", rate " +
                                      std::to_string(risk.rate.per_hour) + ", " + cloud;
            TrainingCost fresh = CostOfTraining(*e, w, nodes, price, pricing, spot, risk, cloud);
            TrainingCost reused =
                CostOfTraining(*e, w, nodes, price, pricing, spot, risk, cloud, &memo);
            ASSERT_TRUE(fresh.fallback) << where;
            ExpectSameFallback(fresh, reused, where);
            if (pass == 0) {
              outcomes.emplace_back(fresh.fallback->run.switch_at_hours,
                                    fresh.fallback->run.expected_hours);
            }
          }
        }
      }
    }
  }
  // No two of the 16 options share both a switch point and an expected time: had one been
  // served another's outcome, the memo's answer would differ from the fresh one above.
  std::sort(outcomes.begin(), outcomes.end());
  EXPECT_EQ(outcomes.size(), 16u);
  EXPECT_EQ(std::adjacent_find(outcomes.begin(), outcomes.end()), outcomes.end())
      << "two options with different deadlines, rates, notices or node counts had the same "
         "fallback outcome";
}

// The P10 of a spot_with_fallback option (its spot run's): model::SpotWallRange at
// model::SpotRun's outcome, reused for the same estimate, nodes and parameters only.
TEST_F(SpotTimesMemoTest, SpotP10IsTheSpotRunsP10ForEachEstimateNodesAndParameters) {
  SpotTimesMemo memo;
  std::vector<double> p10s;
  for (double rate : {0.002, 0.02, 0.2}) {
    for (size_t i = 0; i < estimates.size(); ++i) {
      model::SpotParams params;
      params.interruption_rate_per_hour = rate;
      params.checkpoint_bytes = model::TrainingCheckpointBytes(w);
      const model::TrainingEstimate& e = estimates[i];
      auto run = model::SpotRun(e.total_hours, NodesOf(i), params);
      ASSERT_TRUE(run.ok());
      const double fresh =
          model::SpotWallRange(e.p10_hours, e.p90_hours, NodesOf(i), params, *run).p10_hours;
      for (int call = 0; call < 2; ++call) {  // computed, then reused
        auto p10 = memo.SpotP10Of(e, NodesOf(i), params);
        ASSERT_TRUE(p10.has_value());
        EXPECT_EQ(*p10, fresh) << "rate " << rate << ", " << NodesOf(i) << " nodes";
      }
      p10s.push_back(fresh);
    }
  }
  // Rates and node counts give different P10s: none was answered from another's entry.
  std::sort(p10s.begin(), p10s.end());
  EXPECT_EQ(std::unique(p10s.begin(), p10s.end()), p10s.end());
  // One estimate on two node counts: two entries, not one.
  model::SpotParams params;
  params.interruption_rate_per_hour = 0.2;
  params.checkpoint_bytes = model::TrainingCheckpointBytes(w);
  const model::TrainingEstimate& e = estimates[0];
  auto on_one = memo.SpotP10Of(e, 1, params), on_four = memo.SpotP10Of(e, 4, params);
  ASSERT_TRUE(on_one && on_four);
  auto run = model::SpotRun(e.total_hours, 4, params);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(*on_four, model::SpotWallRange(e.p10_hours, e.p90_hours, 4, params, *run).p10_hours);
  EXPECT_NE(*on_one, *on_four);
}

}  // namespace
}  // namespace gpuplan::plan
