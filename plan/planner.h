// The planner: resolves hardware (a catalog instance with its regional prices, or an
// explicit GPU), runs the model, prices the result in the requested currency, ranks catalog
// options and compares GPUs. Reads the catalog through db::CatalogReader only; answers are
// typed values (the api layer and the CLI render them). One Planner per request, on one
// thread: it keeps the exchange rates it loaded (a recommendation also estimates each
// distinct hardware configuration once, within the call).
//
// Errors: kInvalidArgument naming the request field by its dotted name ("hardware.gpu",
// "constraints.gpus.1", "currency"; the api layer turns names into JSON pointers);
// kUnavailable when the catalog fails.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/catalog_reader.h"
#include "model/inference.h"
#include "model/price_kind.h"
#include "model/training.h"
#include "plan/feasibility.h"
#include "plan/price_quality.h"
#include "plan/requests.h"

namespace gpuplan::plan {

// Hourly prices of one node in the request's currency, and where they come from.
struct PriceQuote {
  std::optional<double> ondemand;
  std::optional<double> spot;
  std::string currency;
  std::string native_currency;
  std::string spot_zone;
  std::string observed_at;
  std::string source;
  // Units of `currency` per unit of `native_currency`, when they differ.
  std::optional<double> fx_rate;
  std::string fx_as_of;
};

struct ResolvedHardware {
  model::Cluster cluster;
  std::optional<db::Offer> offer;  // set for catalog instances
  PriceQuote price;
  std::vector<std::string> assumptions;  // how a GPU name was read ("H100" -> ...)
  std::vector<std::string> warnings;
};

// A GPU as a user named it: its spec, and how an alias was read (empty for an exact id).
struct NamedGpu {
  model::GpuSpec gpu;
  std::string assumption;
};

// Spot observations of an offer's region, in the request currency.
struct SpotHistorySummary {
  size_t observations = 0;
  std::string first_observed_at, last_observed_at;
  double min_per_hour = 0, max_per_hour = 0, mean_per_hour = 0;
  std::string cloud, instance_type, region;  // what the series is of
};

struct OnDemandTrainingCost {
  double price_per_hour = 0;
  int instances = 0;
  double hours = 0;
  double total = 0, p10_total = 0, p90_total = 0;
  model::UnitCosts units;
};

// The spot price an expected cost uses: the mean over the catalog's recent spot history of
// the offer's region when it holds one (the cheapest zone at each observation time), with
// its P10 and P90; else the current price.
struct SpotPricing {
  double price_per_hour = 0;
  double p10_per_hour = 0, p90_per_hour = 0;
  bool from_history = false;
  size_t observations = 0;  // observation times in the window
  std::string window_start, window_end;
  std::string basis;  // in words, for the answer
};

inline constexpr int kSpotHistoryWindowDays = 30;
// Hours billed in a month of a service that runs around the clock (365 x 24 / 12).
inline constexpr double kHoursPerMonth = 730;

struct SpotTrainingCost {
  double price_per_hour = 0;  // SpotPricing::price_per_hour
  int instances = 0;
  model::SpotParams params;
  model::SpotOutcome run;
  double expected_total = 0;  // 0 when not viable
  double p10_total = 0, p90_total = 0;  // spot price P10/P90 x the time P10/P90
  // Wall hours of the P10 and P90 runs: the estimate's time range and the P10/P90 count of
  // interruptions (model::SpotWallRange); infinite when not viable.
  double p10_wall_hours = 0, p90_wall_hours = 0;
  SpotPricing pricing;
  model::UnitCosts units;
};

// Spot that moves to on-demand in time for a deadline (model::SpotWithFallback).
struct FallbackTrainingCost {
  double spot_price_per_hour = 0;  // SpotPricing::price_per_hour
  double ondemand_price_per_hour = 0;
  int instances = 0;
  model::SpotParams params;
  model::FallbackOutcome run;
  double expected_total = 0;
  double p90_total = 0;  // the P90 run, spot at its P90 price
  SpotPricing pricing;
  model::UnitCosts units;
};

struct TrainingCost {
  std::string currency;
  std::optional<OnDemandTrainingCost> ondemand;
  std::optional<SpotTrainingCost> spot;
  std::optional<FallbackTrainingCost> fallback;  // price kind spot_with_fallback
};

// The work a reference run did, as the model predicts it.
struct ReferenceWork {
  model::Cluster cluster;
  std::string instance_type, cloud;  // when the reference is a catalog instance
  double hours = 0;
  model::Precision precision = model::Precision::kBf16;
  double samples_per_s = 0;
  double samples = 0, p10_samples = 0, p90_samples = 0;
  double tokens = 0;
};

// The correction measured runs of the same GPU and workload family apply to an estimate.
struct RunCalibration {
  int runs = 0;            // the runs used (at most kMaxRunsPerEstimate)
  int runs_available = 0;  // the runs that apply, before that cap
  std::vector<long long> ids;
  double factor = 1;        // measured / predicted throughput, shrunk toward 1
  double error_before = 0;  // mean |predicted / measured - 1| over the runs
  double error_after = 0;   // the same with the correction fitted on the other runs
};

// A measured run re-predicted with the current model.
struct RunPrediction {
  std::string gpu_id;
  int gpus_per_node = 1, nodes = 1;
  double predicted_samples_per_s = 0;
  model::Precision precision = model::Precision::kBf16;
};

struct TrainingPlan {
  // Not feasible (does_not_fit): the estimate's time and throughput are not the plan's, and
  // no cost is computed (cost has its currency only).
  Feasibility feasibility;
  model::Workload workload;
  model::TrainingJob job;
  model::Cluster cluster;
  model::TrainingEstimate estimate;
  TrainingCost cost;
  PriceQuote price;
  std::optional<db::Offer> offer;
  std::optional<SpotHistorySummary> spot_history;
  std::optional<ReferenceWork> reference;  // the request gave a reference run
  std::optional<RunCalibration> calibration;  // measured runs corrected the estimate
  std::vector<std::string> assumptions;  // the planner's (after the model's)
  std::vector<std::string> warnings;  // about the hardware and its price (after the model's)
};

struct ServingCost {
  double price_per_hour = 0;
  int instances = 0;
  double per_hour = 0, per_month = 0;
  std::optional<double> per_million_tokens;                   // output tokens
  std::optional<double> per_million_input_and_output_tokens;  // prompt + output tokens
  std::optional<double> per_thousand_requests;
};

struct InferencePlan {
  Feasibility feasibility;  // does_not_fit or slo_not_met (then no cost is computed)
  model::Workload workload;
  model::ServingRequest serving;
  model::Cluster cluster;
  model::ServingEstimate estimate;
  int instances = 0;
  double capacity_requests_per_s = 0;  // replicas x requests/s of one replica
  bool decoder = false;  // token-generating: tpot and per-token figures apply
  std::optional<ServingCost> ondemand, spot;
  model::PriceKindSet asked{model::PriceKind::kOndemand, model::PriceKind::kSpot};
  std::string currency;
  PriceQuote price;
  std::optional<db::Offer> offer;
  std::vector<std::string> assumptions;  // the model's, then the planner's
  std::vector<std::string> warnings;
};

// One catalog option of a recommendation.
struct RecommendedOption {
  db::Offer offer;
  int nodes = 1;  // instances
  int total_gpus = 1;
  model::PriceKind price_kind = model::PriceKind::kOndemand;
  bool spot() const { return model::StartsOnSpot(price_kind); }  // also spot_with_fallback
  double price_per_hour = 0;  // per instance, request currency
  // Training on spot: the checkpoint interval the cost assumes (0 otherwise).
  double checkpoint_interval_minutes = 0;
  // Set for spot_with_fallback options: the switch point and the P90 time and cost.
  std::shared_ptr<const FallbackTrainingCost> fallback;
  double hours = 0;           // training: wall hours; inference: latency in s
  // Training: the P10 and P90 wall hours of this price kind (spot: with interruptions).
  double p10_hours = 0, p90_hours = 0;
  // Flags on the price it is costed on (plan/price_quality.h): "stale", and
  // "spot_above_ondemand" when the request lets such prices rank.
  std::vector<std::string> price_flags;
  double cost = 0;            // training: total; inference: per hour
  double cost_per_month = 0;  // inference: cost x kHoursPerMonth
  double score = 0;
  std::string why;
  std::vector<std::string> warnings;
  std::shared_ptr<const model::TrainingEstimate> training;  // set for training
  std::shared_ptr<const model::ServingEstimate> serving;    // set for inference
};

struct Recommendation {
  bool inference = false;
  Objective objective = Objective::kCost;
  std::string currency;
  std::vector<RecommendedOption> items;         // ranked, at most `limit`
  std::vector<RecommendedOption> pareto_front;  // by time: each cheaper than every faster one
  int considered = 0;
  int feasible = 0;
  std::map<std::string, int> rejected;  // reason -> options
  std::vector<std::string> assumptions;
  std::vector<std::string> warnings;
  DeadlineConfidence deadline_confidence = DeadlineConfidence::kP90;
  // The planner stopped at the request's planning share (plan/deadline.h) with catalog
  // offers left: items, counts and the Pareto front cover the offers evaluated only.
  bool stopped_early = false;
  int offers_evaluated = 0, offers_not_evaluated = 0;
};

struct ComparisonRow {
  std::string gpu;
  model::Precision precision = model::Precision::kBf16;
  std::optional<std::string> error;  // the model refused this GPU (then no estimate)
  // does_not_fit: the estimate's time and throughput are not a plan's, and no cost is
  // computed; no_price: no catalog price (time given, no cost).
  Feasibility feasibility;
  model::TrainingEstimate estimate;
  std::optional<double> price_per_gpu_hour;
  // The offer whose price per GPU-hour is used: an instance of exactly gpus_per_node GPUs
  // where the catalog has one (a node that can be rented at that price), else a share of
  // another instance (then said in warnings).
  std::optional<db::Offer> price_source;
  std::vector<std::string> price_flags;  // on the price source (plan/price_quality.h)
  double cost = 0;
  double samples_per_currency_unit = 0;
  double tokens_per_currency_unit = 0;
  std::vector<std::string> warnings;
};

struct Comparison {
  model::Workload workload;
  std::string currency;
  int gpus_per_node = 1;
  std::vector<ComparisonRow> rows;  // best value first; infeasible rows last
  std::vector<std::string> assumptions, warnings;
};

// Minutes of warning `cloud` gives before it reclaims a spot node (0 when unknown).
double PreemptionNoticeMinutes(const std::string& cloud);

// The node of a catalog instance type with GPU `gpu`.
model::NodeSpec NodeFromInstance(const db::InstanceType& type, const model::GpuSpec& gpu);

// A service that must answer around the clock cannot lose its replicas to a spot reclaim
// (AWS gives 2 minutes' notice, GCP and Azure about 30 s).
inline constexpr const char* kSpotServingCaveat =
    "spot capacity can be reclaimed at any time (AWS 2 min notice, GCP/Azure ~30 s): serving "
    "a 24/7 latency target on spot needs spare replicas or on-demand fallback";

class Planner {
 public:
  // `now`: the request's clock, for the age of prices (plan/price_quality.h).
  explicit Planner(db::CatalogReader& catalog, std::time_t now = std::time(nullptr))
      : catalog_(catalog), now_(now) {}

