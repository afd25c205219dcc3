// The comparison question: one training job across GPUs (the ones named, or every GPU with
// a catalog price), each on a node of gpus_per_node at its cheapest on-demand catalog price
// per GPU-hour; best value (samples per currency unit) first, rows that are not a plan last.
// Errors: kInvalidArgument naming the field by type (model/result.h: the request's "gpus"
// item 2, "currency"...); kUnavailable when the catalog fails. A GPU the model refuses is a row
// with its error, not an error of the request.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/catalog_types.h"
#include "model/training.h"
#include "plan/context.h"
#include "plan/feasibility.h"
#include "plan/requests.h"

namespace gpuplan::plan {

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

Result<Comparison> CompareGpus(PlanContext& context, const CompareRequest& request);

}  // namespace gpuplan::plan
