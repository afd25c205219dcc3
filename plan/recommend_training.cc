// The training walk of a recommendation: every admitted offer on 1, 2, 4... nodes and each
// price kind asked, estimated once per distinct hardware configuration. The estimates and
// the options' costs run on the spare cores (plan/worker_pool.h); the catalog is read on the
// request's thread only. One offer's options are costed by WalkOffer (plan/training_options.h).
#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "db/text.h"
#include "model/training_job.h"
#include "model/counts.h"
#include "model/memory.h"
#include "plan/deadline.h"
#include "plan/hardware.h"
#include "plan/recommend_walk.h"
#include "plan/training_options.h"
#include "plan/worker_pool.h"

namespace gpuplan::plan {

using model::PriceKind;

namespace {

// No offer, or no slot, yet (in the walk's tables indexed by OfferIndex ids).
constexpr size_t kNone = SIZE_MAX;

// The offer whose options an offer's options repeat, for each offer of the walk (itself when
// none): the first offer of its repeat group (OfferIndex::RepeatGroupOf) in the walk's order.
// Such an offer takes the options and counts of that one instead of walking.
std::vector<size_t> RepeatedOffers(const CandidateOfferList& offers) {
  std::vector<size_t> first_of(offers.index->repeat_groups(), kNone);
  std::vector<size_t> rep_of(offers.offers.size());
  for (size_t i = 0; i < offers.offers.size(); ++i) {
    size_t& first = first_of[offers.index->RepeatGroupOf(*offers.offers[i])];
    if (first == kNone) first = i;
    rep_of[i] = first;
  }
  return rep_of;
}

// Whether an offer with `prices` has an option that starts on spot with a price: only then
// is its spot history read.
bool NeedsSpotPricing(const OfferPrices& prices, const Constraints& cons) {
  for (const auto& [name, kind] : model::kPriceKindNames) {
    if (model::StartsOnSpot(kind) && PriceOfOption(kind, prices, cons)) return true;
  }
  return false;
}

// What a recommendation's spot options assume about interruptions, given how many offers
// with a spot price took their rate from each source (`by_source`, by SpotRisk::Source):
// the default's assumption when any offer (or, before any is read, the request) uses it;
// the bands' when any offer has one (each option names its own rate).
std::vector<std::string> SpotRiskAssumptions(const PricingRequest& pricing,
                                             const int by_source[3]) {
  std::vector<std::string> out;
  if (pricing.rate_given) return out;
  const int bands = by_source[static_cast<int>(SpotRisk::Source::kBand)];
  const int defaults = by_source[static_cast<int>(SpotRisk::Source::kDefault)];
  if (bands > 0) {
    out.push_back(
        "spot interruption rates of " + std::to_string(bands) +
        " offer(s) from their AWS Spot Instance Advisor band (instance type and region): the "
        "band's monthly fraction of instances interrupted, at its midpoint, as a constant "
        "hazard -ln(1 - p) / 730 h per node; each spot option names its rate and band, and the "
        "band's range feeds its P10 / P90 (docs/model.md)");
  }
  if (defaults > 0 || bands == 0) out.push_back(DefaultRateAssumption(pricing.spot_params));
  return out;
}

// The warning of a ranking whose spot options rest on rates of different kinds: measured
// bands (AWS Spot Advisor) beside the conservative default, which is orders of magnitude
// higher, so spot options without a band rank behind banded ones partly for want of data.
std::optional<std::string> MixedSpotRiskWarning(const PricingRequest& pricing,
                                                const int by_source[3]) {
  const int bands = by_source[static_cast<int>(SpotRisk::Source::kBand)];
  const int defaults = by_source[static_cast<int>(SpotRisk::Source::kDefault)];
  if (pricing.rate_given || bands == 0 || defaults == 0) return std::nullopt;
  return "spot options compare interruption rates of different sources: " + std::to_string(bands) +
         " offer(s) at their AWS Spot Instance Advisor band, " + std::to_string(defaults) +
         " at the default " +
         fmt::format("{:.4g}", pricing.spot_params.interruption_rate_per_hour) +
         " per node-hour (no published data for their cloud or region), which is far higher: "
         "set pricing.interruption_rate_per_hour, or constrain the clouds, to compare them on "
         "one basis";
}

}  // namespace

Result<Recommendation> RecommendTraining(PlanContext& context, const TrainingRequest& request,
                                         const Constraints& constraints, Objective objective,
                                         int limit) {
  Pricing& pricing = context.pricing;
  // A request error is not an option's rejection: refuse it before counting options.
  Status valid = model::ValidateWorkload(request.workload);
  if (valid.ok()) valid = model::ValidateJobRequest(request.job, request.workload);
  if (!valid.ok()) return valid.error();
  if (request.job.hours > 0) {
    // Every option would take the same hours: a ranking by time or cost per hour says nothing.
    return Error::Invalid({Part::kDataset, "hours"},
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
  auto offers = CandidateOffers(context.catalog, cons);
  if (!offers.ok()) return offers.error();
  out.objective = objective;
  out.currency = pricing.currency();
  out.rejected = RejectedAtZero(
      {Rejection::kDoesNotFit, Rejection::kPrecisionUnsupported, Rejection::kBatchTooSmall,
       Rejection::kLayoutDoesNotDivide, Rejection::kNodeTooLarge, Rejection::kOverDeadline,
       Rejection::kOverBudget, Rejection::kNoPrice, Rejection::kDoubtfulPrice});
  out.rejected["node_too_large"] = offers->unsupported;
  if (cons.deadline_hours) out.assumptions.push_back(DeadlineAssumption(cons));
  const bool any_spot =
      cons.kinds.Has(PriceKind::kSpot) || cons.kinds.Has(PriceKind::kSpotWithFallback);
  out.deadline_confidence = cons.deadline_confidence;
  // Every distinct hardware configuration of the walk, estimated first: the estimates are
  // pure functions of the request and the configuration, so they run on the spare cores
  // (plan/worker_pool.h) and the answer is the same whichever thread ran one. The catalog
  // is read here, on the request's thread.
  const KeyFor key_for =
      model::IsImage(request.workload.family) ? KeyFor::kImageTraining : KeyFor::kTraining;
  NodeSpecs nodes_of(context.catalog);
  std::vector<TrainingConfiguration> configurations;
  std::vector<size_t> slots;  // of each offer on 1, 2, 4... nodes, in the walk's order
  int node_counts = 0;
  for (int nodes = 1; nodes <= cons.max_nodes; nodes *= 2) ++node_counts;
  slots.reserve(offers->offers.size() * node_counts);
  // An instance type has one offer per region and zone, all with the same ids (OfferIndex::
  // TypeOf, HardwareOf): its first offer's slots serve the others. The configurations are collected
  // on the request's thread (NodeSpecs reads the catalog).
  {
    const OfferIndex& index = *offers->index;
    std::vector<size_t> first_of(index.types(), kNone);  // by OfferIndex::TypeOf
    // By OfferIndex::HardwareOf and node count (its level).
    std::vector<size_t> slot_of(static_cast<size_t>(index.hardware()) * node_counts, kNone);
    for (const db::Offer* offer : offers->offers) {
      const uint32_t type = index.TypeOf(*offer);
      size_t& first = first_of[type];
      if (first != kNone) {
        const size_t from = first;
        for (int level = 0; level < node_counts; ++level) slots.push_back(slots[from + level]);
        continue;
      }
      first = slots.size();
      for (int nodes = 1, level = 0; nodes <= cons.max_nodes; nodes *= 2, ++level) {
        size_t& slot = slot_of[index.HardwareOf(type, key_for, nodes > 1) * node_counts + level];
        if (slot == kNone) {
          slot = configurations.size();
          configurations.push_back({&offer->instance, nodes_of.GpuOf(offer->instance), nodes});
        }
        slots.push_back(slot);
      }
    }
  }
  // Each offer's prices and spot pricing are read on the request's thread (the catalog is
  // its own), while the other threads start on the estimates. The spot history of an offer
  // is read when a spot option of it has a price, whether or not it fits (the estimates are
  // not known yet): more reads where little fits, in time the estimates take anyway. The
  // offers that repeat others are found first, in that time too.
  std::vector<size_t> rep_of;
  std::vector<OfferInputs> inputs;
  int spot_offers[3] = {0, 0, 0};  // by SpotRisk::Source
  size_t prices_read = 0;  // the offers before it had their prices read (or repeat one that did)
  auto read_prices = [&] {
    rep_of = RepeatedOffers(*offers);
    inputs.resize(offers->offers.size());
    for (size_t next = 0; next < offers->offers.size(); ++next, prices_read = next) {
      if (StopEarly(offers->offers.size(), next, out)) break;
      if (rep_of[next] != next) continue;  // its first offer's prices serve it
      const db::Offer& offer = *offers->offers[next];
      OfferInputs& in = inputs[next];
      in.prices = PriceOffer(pricing, offer);
      if (in.prices->ok() && NeedsSpotPricing(**in.prices, cons)) {
        in.spot = pricing.SpotPricingFor(&offer, *(*in.prices)->spot);
        in.risk = SpotRiskOf(&offer, request.pricing);
        ++spot_offers[static_cast<int>(in.risk.source)];
      }
    }
  };
  // The request's clock is on its thread only (plan/deadline.h): the pieces compare the
  // time with its planning deadline, read here.
  const auto planning_until = PlanningDeadline();
  auto time_up = [&] { return Past(planning_until); };
  TrainingEstimates estimates(configurations.size());
  ParallelFor(
      configurations.size(),
      [&](size_t i) {
        if (time_up()) return;  // not estimated: the walk stops before its first offer
        const TrainingConfiguration& configuration = configurations[i];
        if (!configuration.gpu.ok()) {
          estimates[i] = configuration.gpu.error();
          return;
        }
        model::Cluster cluster;
        cluster.node = NodeFromInstance(*configuration.type, **configuration.gpu);
        cluster.nodes = configuration.nodes;
        // Figures only: the options show no estimate's words (api/plan_json.cc).
        estimates[i] = Shared(
            model::EstimateTrainingFigures(request.workload, request.job, cluster));
      },
      read_prices);
  // The walk covers the offers whose prices were read and whose options were estimated.
  size_t walked = 0;
  for (; walked < offers->offers.size(); ++walked) {
    const size_t* offer_slots = &slots[walked * node_counts];
    if (walked >= prices_read ||
        std::any_of(offer_slots, offer_slots + node_counts,
                    [&](size_t i) { return !estimates[i].has_value(); })) {
      StoppedEarly(offers->offers.size(), walked, out);  // the time ran out first
      break;
    }
  }
  // The options of each offer, in blocks of offers on the spare cores; the blocks' options,
  // counts and first error are joined in the offers' order, so the ranking (whose ties keep
  // that order), every count and the error answered are those of one walk. A block the
  // planning time leaves out ends the walk at its first offer.
  // An offer repeated by later ones (RepeatedOffers) keeps its own counts, which each of
  // them adds, and its options' range in its block, which each of them copies.
  std::vector<char> repeated(offers->offers.size(), 0);
  for (size_t i = 0; i < walked; ++i) {
    if (rep_of[i] != i) repeated[rep_of[i]] = 1;
  }
  std::unordered_map<size_t, OptionCounts> counts_of;
  for (size_t i = 0; i < walked; ++i) {
    if (repeated[i]) counts_of[i];
  }
  constexpr size_t kOffersPerBlock = 64;
  struct Block {
    bool walked = false;
    std::vector<Candidate> feasible;
    FallbackCosts fallbacks;     // of its spot_with_fallback options
    std::vector<size_t> starts;  // of each offer's options in `feasible`, and the end
    OptionCounts counts;
    std::optional<Error> error;
  };
  std::vector<Block> blocks((walked + kOffersPerBlock - 1) / kOffersPerBlock);
  // Offers of one configuration in many regions share their spot times (SpotTimesMemo); the
  // offers are in region order, so each thread keeps one memo for all the blocks it walks.
  struct Memos {
    std::mutex mutex;
    std::unordered_map<std::thread::id, SpotTimesMemo> by_thread;
    SpotTimesMemo& ForThisThread() {
      std::lock_guard lock(mutex);
      return by_thread[std::this_thread::get_id()];  // node-based: the reference stays valid
    }
  } memos;
  const double checkpoint_bytes = model::TrainingCheckpointBytes(request.workload);
  ParallelFor(blocks.size(), [&](size_t b) {
    if (time_up()) return;
    Block& block = blocks[b];
    block.walked = true;
    const size_t end = std::min(walked, (b + 1) * kOffersPerBlock);
    block.feasible.reserve((end - b * kOffersPerBlock) * node_counts * 3);  // 3 price kinds
    block.starts.reserve(end - b * kOffersPerBlock + 1);
    SpotTimesMemo& memo = memos.ForThisThread();
    for (size_t next = b * kOffersPerBlock; next < end && !block.error; ++next) {
      block.starts.push_back(block.feasible.size());
      if (rep_of[next] != next) continue;  // joined below from its first offer's
      OptionCounts& counts = repeated[next] ? counts_of.at(next) : block.counts;
      block.error = WalkOffer(*offers->offers[next], inputs[next], &slots[next * node_counts],
                              configurations, estimates, request, cons, checkpoint_bytes, memo,
                              block.feasible, block.fallbacks, counts);
      if (repeated[next]) block.counts += counts;
    }
    block.starts.push_back(block.feasible.size());
    block.fallbacks.Link(block.feasible);
  });
  // The options of offer `i` (walked, in a walked block), in `blocks`.
  auto options_of = [&](size_t i) {
    Block& block = blocks[i / kOffersPerBlock];
    const size_t k = i % kOffersPerBlock;
    return std::make_pair(block.feasible.begin() + block.starts[k],
                          block.feasible.begin() + block.starts[k + 1]);
  };
  // The options in the walk's order: those of walked offers where their block keeps them,
  // those of repeating offers copied (with their own offer) into `copies`, which is sized
  // for them first so that it never moves them.
  std::vector<Candidate*> feasible;
  std::vector<Candidate> copies;
  size_t options = 0, copied = 0;  // those the loop below joins, and copies
  for (size_t b = 0; b < blocks.size() && blocks[b].walked; ++b) {
    const size_t first = b * kOffersPerBlock;
    for (size_t i = first; i + 1 - first < blocks[b].starts.size(); ++i) {
      auto [from, to] = options_of(rep_of[i]);
      options += to - from;
      if (rep_of[i] != i) copied += to - from;
    }
    if (blocks[b].error) break;  // as the join: the walk answers that error
  }
  feasible.reserve(options);
  copies.reserve(copied);
  OptionCounts total;
  for (size_t b = 0; b < blocks.size(); ++b) {
    Block& block = blocks[b];
    if (!block.walked) {
      StoppedEarly(offers->offers.size(), b * kOffersPerBlock, out);
      break;
    }
    total += block.counts;
    const size_t first = b * kOffersPerBlock;
    for (size_t i = first; i + 1 - first < block.starts.size(); ++i) {
      if (rep_of[i] == i) {
        auto [from, to] = options_of(i);
        for (auto c = from; c != to; ++c) feasible.push_back(&*c);
        continue;
      }
      total += counts_of.at(rep_of[i]);
      auto [from, to] = options_of(rep_of[i]);
      for (auto c = from; c != to; ++c) {
        if (copies.size() == copies.capacity()) {
          return Error::Internal("more copies of options than counted");  // would move them
        }
        Candidate& copy = copies.emplace_back(*c);
        copy.offer = offers->offers[i];
        feasible.push_back(&copy);
      }
    }
    if (block.error) return *block.error;
  }
  total.AddTo(out);
  if (any_spot) {
    for (std::string& a : SpotRiskAssumptions(request.pricing, spot_offers)) {
      out.assumptions.push_back(std::move(a));
    }
    if (auto mixed = MixedSpotRiskWarning(request.pricing, spot_offers)) {
      out.warnings.push_back(std::move(*mixed));
    }
  }
  Finish(feasible, objective, limit, cons, out);
  return out;
}

}  // namespace gpuplan::plan
