// The Pareto front of a recommendation (plan::Finish): exactly the options that no faster
// option (or equally fast one before it) beats on cost, in order of time, whatever options
// are left out of the sort as beaten by the fastest, the cheapest or the best of hours x
// cost. Checked against the definition over random options with many ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "plan/recommend_walk.h"

namespace gpuplan::plan {
namespace {

TEST(ParetoFrontTest, IsTheFrontOfEveryOptionWithTies) {
  std::mt19937 rng(26);
  db::Offer offer;
  offer.instance.gpu_id = "A100-80GB-SXM4";
  offer.instance.gpu_count = 8;
  for (int round = 0; round < 200; ++round) {
    const int n = 1 + static_cast<int>(rng() % 400);
    const int grid = 2 + static_cast<int>(rng() % 40);  // small grids: many equal figures
    std::vector<Candidate> feasible(n);
    for (Candidate& c : feasible) {
      c.offer = &offer;
      c.hours = 1 + static_cast<double>(rng() % grid);
      c.cost = 10 + static_cast<double>(rng() % grid) * 3;
    }
    // The definition: in order of (hours, cost, position), an option is on the front when
    // it costs less than every option before it.
    std::vector<size_t> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const Candidate &x = feasible[a], &y = feasible[b];
      if (x.hours != y.hours) return x.hours < y.hours;
      if (x.cost != y.cost) return x.cost < y.cost;
      return a < b;
    });
    std::vector<std::pair<double, double>> expected;
    double best = INFINITY;
    for (size_t i : order) {
      if (feasible[i].cost < best) {
        best = feasible[i].cost;
        expected.push_back({feasible[i].hours, feasible[i].cost});
      }
    }
    Recommendation out;
    Constraints cons;
    std::vector<Candidate> copy = feasible;
    std::vector<Candidate*> ranked;
    for (Candidate& c : copy) ranked.push_back(&c);
    Finish(ranked, static_cast<Objective>(round % 3), 5, cons, out);
    std::vector<std::pair<double, double>> front;
    for (const RecommendedOption& o : out.pareto_front) front.push_back({o.hours, o.cost});
    ASSERT_EQ(front, expected) << "round " << round << ", " << n << " options";
  }
}

}  // namespace
}  // namespace gpuplan::plan
