// Planner::Recommend and Planner::Compare: catalog options estimated once per distinct
// hardware configuration, filtered by the constraints, ranked by the objective.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "db/offer_query.h"
#include "model/training_job.h"
#include "db/text.h"
#include "model/counts.h"
#include "plan/deadline.h"
#include "plan/planner.h"

namespace gpuplan::plan {

namespace {

// `gpu` is one of `wanted` (db::GpuIdMatches); every GPU when `wanted` is empty.
bool GpuMatches(const std::set<std::string>& wanted, const std::string& gpu) {
  if (wanted.empty()) return true;
  for (const std::string& w : wanted) {
    if (db::GpuIdMatches(gpu, w)) return true;
  }
  return false;
}

// What the model sees of an offer: offers with equal keys get equal estimates, whatever
// their cloud, region or price (a p4d.24xlarge in six regions is estimated once; an
// 8 x A100 node of any cloud, on one node, once).
using HardwareKey = std::tuple<std::string, int, std::string, double, double, double, int>;

// Offers are looked up by key three times each (1, 2, 4 nodes): a hash, not an ordered map
// of string tuples.
struct HardwareKeyHash {
  size_t operator()(const HardwareKey& k) const {
    size_t h = std::hash<std::string>()(std::get<0>(k));
    auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    mix(std::hash<int>()(std::get<1>(k)));
    mix(std::hash<std::string>()(std::get<2>(k)));
    mix(std::hash<double>()(std::get<3>(k)));
    mix(std::hash<double>()(std::get<4>(k)));
    mix(std::hash<double>()(std::get<5>(k)));
    mix(std::hash<int>()(std::get<6>(k)));
    return h;
  }
};

// Only what the model reads is in the key: the network between nodes when there are several,
// the vCPUs (the input pipeline) for image workloads in training; serving reads neither.
enum class KeyFor { kTraining, kImageTraining, kServing };
HardwareKey KeyOf(const db::InstanceType& t, int nodes, KeyFor use) {
  const double network = use != KeyFor::kServing && nodes > 1 ? t.network_gbps.value_or(0) : 0;
  const double vcpus = use == KeyFor::kImageTraining ? t.vcpus.value_or(0) : 0;
  return {t.gpu_id, t.gpu_count, t.interconnect, t.interconnect_bw_gbps, network, vcpus, nodes};
}

using model::PriceKind;

// The price of one option (offer x price kind; spot_with_fallback starts at the spot price and
// needs an on-demand one too): nullopt when the kind is not allowed, or when it is not
// offered (then counted as considered and rejected for no_price).
std::optional<double> OptionPrice(PriceKind kind, const PriceQuote& quote, const Constraints& cons,
                                  int& considered, std::map<std::string, int>& rejected) {
  if (!cons.kinds.Has(kind)) return std::nullopt;
  ++considered;
  std::optional<double> price = kind == PriceKind::kOndemand ? quote.ondemand : quote.spot;
  if (kind == PriceKind::kSpotWithFallback && !quote.ondemand) price.reset();
  if (!price) ++rejected["no_price"];
  return price;
}

struct CandidateStats {
  int unsupported = 0;  // offers with more GPUs per node than the model covers
};

// The offers a recommendation walks: pointers into the catalog's shared offers (`all`
// keeps them alive while the options point at them).
struct CandidateOfferList {
  std::shared_ptr<const std::vector<db::Offer>> all;
  std::vector<const db::Offer*> offers;
};

Result<CandidateOfferList> CandidateOffers(db::CatalogReader& catalog, const Constraints& c,
                                           CandidateStats& stats) {
  auto all = catalog.AllOffers();
  if (!all.ok()) return all.error();
  CandidateOfferList out{*all, {}};
  for (const db::Offer& o : **all) {
    if (c.min_gpu_memory_gb > 0 && o.gpu_memory_gb < c.min_gpu_memory_gb) continue;
    if (!c.clouds.empty() && !c.clouds.count(o.instance.cloud)) continue;
    if (!c.regions.empty() && !c.regions.count(o.region)) continue;
    if (!GpuMatches(c.gpus, o.instance.gpu_id)) continue;
    // Nodes larger than the model covers (catalog counts go to 1024) are skipped, not errors.
    if (o.instance.gpu_count < 1 || o.instance.gpu_count > model::kMaxGpusPerNode) {
      ++stats.unsupported;
      continue;
    }
    out.offers.push_back(&o);
  }
  return out;
}

// An estimate kept once and shared by every option with the same hardware.
template <typename T>
Result<std::shared_ptr<const T>> Shared(Result<T> estimate) {
  if (!estimate.ok()) return estimate.error();
  return std::make_shared<const T>(std::move(estimate).value());
}

// Whether the walk over `offers` stops before `next` (the request's planning share is
// spent, plan/deadline.h); if so, `out` says how far it got.
bool StopEarly(size_t offers, size_t next, Recommendation& out) {
  if (!PlanningTimeUp()) return false;
  out.stopped_early = true;
  out.offers_evaluated = static_cast<int>(next);
  out.offers_not_evaluated = static_cast<int>(offers - next);
  return true;
}

bool FieldIs(const Error& e, const char* field) {
  return e.code == ErrorCode::kInvalidArgument && !e.fields.empty() && e.fields[0].field == field;
}

// An option while options are counted and ranked: no strings, the offer by pointer (the
// offers outlive the ranking); only the options answered become RecommendedOptions.
struct Candidate {
  const db::Offer* offer = nullptr;
  int nodes = 1;
  PriceKind kind = PriceKind::kOndemand;
  double price_per_hour = 0, hours = 0, cost = 0, score = 0;
  double p10_hours = 0, p90_hours = 0;  // training
  PriceQuality price;  // its offer's flags (plan/price_quality.h)
  double checkpoint_interval_minutes = 0;
  std::shared_ptr<const FallbackTrainingCost> fallback;
  std::shared_ptr<const model::TrainingEstimate> training;
  std::shared_ptr<const model::ServingEstimate> serving;
};

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
  o.training = c.training;
  o.serving = c.serving;
  o.fallback = c.fallback;
  const std::string& gpu = c.offer->instance.gpu_id;
  if (c.training) {
    const model::TrainingEstimate& e = *c.training;
    std::string kind = model::StartsOnSpot(c.kind) ? " on spot" : " on demand";
    if (c.fallback) {
      kind += ", moving to on-demand at " +
              db::FormatNumber("%.1f h", c.fallback->run.switch_at_hours) + " if not done";
    }
    o.why = std::to_string(o.total_gpus) + "x " + gpu + kind + ", " +
            db::FormatNumber("%.1f h", c.hours) + ", bottleneck " + e.step.bottleneck + ", MFU " +
            db::FormatNumber("%.2f", e.mfu);
  }
  if (c.serving) {
    const model::ServingEstimate& e = *c.serving;
    o.cost_per_month = c.cost * kHoursPerMonth;
    o.why = std::to_string(e.replicas) + " replica(s) of " + std::to_string(e.gpus_per_replica) +
            "x " + gpu + " at batch " + std::to_string(e.chosen.batch) + ", " +
            db::FormatNumber("%.2f s", e.chosen.latency_s) + " per request" +
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
void Rank(std::vector<Candidate>& feasible, Objective objective, int limit,
          Constraints::Distinct distinct, Recommendation& out) {
  double min_cost = INFINITY, min_hours = INFINITY;
  for (const auto& c : feasible) {
    min_cost = std::min(min_cost, c.cost);
    min_hours = std::min(min_hours, c.hours);
  }
  for (auto& c : feasible) {
    switch (objective) {
      case Objective::kCost: c.score = c.cost + c.hours * 1e-9; break;
      case Objective::kTime: c.score = c.hours + c.cost * 1e-12; break;
      case Objective::kBalanced:  // product of the ratios to the best of each
        c.score = (c.cost / std::max(min_cost, 1e-12)) * (c.hours / std::max(min_hours, 1e-12));
        break;
    }
  }
  // Pointers are sorted, not the candidates (each holds an offer's price flags and three
  // shared estimates: moving them dominated the sort).
  std::vector<const Candidate*> by_score;
  by_score.reserve(feasible.size());
  for (const auto& c : feasible) by_score.push_back(&c);
  std::vector<const Candidate*> by_time = by_score;
  // Ties keep the candidates' order: the pointers into `feasible` are in that order, so
  // comparing them last makes the order total (as stable as std::stable_sort).
  auto better = [](const Candidate* a, const Candidate* b) {
    return a->score < b->score || (a->score == b->score && a < b);
  };
  std::sort(by_time.begin(), by_time.end(), [](const Candidate* a, const Candidate* b) {
    if (a->hours != b->hours) return a->hours < b->hours;
    if (a->cost != b->cost) return a->cost < b->cost;
    return a < b;
  });
  double best_cost = INFINITY;
  for (const Candidate* c : by_time) {
    if (c->cost < best_cost) {
      best_cost = c->cost;
      out.pareto_front.push_back(Materialize(*c));
    }
  }
  out.feasible = static_cast<int>(feasible.size());
  // Only the best few are answered: a heap yields them in order without sorting the rest.
  auto worse = [&](const Candidate* a, const Candidate* b) { return better(b, a); };
  std::make_heap(by_score.begin(), by_score.end(), worse);
  std::set<std::string> seen;
  for (auto end = by_score.end();
       end != by_score.begin() && static_cast<int>(out.items.size()) < limit; --end) {
    std::pop_heap(by_score.begin(), end, worse);
    const Candidate* next = *(end - 1);
    std::string key = DistinctKey(*next, distinct);
    if (!key.empty() && !seen.insert(key).second) continue;
    out.items.push_back(Materialize(*next));
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

}  // namespace

Status Planner::CheckConstraintNames(const Constraints& c) {
  std::vector<FieldError> errors;
  if (!c.cloud_names.empty()) {
    auto clouds = catalog_.ListClouds();
    if (!clouds.ok()) return clouds.error();
    std::set<std::string> known;
    for (const auto& cloud : *clouds) known.insert(cloud.cloud.id);
    for (size_t i = 0; i < c.cloud_names.size(); ++i) {
      if (!known.count(c.cloud_names[i])) {
        errors.push_back({"constraints.clouds." + std::to_string(i),
                          "unknown cloud '" + db::Printable(c.cloud_names[i], 60) +
                              "' (ids are lower case; see GET /api/v1/clouds)"});
      }
    }
  }
  if (!c.region_names.empty()) {
    auto regions = catalog_.ListRegions("");
    if (!regions.ok()) return regions.error();
    std::set<std::string> known;
    for (const auto& region : *regions) known.insert(region.id);
    for (size_t i = 0; i < c.region_names.size(); ++i) {
      if (!known.count(c.region_names[i])) {
        errors.push_back({"constraints.regions." + std::to_string(i),
                          "unknown region '" + db::Printable(c.region_names[i], 60) +
                              "' (see GET /api/v1/regions)"});
      }
    }
  }
  if (!c.gpu_names.empty()) {
    auto gpus = catalog_.ListGpus();
    if (!gpus.ok()) return gpus.error();
    for (size_t i = 0; i < c.gpu_names.size(); ++i) {
      bool known = false;
      for (const auto& g : *gpus) known = known || db::GpuIdMatches(g.id, c.gpu_names[i]);
      if (!known) {
        errors.push_back({"constraints.gpus." + std::to_string(i),
                          "unknown GPU '" + db::Printable(c.gpu_names[i], 60) +
                              "': no catalog GPU is or starts with this name (see GET /api/v1/gpus)"});
      }
    }
  }
  if (!errors.empty()) {
    Error e{ErrorCode::kInvalidArgument, errors.front().detail, errors};
    if (errors.size() > 1) e.message = std::to_string(errors.size()) + " invalid fields";
    return e;
  }
  return OkStatus();
}

Result<Recommendation> Planner::Recommend(const RecommendRequest& request) {
  Status names = CheckConstraintNames(request.constraints);
  if (!names.ok()) return names.error();
  Status currency =
      UseCurrency(request.training ? request.training->currency : request.inference->currency);
  if (!currency.ok()) return currency.error();
  if (request.training) {
    std::optional<ReferenceWork> reference;
    auto training = WithReferenceWork(*request.training, &reference);
    if (!training.ok()) return training.error();
    auto out = RecommendTraining(*training, request.constraints, request.objective,
                                 request.limit);
    if (out.ok() && reference) out->assumptions.push_back(ReferenceAssumption(*reference));
    return out;
  }
  return RecommendInference(*request.inference, request.constraints, request.objective,
                            request.limit);
}

Result<Recommendation> Planner::RecommendTraining(const TrainingRequest& request,
                                                  const Constraints& constraints,
                                                  Objective objective,
                                                  int limit) {
  // A request error is not an option's rejection: refuse it before counting options.
  Status valid = model::ValidateWorkload(request.workload);
  if (valid.ok()) valid = model::ValidateJobRequest(request.job, request.workload);
  if (!valid.ok()) return valid.error();
  if (request.job.hours > 0) {
    // Every option would take the same hours: a ranking by time or cost per hour says nothing.
    return Error::Invalid("dataset.hours",
                          "a recommendation compares how long a given amount of work takes and "
                          "what it costs; give samples (and epochs) or tokens, not hours");
  }
  Recommendation out;
  Constraints cons = constraints;
  if (cons.deadline_hours && !cons.price_kinds_given && cons.kinds.Has(PriceKind::kSpot)) {
    cons.kinds.Add(PriceKind::kSpotWithFallback);
    out.assumptions.push_back(
        "with a deadline, options also include spot_with_fallback: spot that moves to "
        "on-demand in time for the deadline (its P90 time meets it); ask price_kinds to "
        "choose the kinds");
  }
  CandidateStats stats;
  auto offers = CandidateOffers(catalog_, cons, stats);
  if (!offers.ok()) return offers.error();
  out.objective = objective;
  out.currency = currency_;
  out.rejected = {{"does_not_fit", 0},   {"precision_unsupported", 0},
                  {"batch_too_small", 0}, {"layout_does_not_divide", 0},
                  {"node_too_large", stats.unsupported}, {"over_deadline", 0},
                  {"over_budget", 0},    {"no_price", 0}, {"doubtful_price", 0}};
  if (cons.deadline_hours) out.assumptions.push_back(DeadlineAssumption(cons));
  const bool any_spot =
      cons.kinds.Has(PriceKind::kSpot) || cons.kinds.Has(PriceKind::kSpotWithFallback);
  if (any_spot && !request.pricing.rate_given) {
    out.assumptions.push_back(DefaultRateAssumption(request.pricing.spot_params));
  }
  out.deadline_confidence = cons.deadline_confidence;
  std::map<std::string, model::GpuSpec> gpus;
  std::unordered_map<HardwareKey, Result<std::shared_ptr<const model::TrainingEstimate>>,
                     HardwareKeyHash>
      cache;
  std::vector<Candidate> feasible;
  for (size_t next = 0; next < offers->offers.size(); ++next) {
    if (StopEarly(offers->offers.size(), next, out)) break;
    const db::Offer& offer = *offers->offers[next];
    if (!gpus.count(offer.instance.gpu_id)) {
      auto g = catalog_.GetGpu(offer.instance.gpu_id);
      if (!g.ok()) return g.error();
      gpus.emplace(offer.instance.gpu_id, *g);
    }
    auto quote = Quote(offer);
    if (!quote.ok()) return quote.error();
    const PriceQuality quality = AssessPrice(offer, now_);
    const bool doubtful = quality.spot_above_ondemand;
    std::optional<SpotPricing> spot_pricing;  // the offer's, on first use
    for (int nodes = 1; nodes <= cons.max_nodes; nodes *= 2) {
      HardwareKey key = KeyOf(offer.instance, nodes,
                              model::IsImage(request.workload.family) ? KeyFor::kImageTraining
                                                                      : KeyFor::kTraining);
      auto it = cache.find(key);
      if (it == cache.end()) {
        model::Cluster cluster;
        cluster.node = NodeFromInstance(offer.instance, gpus.at(offer.instance.gpu_id));
        cluster.nodes = nodes;
        it = cache.emplace(key, Shared(model::EstimateTraining(request.workload, request.job,
                                                               cluster, model::DefaultConstants(),
                                                               false)))
                 .first;
      }
      for (const auto& [name, kind] : model::kPriceKindNames) {
        const bool spot = model::StartsOnSpot(kind);
        auto price = OptionPrice(kind, *quote, cons, out.considered, out.rejected);
        if (!price) continue;
        if (doubtful && !cons.include_doubtful_prices) {
          ++out.rejected["doubtful_price"];
          continue;
        }
        if (!it->second.ok()) {
          const Error& error = it->second.error();
          if (FieldIs(error, "precision")) {
            ++out.rejected["precision_unsupported"];
          } else if (FieldIs(error, "global_batch_size")) {
            ++out.rejected["batch_too_small"];  // fewer samples per step than GPUs
          } else if (FieldIs(error, "tensor_parallel") || FieldIs(error, "pipeline_parallel") ||
                     FieldIs(error, "context_parallel")) {
            ++out.rejected["layout_does_not_divide"];  // TP x PP x CP does not divide its GPUs
          } else {
            return error;
          }
          continue;
        }
        const auto& estimate = *it->second;
        if (estimate->memory.verdict == model::FitVerdict::kDoesNotFit) {
          ++out.rejected["does_not_fit"];
          continue;
        }
        Candidate c;
        c.offer = &offer;
        c.nodes = nodes;
        c.kind = kind;
        c.price = quality;
        c.price_per_hour = *price;
        c.training = estimate;
        if (spot) {
          PricingRequest spot_only = request.pricing;
          spot_only.kinds = {kind};
          spot_only.deadline_hours = cons.deadline_hours;
          if (!spot_pricing) {
            auto found = SpotPricingFor(offer, *price);
            if (!found.ok()) return found.error();
            spot_pricing = *found;
          }
          c.price_per_hour = spot_pricing->price_per_hour;
          TrainingCost cost = CostOfTraining(*estimate, request.workload, nodes, *quote, spot_only,
                                             *spot_pricing, offer.instance.cloud);
          if (kind == PriceKind::kSpotWithFallback) {
            if (!cost.fallback) {
              ++out.rejected["no_price"];
              continue;
            }
            if (!cost.fallback->run.feasible) {
              ++out.rejected["over_deadline"];
              continue;
            }
            c.hours = cost.fallback->run.expected_hours;
            c.p90_hours = cost.fallback->run.p90_hours;
            // The P10 run finishes on spot: the spot run's P10 (never past the expected).
            c.p10_hours = c.hours;
            auto on_spot = model::SpotRun(estimate->total_hours, nodes, cost.fallback->params);
            if (on_spot.ok()) {
              c.p10_hours = std::min(c.hours, model::SpotWallRange(estimate->p10_hours,
                                                                   estimate->p90_hours, nodes,
                                                                   cost.fallback->params, *on_spot)
                                                  .p10_hours);
            }
            c.cost = RoundMoney(cost.fallback->expected_total);
            c.checkpoint_interval_minutes = cost.fallback->run.checkpoint_interval_minutes;
            c.fallback = std::make_shared<const FallbackTrainingCost>(*cost.fallback);
          } else {
            if (!cost.spot || !cost.spot->run.viable) {
              ++out.rejected["no_price"];
              continue;
            }
            c.hours = cost.spot->run.wall_hours;
            c.p10_hours = cost.spot->p10_wall_hours;
            c.p90_hours = cost.spot->p90_wall_hours;
            c.cost = RoundMoney(cost.spot->expected_total);
            c.checkpoint_interval_minutes = cost.spot->run.checkpoint_interval_minutes;
          }
        } else {
          c.hours = estimate->total_hours;
          c.p10_hours = estimate->p10_hours;
          c.p90_hours = estimate->p90_hours;
          c.cost = *price * nodes * estimate->total_hours;
        }
        if (MissesDeadline(c, cons)) {
          ++out.rejected["over_deadline"];
          continue;
        }
        if (cons.budget && c.cost > *cons.budget) {
          ++out.rejected["over_budget"];
          continue;
        }
        feasible.push_back(std::move(c));
      }
    }
  }
  Rank(feasible, objective, limit, cons.distinct, out);
  NoteDoubtfulPrices(out);
  return out;
}

Result<Recommendation> Planner::RecommendInference(const InferenceRequest& request,
                                                   Constraints cons, Objective objective,
                                                   int limit) {
  Recommendation out;
  out.inference = true;
  out.objective = objective;
  out.currency = currency_;
  if (!cons.price_kinds_given) {
    cons.kinds.Remove(PriceKind::kSpot);
    out.assumptions.push_back(
        "on-demand prices only: a serving fleet runs around the clock and spot capacity can "
        "be reclaimed; ask price_kinds [\"spot\"] to see spot options");
  }
  CandidateStats stats;
  auto offers = CandidateOffers(catalog_, cons, stats);
  if (!offers.ok()) return offers.error();
  out.rejected = {{"does_not_fit", 0}, {"precision_unsupported", 0},
                  {"tensor_parallel_too_large", 0}, {"over_max_gpus", 0},
                  {"node_too_large", stats.unsupported},
                  {"slo_not_met", 0}, {"over_budget", 0}, {"no_price", 0},
                  {"doubtful_price", 0}};
  std::map<std::string, model::GpuSpec> gpus;
  std::unordered_map<HardwareKey, Result<std::shared_ptr<const model::ServingEstimate>>,
                     HardwareKeyHash>
      cache;
  std::vector<Candidate> feasible;
  // The model's defaults (utilisation, weight overhead) hold for every option.
  for (std::string& a : model::ServingDefaultsAssumptions(
           model::ServingConstants(), model::IsDecoderOnly(request.workload.family))) {
    out.assumptions.push_back(std::move(a));
  }
  for (size_t next = 0; next < offers->offers.size(); ++next) {
    if (StopEarly(offers->offers.size(), next, out)) break;
    const db::Offer& offer = *offers->offers[next];
    HardwareKey key = KeyOf(offer.instance, 1, KeyFor::kServing);
    auto it = cache.find(key);
    if (it == cache.end()) {
      if (!gpus.count(offer.instance.gpu_id)) {
        auto g = catalog_.GetGpu(offer.instance.gpu_id);
        if (!g.ok()) return g.error();
        gpus.emplace(offer.instance.gpu_id, *g);
      }
      model::NodeSpec node = NodeFromInstance(offer.instance, gpus.at(offer.instance.gpu_id));
      it = cache.emplace(key, Shared(model::EstimateServing(request.workload, node,
                                                            request.serving)))
               .first;
    }
    auto quote = Quote(offer);
    if (!quote.ok()) return quote.error();
    const PriceQuality quality = AssessPrice(offer, now_);
    const bool doubtful = quality.spot_above_ondemand;
    for (PriceKind kind : {PriceKind::kOndemand, PriceKind::kSpot}) {
      auto price = OptionPrice(kind, *quote, cons, out.considered, out.rejected);
      if (!price) continue;
      if (doubtful && !cons.include_doubtful_prices) {
        ++out.rejected["doubtful_price"];
        continue;
      }
      if (!it->second.ok()) {
        if (FieldIs(it->second.error(), "precision")) {
          ++out.rejected["precision_unsupported"];
          continue;
        }
        if (FieldIs(it->second.error(), "tensor_parallel")) {
          ++out.rejected["tensor_parallel_too_large"];  // more GPUs per replica than the node has
          continue;
        }
        if (FieldIs(it->second.error(), "target_requests_per_s")) {
          ++out.rejected["over_max_gpus"];  // the load needs more than model::kMaxTotalGpus
          continue;
        }
        return it->second.error();
      }
      const auto& e = *it->second;
      if (e->verdict == model::FitVerdict::kDoesNotFit) {
        ++out.rejected["does_not_fit"];
        continue;
      }
      if (!e->slo_met) {
        ++out.rejected["slo_not_met"];
        continue;
      }
      const int instances = model::ServingInstances(*e, offer.instance.gpu_count);
      Candidate c;
      c.offer = &offer;
      c.nodes = instances;
      c.kind = kind;
      c.price = quality;
      c.price_per_hour = *price;
      c.cost = *price * instances;  // per hour
      c.hours = e->chosen.latency_s;
      c.serving = e;
      if (cons.budget && c.cost * kHoursPerMonth > *cons.budget) {
        ++out.rejected["over_budget"];
        continue;
      }
      feasible.push_back(std::move(c));
    }
  }
  Rank(feasible, objective, limit, cons.distinct, out);
  NoteDoubtfulPrices(out);
  return out;
}

Result<Comparison> Planner::Compare(const CompareRequest& asked) {
  Status currency = UseCurrency(asked.training.currency);
  if (!currency.ok()) return currency.error();
  std::optional<ReferenceWork> reference;
  auto training = WithReferenceWork(asked.training, &reference);
  if (!training.ok()) return training.error();
  CompareRequest request = asked;
  request.training = *training;
  // A request error is the request's, not each GPU's: refuse it before comparing.
  Status valid = model::ValidateWorkload(request.training.workload);
  if (valid.ok()) valid = model::ValidateJobRequest(request.training.job, request.training.workload);
  if (!valid.ok()) return valid.error();
  auto offers = catalog_.AllOffers();
  if (!offers.ok()) return offers.error();
  // The cheapest on-demand price per GPU-hour of each GPU in the catalog: among instances
  // of exactly gpus_per_node GPUs (a node one can rent at that price) where there is one,
  // else the cheapest share of any instance (then said in the row's warnings).
  auto any_node = CheapestPerGpuHour(**offers, PriceKind::kOndemand);
  if (!any_node.ok()) return any_node.error();
  auto whole_node = CheapestPerGpuHour(**offers, PriceKind::kOndemand, [&](const db::Offer& o) {
    return o.instance.gpu_count == asked.gpus_per_node;
  });
  if (!whole_node.ok()) return whole_node.error();
  std::map<std::string, GpuHourPrice> cheapest = std::move(any_node).value();
  for (const auto& [id, best] : *whole_node) cheapest[id] = best;
  std::vector<std::string> ids = request.gpus;
  if (!request.gpus_given) {
    for (const auto& [id, v] : cheapest) ids.push_back(id);
  }
  Comparison out;
  out.workload = request.training.workload;
  out.currency = currency_;
  out.gpus_per_node = request.gpus_per_node;
  const int per_node = request.gpus_per_node;
  for (size_t i = 0; i < ids.size(); ++i) {
    auto named = FindGpu(ids[i], "gpus." + std::to_string(i));
    if (!named.ok()) return named.error();
    if (!named->assumption.empty()) out.assumptions.push_back(named->assumption);
    const model::GpuSpec* gpu = &named->gpu;
    model::Cluster cluster;
    cluster.node.gpu = *gpu;
    cluster.node.gpus_per_node = per_node;
    cluster.node.interconnect = model::DefaultInterconnect(*gpu, per_node);
    const model::TrainingJob& job = request.training.job;
    auto e = model::EstimateTraining(request.training.workload, job, cluster);
    ComparisonRow row;
    row.gpu = gpu->id;
    row.precision =
        e.ok() ? e->precision
               : (job.precision_auto
                      ? model::AutoTrainingPrecision(
                            *gpu, model::ResolveFramework(job.framework, request.training.workload),
                            request.training.workload)
                      : job.precision);
    if (!e.ok()) {
      row.error = e.error().message;
      row.feasibility.Add(Infeasible::kUnsupported, e.error().message);
      out.rows.push_back(std::move(row));
      continue;
    }
    row.estimate = std::move(e).value();
    row.feasibility = TrainingFeasibility(row.estimate, cluster, job);
    auto price = cheapest.find(gpu->id);
    if (price == cheapest.end()) {
      row.feasibility.Add(Infeasible::kNoPrice,
                          "no catalog on-demand price for " + gpu->id,
                          "import or add a price for an instance with this GPU "
                          "(POST /api/v1/prices), or estimate it with hardware.price_per_hour");
    } else {
      double per_hour = price->second.price * per_node;
      const db::Offer& offer = *price->second.offer;
      row.price_per_gpu_hour = price->second.price;
      row.price_source = offer;
      if (row.feasibility.feasible()) {
        row.cost = per_hour * row.estimate.total_hours;
        row.samples_per_currency_unit = row.estimate.samples_per_s * 3600 / per_hour;
        row.tokens_per_currency_unit = row.estimate.tokens_per_s * 3600 / per_hour;
      }
      PriceQuality quality = AssessPrice(offer, now_);
      row.price_flags = quality.Flags();
      for (auto& w : PriceWarnings(offer, quality)) row.warnings.push_back(std::move(w));
      if (offer.instance.gpu_count != per_node) {
        row.warnings.push_back(
            "no catalog instance has " + std::to_string(per_node) + " " + gpu->id +
            " GPU(s): the price per GPU-hour is a 1/" + std::to_string(offer.instance.gpu_count) +
            " share of " + offer.instance.id + " (" + std::to_string(offer.instance.gpu_count) +
            " GPUs), and the cost assumes a node of " + std::to_string(per_node) +
            " could be rented at that rate");
      }
    }
    out.rows.push_back(std::move(row));
  }
  // Best value first; then feasible rows without a price, then rows that do not fit, then
  // rows the model refused.
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const ComparisonRow& a, const ComparisonRow& b) {
    auto group = [](const ComparisonRow& r) {
      if (r.error) return 3;
      if (r.feasibility.Has(Infeasible::kDoesNotFit)) return 2;
      return r.feasibility.feasible() ? 0 : 1;
    };
    if (group(a) != group(b)) return group(a) < group(b);
    return a.samples_per_currency_unit > b.samples_per_currency_unit;
  });
  out.assumptions.push_back(
      "each GPU at its cheapest on-demand catalog price per GPU-hour (the instance's price "
      "divided by its GPUs; price_source names the instance), on " +
      std::to_string(per_node) + " GPU(s) per node");
  int infeasible = 0;
  for (const ComparisonRow& r : out.rows) infeasible += r.error || !r.feasibility.feasible();
  if (infeasible > 0) {
    out.warnings.push_back(std::to_string(infeasible) +
                           " GPU(s) are not a plan as asked (their feasibility says why and "
                           "what would fix it): they have no cost and are ranked last");
  }
  return out;
}

}  // namespace gpuplan::plan