  // Loads the exchange rates; kInvalidArgument naming "currency" if `currency` has none.
  Status UseCurrency(const std::string& currency);
  Result<double> Convert(double amount, const std::string& from) const;
  // The cheapest price per GPU-hour of `kind` (an instance's price over its GPUs, in the
  // request currency) of each GPU among the `offers` that pass `keep` (all when empty),
  // with the offer it is found on (a pointer into `offers`; the first of equal prices).
  // Errors: kInvalidArgument naming "currency" for a price without an exchange rate.
  struct GpuHourPrice {
    double price = 0;
    const db::Offer* offer = nullptr;
  };
  Result<std::map<std::string, GpuHourPrice>> CheapestPerGpuHour(
      const std::vector<db::Offer>& offers, model::PriceKind kind,
      const std::function<bool(const db::Offer&)>& keep = {}) const;
  // The offer's prices in the request currency.
  Result<PriceQuote> Quote(const db::Offer& offer) const;
  // Without a region, the cheapest region for the price kind asked (spot price when only
  // spot is wanted, else on-demand), named in warnings.
  Result<ResolvedHardware> Resolve(const HardwareRequest& hardware, const PricingRequest& pricing);
  // The GPU `name` names: an id (any case); else the only GPU whose id starts with
  // "name-"; else, among several, the only one with a catalog price ("H100" ->
  // H100-80GB-SXM5). Otherwise kInvalidArgument on `field` listing the candidates.
  Result<NamedGpu> FindGpu(const std::string& name, const std::string& field);

