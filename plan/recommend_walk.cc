// The parts the two recommendation walks share (plan/recommend_walk.h).
#include "plan/recommend_walk.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "db/offer_query.h"
#include "db/text.h"
#include "model/counts.h"
#include "plan/deadline.h"
#include "plan/inference_plan.h"

namespace gpuplan::plan {

using model::PriceKind;

namespace {

// `gpu` is one of `wanted` (db::GpuIdMatches); every GPU when `wanted` is empty.
bool GpuMatches(const std::set<std::string>& wanted, const std::string& gpu) {
  if (wanted.empty()) return true;
  for (const std::string& w : wanted) {
    if (db::GpuIdMatches(gpu, w)) return true;
  }
  return false;
}

RecommendedOption Materialize(const Candidate& c) {
  RecommendedOption o;
  o.offer = *c.offer;
  o.nodes = c.nodes;
  o.total_gpus = c.nodes * c.offer->instance.gpu_count;
  o.price_kind = c.kind;
  o.price_per_hour = c.price_per_hour;
  o.checkpoint_interval_minutes = c.checkpoint_interval_minutes;
  o.hours = c.hours;
  o.p10_hours = c.p10_hours;
  o.p90_hours = c.p90_hours;
  if (c.price.flagged()) {
    o.price_flags = c.price.Flags();
    for (auto& w : PriceWarnings(*c.offer, c.price)) o.warnings.push_back(std::move(w));
  }
  o.cost = c.cost;
  o.score = c.score;
  if (c.training) o.training = *c.training;
  if (c.serving) o.serving = *c.serving;
  if (c.fallback) o.fallback = std::make_shared<const FallbackTrainingCost>(*c.fallback);
  if (c.risk) o.spot_risk = *c.risk;
  const std::string& gpu = c.offer->instance.gpu_id;
  if (c.training) {
    const model::TrainingEstimate& e = **c.training;
    std::string kind = model::StartsOnSpot(c.kind) ? " on spot" : " on demand";
    if (c.fallback) {
      kind += ", moving to on-demand at " +
              fmt::format("{:.1f} h", c.fallback->run.switch_at_hours) + " if not done";
    }
    o.why = std::to_string(o.total_gpus) + "x " + gpu + kind + ", " +
            fmt::format("{:.1f} h", c.hours) + ", bottleneck " + e.step.bottleneck + ", MFU " +
            fmt::format("{:.2f}", e.mfu);
    if (model::StartsOnSpot(c.kind) && c.risk) o.why += ", " + SpotRiskInWords(*c.risk);
  }
  if (c.serving) {
    const model::ServingEstimate& e = **c.serving;
    o.cost_per_month = c.cost * kHoursPerMonth;
    o.why = std::to_string(e.replicas) + " replica(s) of " + std::to_string(e.gpus_per_replica) +
            "x " + gpu + " at batch " + std::to_string(e.chosen.batch) + ", " +
            fmt::format("{:.2f} s", e.chosen.latency_s) + " per request" +
            (model::StartsOnSpot(c.kind) ? " (spot: can be reclaimed)" : "");
    if (model::StartsOnSpot(c.kind)) o.warnings.push_back(kSpotServingCaveat);
  }
  return o;
}

// What Constraints::distinct keeps apart: "" when every option is its own choice.
std::string DistinctKey(const Candidate& c, Constraints::Distinct distinct) {
  switch (distinct) {
    case Constraints::Distinct::kInstanceType:
      return c.offer->instance.cloud + "/" + c.offer->instance.id;
    case Constraints::Distinct::kRegion: return c.offer->instance.cloud + "/" + c.offer->region;
    case Constraints::Distinct::kNone: break;
  }
  return "";
}

// Ranks `feasible` by the objective; answers the first `limit` (the best of each distinct
// key only) and the Pareto front.
void Rank(const std::vector<Candidate*>& feasible, Objective objective, int limit,
          Constraints::Distinct distinct, Recommendation& out) {
  // One pass for the figures the scores and the front need, one for the scores and keys:
  // the candidates are many (tens of thousands) and each pass reads them all from memory.
  // An option is not on the Pareto front when another is faster and costs no more (that one
  // comes first in the order below): options so beaten by the fastest, the cheapest or the
  // best of hours x cost are not sorted.
  double min_cost = INFINITY, min_hours = INFINITY;
  const Candidate* pivots[3] = {nullptr, nullptr, nullptr};
  for (const Candidate* option : feasible) {
    const Candidate& c = *option;
    min_cost = std::min(min_cost, c.cost);
    min_hours = std::min(min_hours, c.hours);
    if (!pivots[0] || c.hours < pivots[0]->hours) pivots[0] = &c;
    if (!pivots[1] || c.cost < pivots[1]->cost) pivots[1] = &c;
    if (!pivots[2] || c.hours * c.cost < pivots[2]->hours * pivots[2]->cost) pivots[2] = &c;
  }
  // Small keys are ordered, not the candidates (moving those dominated the sort), and the
  // keys hold the figures they are ordered by (no indirection per comparison). Ties keep the
  // candidates' order: comparing the index last makes the order total (as stable as
  // std::stable_sort).
  struct ScoreKey {
    double score;
    size_t index;
  };
  struct TimeKey {  // the Pareto front's, by time
    double hours, cost;
    size_t index;
  };
  auto beaten = [&](const Candidate& c) {
    for (const Candidate* p : pivots) {
      if (p && p->hours < c.hours && p->cost <= c.cost) return true;
    }
    return false;
  };
  std::vector<ScoreKey> by_score;
  by_score.reserve(feasible.size());
  std::vector<TimeKey> by_time;
  for (size_t i = 0; i < feasible.size(); ++i) {
    Candidate& c = *feasible[i];
    switch (objective) {
      case Objective::kCost: c.score = c.cost + c.hours * 1e-9; break;
      case Objective::kTime: c.score = c.hours + c.cost * 1e-12; break;
      case Objective::kBalanced:  // product of the ratios to the best of each
        c.score = (c.cost / std::max(min_cost, 1e-12)) * (c.hours / std::max(min_hours, 1e-12));
        break;
    }
    by_score.push_back({c.score, i});
    if (!beaten(c)) by_time.push_back({c.hours, c.cost, i});
  }
  auto better = [](const ScoreKey& a, const ScoreKey& b) {
    return a.score < b.score || (a.score == b.score && a.index < b.index);
  };
  std::sort(by_time.begin(), by_time.end(), [](const TimeKey& a, const TimeKey& b) {
    if (a.hours != b.hours) return a.hours < b.hours;
    if (a.cost != b.cost) return a.cost < b.cost;
    return a.index < b.index;
  });
  double best_cost = INFINITY;
  for (const TimeKey& k : by_time) {
    if (k.cost < best_cost) {
      best_cost = k.cost;
      out.pareto_front.push_back(Materialize(*feasible[k.index]));
    }
  }
  out.feasible = static_cast<int>(feasible.size());
  // Only the best few are answered: the keys are put in order a prefix at a time (the best
  // `limit`, then twice as many while the distinct rule skips some), not all of them.
  std::set<std::string> seen;
  const size_t wanted = static_cast<size_t>(std::max(limit, 0));
  size_t in_order = 0;
  for (size_t next = 0; next < by_score.size() && out.items.size() < wanted; ++next) {
    if (next == in_order) {
      const size_t more = std::min(by_score.size(), std::max(2 * in_order, in_order + wanted));
      std::partial_sort(by_score.begin() + in_order, by_score.begin() + more, by_score.end(),
                        better);
      in_order = more;
    }
    const Candidate* option = feasible[by_score[next].index];
    std::string key = DistinctKey(*option, distinct);
    if (!key.empty() && !seen.insert(key).second) continue;
    out.items.push_back(Materialize(*option));
  }
}

// Says how many options a flagged price kept out of the ranking, if any.
void NoteDoubtfulPrices(Recommendation& out) {
  int n = out.rejected["doubtful_price"];
  if (n == 0) return;
  out.warnings.push_back(std::to_string(n) +
                         " option(s) not ranked: their offer's spot price is above its own "
                         "on-demand price, so the catalog price may be stale or wrong "
                         "(constraints.include_doubtful_prices ranks them, flagged)");
}

}  // namespace

Result<OfferPrices> PriceOffer(const Pricing& pricing, const db::Offer& offer) {
  auto quote = pricing.QuotePrices(offer);
  if (!quote.ok()) return quote.error();
  return OfferPrices{quote->ondemand, quote->spot, pricing.Assess(offer)};
}

std::optional<double> PriceOfOption(PriceKind kind, const OfferPrices& prices,
                                    const Constraints& cons, Rejection* why) {
  if (!cons.kinds.Has(kind)) return std::nullopt;
  std::optional<double> price = kind == PriceKind::kOndemand ? prices.ondemand : prices.spot;
  if (kind == PriceKind::kSpotWithFallback && !prices.ondemand) price.reset();
  if (!price) {
    if (why) *why = Rejection::kNoPrice;
    return std::nullopt;
  }
  if (prices.quality.spot_above_ondemand && !cons.include_doubtful_prices) {
    if (why) *why = Rejection::kDoubtfulPrice;
    return std::nullopt;
  }
  return price;
}

KindPrice PriceOfKind(PriceKind kind, const OfferPrices& prices, const Constraints& cons) {
  KindPrice out;
  out.kind = kind;
  out.asked = cons.kinds.Has(kind);
  if (out.asked) out.price = PriceOfOption(kind, prices, cons, &out.why);
  return out;
}

std::optional<double> KindPrice::Count(OptionCounts& counts) const {
  if (!asked) return std::nullopt;
  ++counts.considered;
  if (!price) counts.Reject(why);
  return price;
}

OptionCounts& OptionCounts::operator+=(const OptionCounts& more) {
  considered += more.considered;
  for (size_t i = 0; i < rejected.size(); ++i) rejected[i] += more.rejected[i];
  return *this;
}

void OptionCounts::AddTo(Recommendation& out) const {
  out.considered += considered;
  for (size_t i = 0; i < rejected.size(); ++i) {
    if (rejected[i] > 0) out.rejected[std::string(kRejectionNames[i].first)] += rejected[i];
  }
}

std::map<std::string, int> RejectedAtZero(std::initializer_list<Rejection> always) {
  std::map<std::string, int> out;
  for (Rejection r : always) out.emplace(model::EnumName(kRejectionNames, r), 0);
  return out;
}

Result<const model::GpuSpec*> NodeSpecs::GpuOf(const db::InstanceType& type) {
  auto known = gpus_.find(type.gpu_id);
  if (known == gpus_.end()) {
    auto g = catalog_.GetGpu(type.gpu_id);
    if (!g.ok()) return g.error();
    known = gpus_.emplace(type.gpu_id, std::move(g).value()).first;
  }
  return &known->second;
}

Result<model::NodeSpec> NodeSpecs::Of(const db::InstanceType& type) {
  auto gpu = GpuOf(type);
  if (!gpu.ok()) return gpu.error();
  return NodeFromInstance(type, **gpu);
}

Result<CandidateOfferList> CandidateOffers(db::CatalogReader& catalog, const Constraints& c) {
  auto all = catalog.AllOffers();
  if (!all.ok()) return all.error();
  auto index = IndexOfOffers(catalog, *all);
  if (!index.ok()) return index.error();
  CandidateOfferList out{*all, *index, {}, 0};
  for (const db::Offer& o : **all) {
    if (c.min_gpu_memory_gb > 0 && o.gpu_memory_gb < c.min_gpu_memory_gb) continue;
    if (!c.clouds.empty() && !c.clouds.count(o.instance.cloud)) continue;
    if (!c.regions.empty() && !c.regions.count(o.region)) continue;
    if (!GpuMatches(c.gpus, o.instance.gpu_id)) continue;
    // Nodes larger than the model covers (catalog counts go to 1024) are skipped, not errors.
    if (o.instance.gpu_count < 1 || o.instance.gpu_count > model::kMaxGpusPerNode) {
      ++out.unsupported;
      continue;
    }
    out.offers.push_back(&o);
  }
  return out;
}

bool StopEarly(size_t offers, size_t next, Recommendation& out) {
  if (!PlanningTimeUp()) return false;
  StoppedEarly(offers, next, out);
  return true;
}

void StoppedEarly(size_t offers, size_t next, Recommendation& out) {
  out.stopped_early = true;
  out.offers_evaluated = static_cast<int>(next);
  out.offers_not_evaluated = static_cast<int>(offers - next);
}

bool Reject(const Error& e, OptionCounts& counts) {
  switch (e.refusal) {
    case Refusal::kPrecisionUnsupported: counts.Reject(Rejection::kPrecisionUnsupported); break;
    case Refusal::kBatchTooSmall: counts.Reject(Rejection::kBatchTooSmall); break;
    case Refusal::kLayoutDoesNotDivide: counts.Reject(Rejection::kLayoutDoesNotDivide); break;
    case Refusal::kTensorParallelTooLarge:
      counts.Reject(Rejection::kTensorParallelTooLarge);
      break;
    case Refusal::kOverMaxGpus: counts.Reject(Rejection::kOverMaxGpus); break;
    case Refusal::kNone: return false;
  }
  return true;
}

Candidate NewCandidate(const db::Offer& offer, int nodes, PriceKind kind,
                       const OfferPrices& prices, double price) {
  Candidate c;
  c.offer = &offer;
  c.nodes = nodes;
  c.kind = kind;
  c.price = prices.quality.OfKind(kind);
  c.price_per_hour = price;
  return c;
}

bool WithinBudget(double budget_cost, const Constraints& cons, OptionCounts& counts) {
  if (!cons.budget || !(budget_cost > *cons.budget)) return true;
  counts.Reject(Rejection::kOverBudget);
  return false;
}

void Finish(const std::vector<Candidate*>& feasible, Objective objective, int limit,
            const Constraints& cons, Recommendation& out) {
  Rank(feasible, objective, limit, cons.distinct, out);
  NoteDoubtfulPrices(out);
}

// The deadline assumption every recommendation with a deadline names.
std::string DeadlineAssumption(const Constraints& c) {
  return c.deadline_confidence == DeadlineConfidence::kP90
             ? "deadline_hours is held to each option's P90 time (deadline_confidence p90, the "
               "default): at most one run in ten takes longer; spot times include interruptions"
             : "deadline_hours is held to each option's expected time (deadline_confidence p50): "
               "about half of the runs take longer";
}

// Whether an option whose times are `c` misses the deadline at the asked confidence.
bool MissesDeadline(const Candidate& c, const Constraints& cons) {
  if (!cons.deadline_hours) return false;
  double t = cons.deadline_confidence == DeadlineConfidence::kP90 ? std::max(c.hours, c.p90_hours)
                                                                  : c.hours;
  return t > *cons.deadline_hours;
}

}  // namespace gpuplan::plan
