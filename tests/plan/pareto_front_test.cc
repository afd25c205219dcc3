// The ranking of a recommendation (plan::Finish). Its Pareto front: exactly the options that
// no faster option (or equally fast one before it) beats on cost, in order of time, whatever
// options are left out of the sort as beaten by the fastest, the cheapest or the best of
// hours x cost. Its items: the best by score (RankTest). Each checked against its definition
// over random options with many ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
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

// The answered items (plan::Finish): the best `limit` options by score, ties in the walk's
// order, the best of each distinct instance type or region only, whatever the limit (0-40) and
// however many the distinct rule skips (the keys are ordered a prefix at a time). Checked
// against a whole stable sort over random options with many ties.
TEST(RankTest, ItemsAreTheBestOfAWholeSortWithTiesAndDistinctRules) {
  std::mt19937 rng(27);
  std::vector<db::Offer> offers(12);
  for (size_t i = 0; i < offers.size(); ++i) {
    offers[i].instance.cloud = i % 2 ? "a" : "b";
    offers[i].instance.id = "type-" + std::to_string(i % 5);
    offers[i].region = "region-" + std::to_string(i % 3);
  }
  for (int round = 0; round < 300; ++round) {
    const int n = 1 + static_cast<int>(rng() % 300);
    const int grid = 2 + static_cast<int>(rng() % 30);
    const int limit = static_cast<int>(rng() % 41);  // 0 answers no item
    Constraints cons;
    cons.distinct = static_cast<Constraints::Distinct>(round % 3);
    const Objective objective = static_cast<Objective>((round / 3) % 3);
    std::vector<Candidate> feasible(n);
    for (int i = 0; i < n; ++i) {
      Candidate& c = feasible[i];
      c.offer = &offers[rng() % offers.size()];
      c.nodes = i + 1;  // names the option
      c.hours = 1 + static_cast<double>(rng() % grid);
      c.cost = 10 + static_cast<double>(rng() % grid) * 3;
    }
    Recommendation out;
    std::vector<Candidate*> ranked;
    for (Candidate& c : feasible) ranked.push_back(&c);
    Finish(ranked, objective, limit, cons, out);
    // The definition, on the scores Finish set: a stable sort, then the first of each key.
    std::vector<const Candidate*> sorted(ranked.begin(), ranked.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Candidate* x, const Candidate* y) { return x->score < y->score; });
    std::vector<int> expected;
    std::set<std::string> seen;
    for (const Candidate* c : sorted) {
      if (static_cast<int>(expected.size()) == limit) break;
      std::string key;
      if (cons.distinct == Constraints::Distinct::kInstanceType) {
        key = c->offer->instance.cloud + "/" + c->offer->instance.id;
      } else if (cons.distinct == Constraints::Distinct::kRegion) {
        key = c->offer->instance.cloud + "/" + c->offer->region;
      }
      if (!key.empty() && !seen.insert(key).second) continue;
      expected.push_back(c->nodes);
    }
    std::vector<int> items;
    for (const RecommendedOption& o : out.items) items.push_back(o.nodes);
    ASSERT_EQ(items, expected) << "round " << round << ", " << n << " options, limit " << limit;
  }
}

}  // namespace
}  // namespace gpuplan::plan
