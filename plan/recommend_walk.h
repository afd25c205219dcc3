// What the training and the serving recommendation walks share (plan/recommend_training.cc,
// plan/recommend_inference.cc): the catalog offers a request's constraints admit, the key
// under which offers share one estimate, an option's price, the candidates they rank, and
// the ranking itself. Internal to the recommendation question (plan/recommendation.h).
// Not thread-safe beyond what its arguments are; no I/O but the catalog reads of
// CandidateOffers and NodeSpecs::Of.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "db/catalog_reader.h"
#include "model/enum_names.h"
#include "plan/offer_index.h"
#include "plan/price_quality.h"
#include "plan/recommendation.h"

namespace gpuplan::plan {

// Why an option a walk met is not ranked: the keys of a recommendation's `rejected` (the
// model's refusals, plan/feasibility.h's reasons an option is not a plan under the same
// names, and nodes larger than the model covers). The table is in the enum's order.
enum class Rejection : unsigned char {
  kDoesNotFit,
  kPrecisionUnsupported,
  kBatchTooSmall,
  kLayoutDoesNotDivide,
  kTensorParallelTooLarge,
  kOverMaxGpus,
  kNodeTooLarge,
  kSloNotMet,
  kOverDeadline,
  kOverBudget,
  kNoPrice,
  kDoubtfulPrice,
};
inline constexpr model::EnumNames<Rejection, 12> kRejectionNames = {{
    {"does_not_fit", Rejection::kDoesNotFit},
    {"precision_unsupported", Rejection::kPrecisionUnsupported},
    {"batch_too_small", Rejection::kBatchTooSmall},
    {"layout_does_not_divide", Rejection::kLayoutDoesNotDivide},
    {"tensor_parallel_too_large", Rejection::kTensorParallelTooLarge},
    {"over_max_gpus", Rejection::kOverMaxGpus},
    {"node_too_large", Rejection::kNodeTooLarge},
    {"slo_not_met", Rejection::kSloNotMet},
    {"over_deadline", Rejection::kOverDeadline},
    {"over_budget", Rejection::kOverBudget},
    {"no_price", Rejection::kNoPrice},
    {"doubtful_price", Rejection::kDoubtfulPrice},
}};

// The options a walk (or a block of its offers) considered, and those it rejected by
// reason: plain counters (a walk counts tens of thousands of options), added up in the walk's
// order and written into the answer once. Not thread-safe: one per block.
struct OptionCounts {
  int considered = 0;
  std::array<int, kRejectionNames.size()> rejected{};

  void Reject(Rejection why) { ++rejected[static_cast<size_t>(why)]; }
  OptionCounts& operator+=(const OptionCounts& more);
  // Adds them to `out`: `considered`, and each reason counted at least once under its name
  // in `rejected` (a reason the answer lists with 0 is set there by the walk).
  void AddTo(Recommendation& out) const;
};

// The answer's `rejected` with every reason in `always` at 0 (the reasons a task's answer
// always lists; others appear once counted).
std::map<std::string, int> RejectedAtZero(std::initializer_list<Rejection> always);

// An offer's prices in the request currency (Pricing::QuotePrices' figures, without its
// text: the walks keep one per offer) and their flags, read once per offer.
struct OfferPrices {
  std::optional<double> ondemand, spot;
  PriceQuality quality;
};
Result<OfferPrices> PriceOffer(const Pricing& pricing, const db::Offer& offer);

// The price of an offer's options of one kind (spot_with_fallback starts at the spot price and
// needs an on-demand one too), without counting an option: nullopt when the kind is not
// asked, or, with `*why` set to the rejection reason, when it is not offered (no_price) or its
// spot price is above its own on-demand one and the request does not rank such prices
// (doubtful_price).
std::optional<double> PriceOfOption(model::PriceKind kind, const OfferPrices& prices,
                                    const Constraints& cons, Rejection* why = nullptr);

// An offer's PriceOfOption of one kind, read once and counted for each of its options of that
// kind (the same price on every node count).
struct KindPrice {
  model::PriceKind kind = model::PriceKind::kOndemand;
  bool asked = false;  // the request allows the kind
  std::optional<double> price;
  Rejection why = Rejection::kNoPrice;  // when asked without a price
  // The price of one option of this kind: nullopt when the kind is not asked, or when it has
  // no price (counted in `counts` as considered and rejected for `why`); a priced option is
  // counted as considered.
  std::optional<double> Count(OptionCounts& counts) const;
};
KindPrice PriceOfKind(model::PriceKind kind, const OfferPrices& prices, const Constraints& cons);

// The node of each instance type a walk meets, its GPU's spec read from the catalog once.
class NodeSpecs {
 public:
  explicit NodeSpecs(db::CatalogReader& catalog) : catalog_(catalog) {}
  Result<model::NodeSpec> Of(const db::InstanceType& type);
  // The spec of the type's GPU, kept while this lives: Of without the node (other threads
  // may read the spec and build the node, NodeFromInstance, while no call adds one).
  Result<const model::GpuSpec*> GpuOf(const db::InstanceType& type);