  Result<TrainingPlan> Training(const TrainingRequest& request);
  Result<InferencePlan> Inference(const InferenceRequest& request);
  Result<Recommendation> Recommend(const RecommendRequest& request);
  Result<Comparison> Compare(const CompareRequest& request);

  // The cost of `estimate` on `nodes` instances at `price`, for the kinds `pricing` asks;
  // spot at `spot` (SpotPricingFor) and with `cloud`'s preemption notice unless the request
  // gives one.
  TrainingCost CostOfTraining(const model::TrainingEstimate& estimate, const model::Workload& w,
                              int nodes, const PriceQuote& price, const PricingRequest& pricing,
                              const SpotPricing& spot, const std::string& cloud) const;
  // The request with its reference run (if any) turned into a dataset: the samples the
  // model predicts the reference hardware processes in its hours. Errors name
  // "reference_run.*" fields.
  Result<TrainingRequest> WithReferenceWork(const TrainingRequest& request,
                                            std::optional<ReferenceWork>* work);
  // What the model predicts for a measured run (its hardware resolved: errors name
  // "hardware.*", "precision", "global_batch_size"...).
  Result<RunPrediction> Predict(const MeasuredRun& run);
  // The correction the runs of GPU `gpu_id` and `family` in `runs` give (nullopt: none
  // applies), from at most kMaxRunsPerEstimate of them (MeasuredRunIndex::Select).
  static std::optional<RunCalibration> Calibrate(const MeasuredRuns& runs,
                                                 const std::string& gpu_id,
                                                 model::Family family);
  // The spot price of `offer` (current price `current`, request currency) for expected costs.
  Result<SpotPricing> SpotPricingFor(const std::optional<db::Offer>& offer, double current) const;

 private:
  Result<std::optional<SpotHistorySummary>> SpotHistory(const db::Offer& offer) const;
  // Sets `q`'s exchange rate from its native currency to its currency, when they differ.
  void NoteFxRate(PriceQuote& q) const;
  Status CheckConstraintNames(const Constraints& c);
  Result<Recommendation> RecommendTraining(const TrainingRequest& request, const Constraints& c,
                                           Objective objective, int limit);
  Result<Recommendation> RecommendInference(const InferenceRequest& request, Constraints c,
                                            Objective objective, int limit);

  db::CatalogReader& catalog_;
  std::time_t now_;
  std::map<std::string, db::FxRate> rates_;
  std::string currency_ = "USD";
};

// What a reference run's work is, in words, for assumptions.
std::string ReferenceAssumption(const ReferenceWork& work);

// The spot_with_fallback policy of `run` in words, for assumptions.
std::string FallbackRule(const model::FallbackOutcome& run);

// The assumption an answer names when a spot cost uses the default interruption rate.
std::string DefaultRateAssumption(const model::SpotParams& params);


// Money as answers show it: rounded to 1e-6 of the currency unit.
double RoundMoney(double amount);

}  // namespace gpuplan::plan
