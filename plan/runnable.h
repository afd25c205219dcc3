// A plan someone can launch: what a training estimate, an inference estimate or one
// recommendation item asks of a cluster scheduler (the cloud, instance type, GPUs, spot or
// not, the checkpoint interval, how long it should take). The api layer renders it as a
// SkyPilot task YAML or a Kubernetes manifest (api/plan_export.h). No YAML, no JSON here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/catalog_reader.h"
#include "model/price_kind.h"
#include "plan/gpu_product_label.h"
#include "plan/planner.h"

namespace gpuplan::plan {

struct RunnablePlan {
  bool inference = false;      // a serving fleet (replicas) rather than a training job
  std::string name;            // DNS-1123 label: lower case, digits and '-', <= 63 chars
  std::string workload_id;     // preset id or "custom"
  std::string workload_name;
  // Where: a catalog instance (cloud, region, instance_type) or an explicit GPU (empty).
  // instance_type is what a launcher asks the cloud for: the host VM of a GCP GPU bundle
  // ("n1-standard-8" for the catalog's "n1-standard-8+1xT4"), else the catalog's id.
  std::string cloud, region, instance_type;
  std::string catalog_instance_type;  // the catalog's id ("" for explicit hardware)
  std::string gpu_id;          // catalog GPU id, e.g. "A100-40GB-SXM4"
  std::string gpu_name;        // catalog GPU name, e.g. "A100 40GB SXM4"
  std::string gpu_vendor;      // NVIDIA, AMD, Google
  // SkyPilot's accelerator name of the GPU (the catalog's "*" gpu_synonyms row, see
  // AddCatalogNames); "" when the catalog has none.
  std::string skypilot_accelerator;
  // The GPU's nvidia.com/gpu.product node label (the catalog's "kubernetes" gpu_synonyms row
  // or GFD's rule, see AddCatalogNames and GfdProductLabel); nullopt when it has none.
  std::optional<GpuProductLabel> gpu_product_label;
  int gpus_per_node = 1;
  int nodes = 1;               // training: instances; inference: replicas' instances
  int replicas = 0;            // inference: serving replicas (0 for training)
  int gpus_per_replica = 0;    // inference
  model::PriceKind price_kind = model::PriceKind::kOndemand;
  bool use_spot = false;       // starts on spot
  // Training on spot: minutes between checkpoints (the Daly optimum or the request's).
  double checkpoint_interval_minutes = 0;
  std::optional<double> switch_to_ondemand_at_hours;  // spot_with_fallback
  std::optional<double> deadline_hours;
  double expected_hours = 0;   // training: wall hours; inference: 0
  double p90_hours = 0;
  std::optional<double> expected_cost;  // training total / inference per hour
  std::string currency = "USD";
  std::string precision;       // what was estimated, e.g. "bf16"
  int global_batch = 0, micro_batch = 0;  // training
  std::vector<std::string> notes;  // assumptions a reader of the manifest must know
  // Why the plan cannot be launched as planned, naming the request field that makes it so
  // (a spot run whose interruptions outrun its progress never finishes); nullopt when it
  // can. Set by the RunnableFrom* functions; CheckRunnable reports it.
  std::optional<FieldError> not_runnable;
};

// The plan of a training estimate. Price kind: spot_with_fallback when cost.fallback is
// set, else ondemand when cost.ondemand is, else spot when cost.spot is (else ondemand with
// no cost, noted). The checkpoint interval is the spot (or fallback) run's.
RunnablePlan RunnableFromTraining(const TrainingPlan& plan);
// The plan of an inference estimate: on-demand when priced on demand, else spot when priced
// on spot (noted: spot replicas can be reclaimed).
RunnablePlan RunnableFromInference(const InferencePlan& plan);
// The plan of one recommendation item of `request` (whose workload and deadline it takes).
RunnablePlan RunnableFromOption(const RecommendedOption& option, const Recommendation& r,
                                const RecommendRequest& request);
// Item `item` (1-based rank) of `r`: kInvalidArgument naming "item" when there is none.
Result<RunnablePlan> RunnableFromItem(const Recommendation& r, int item,
                                      const RecommendRequest& request);

// OkStatus when `plan` can be exported; else kInvalidArgument naming why: its
// not_runnable reason, or a figure a launcher would read (expected hours of a training,
// its cost, the checkpoint interval, the switch to on-demand, the deadline) that is not a
// finite number >= 0 (no field: nothing in the request names it). Never exported
// then: a manifest never says inf, NaN or a cost of 0 for an unknown one.
Status CheckRunnable(const RunnablePlan& plan);

// The plan's deadline in whole seconds (rounded up: what a Kubernetes Job's
// activeDeadlineSeconds holds); nullopt without one, or when it is not a finite number of
// seconds in (0, 1e12].
std::optional<long long> DeadlineSeconds(const RunnablePlan& plan);

// Fills the names the catalog knows for the plan's GPU (gpu_name and gpu_vendor when
// unset, skypilot_accelerator, gpu_product_label); kUnavailable when the catalog fails.
Status AddCatalogNames(db::CatalogReader& catalog, RunnablePlan& plan);

// A DNS-1123 label (lower case letters, digits and '-', starting with a letter, ending with
// a letter or digit, at most 63 characters): "gpuplan-" + `id` folded to that alphabet.
std::string PlanName(const std::string& id);
// Kubernetes' rules: a DNS-1123 label as above (object names) and a label value (at most
// 63 characters: empty, or ASCII letters and digits at both ends and '-', '_', '.' between).
bool IsDns1123Label(std::string_view text);
bool IsLabelValue(std::string_view text);

}  // namespace gpuplan::plan