 private:
  db::CatalogReader& catalog_;
  std::map<std::string, model::GpuSpec> gpus_;
};

// The offers a recommendation walks: pointers into the catalog's shared offers (`all`
// keeps them alive while the options point at them) in the catalog's order, the ids that
// group them (`index`, of `all`), and how many were skipped as nodes larger than the model
// covers.
struct CandidateOfferList {
  std::shared_ptr<const std::vector<db::Offer>> all;
  std::shared_ptr<const OfferIndex> index;
  std::vector<const db::Offer*> offers;
  int unsupported = 0;
};
Result<CandidateOfferList> CandidateOffers(db::CatalogReader& catalog, const Constraints& c);

// An estimate kept once and shared by every option with the same hardware.
template <typename T>
Result<std::shared_ptr<const T>> Shared(Result<T> estimate) {
  if (!estimate.ok()) return estimate.error();
  return std::make_shared<const T>(std::move(estimate).value());
}

// Whether the walk over `offers` stops before `next` (the request's planning share is
// spent, plan/deadline.h); if so, `out` says how far it got (StoppedEarly).
bool StopEarly(size_t offers, size_t next, Recommendation& out);
// Says in `out` that the walk over `offers` stopped before `next`.
void StoppedEarly(size_t offers, size_t next, Recommendation& out);

// The rejection reason of an option whose estimate the model refused with `e`
// (Error::refusal: precision_unsupported, batch_too_small, layout_does_not_divide,
// tensor_parallel_too_large, over_max_gpus), counted in `counts`; false when `e` is not an
// option's refusal but an error of the request (or the service).
bool Reject(const Error& e, OptionCounts& counts);

// An option while options are counted and ranked: no strings, the offer by pointer (the
// offers outlive the ranking); only the options answered become RecommendedOptions.
// Its estimate (and a fallback's cost, a spot option's risk) is the walk's, by pointer: the walk
// keeps them until the ranking ends, and a copy of a candidate (tens of thousands per walk) is a
// plain copy that touches no reference count every thread of the walk shares.
struct Candidate {
  const db::Offer* offer = nullptr;
  int nodes = 1;
  model::PriceKind kind = model::PriceKind::kOndemand;
  double price_per_hour = 0, hours = 0, cost = 0, score = 0;
  double p10_hours = 0, p90_hours = 0;  // training
  PriceQuality price;  // the flags of the price it is costed on (plan/price_quality.h)
  double checkpoint_interval_minutes = 0;
  // Spot training options: the interruption rate they are costed at (the walk's, kept as
  // the estimates are; null for the others).
  const SpotRisk* risk = nullptr;
  const FallbackTrainingCost* fallback = nullptr;  // kept by the walk, as the estimates
  const std::shared_ptr<const model::TrainingEstimate>* training = nullptr;
  const std::shared_ptr<const model::ServingEstimate>* serving = nullptr;
};
static_assert(std::is_trivially_copyable_v<Candidate>, "moved by the ten thousand");

// An option of `offer` on `nodes` instances at `price` (per instance) of `kind`; its times,
// cost and estimate are the walk's to set.
Candidate NewCandidate(const db::Offer& offer, int nodes, model::PriceKind kind,
                       const OfferPrices& prices, double price);

// Whether `budget_cost` (training: the total; serving: per month) is within the request's
// budget; counts over_budget in `counts` when it is not.
bool WithinBudget(double budget_cost, const Constraints& cons, OptionCounts& counts);

// Ranks `feasible` (in the walk's order, which ties keep; each one's score is set) by the
// objective; answers the first `limit` (the best of each distinct key only) and the Pareto
// front, and says how many options a flagged price kept out.
void Finish(const std::vector<Candidate*>& feasible, Objective objective, int limit,
            const Constraints& cons, Recommendation& out);

// The deadline assumption every recommendation with a deadline names.
std::string DeadlineAssumption(const Constraints& c);

// Whether an option whose times are `c` misses the deadline at the asked confidence.
bool MissesDeadline(const Candidate& c, const Constraints& cons);

// The two walks (Recommend checks the constraint names and sets the currency first).
Result<Recommendation> RecommendTraining(PlanContext& context, const TrainingRequest& request,
                                         const Constraints& constraints, Objective objective,
                                         int limit);
Result<Recommendation> RecommendInference(PlanContext& context, const InferenceRequest& request,
                                          Constraints constraints, Objective objective, int limit);

}  // namespace gpuplan::plan
