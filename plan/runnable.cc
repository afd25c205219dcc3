#include "plan/runnable.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "db/text.h"
#include "model/gpu_spec.h"

namespace gpuplan::plan {

namespace {

// Where the plan runs: the catalog offer's cloud, region and instance type, or nothing for
// explicit hardware (noted).
void SetPlace(RunnablePlan& p, const std::optional<db::Offer>& offer) {
  if (!offer) {
    p.notes.push_back("explicit hardware: no cloud, region or instance type was planned; a "
                      "launcher picks a machine with these GPUs");
    return;
  }
  p.cloud = offer->instance.cloud;
  p.region = offer->region;
  p.catalog_instance_type = offer->instance.id;
  p.instance_type = offer->instance.host_instance_type.empty() ? offer->instance.id
                                                               : offer->instance.host_instance_type;
  if (p.instance_type != p.catalog_instance_type) {
    p.notes.push_back("catalog instance " + p.catalog_instance_type + " is host VM " +
                      p.instance_type + " with its GPUs attached");
  }
}

void SetCommon(RunnablePlan& p, const model::Workload& w) {
  p.name = PlanName(w.id);
  p.workload_id = w.id;
  p.workload_name = w.name;
}

void SetGpu(RunnablePlan& p, const model::GpuSpec& gpu, int gpus_per_node) {
  p.gpu_id = gpu.id;
  p.gpu_name = gpu.name;
  p.gpu_vendor = gpu.vendor;
  p.gpus_per_node = gpus_per_node;
}

void UseFallback(RunnablePlan& p, const model::FallbackOutcome& run) {
  p.price_kind = model::PriceKind::kSpotWithFallback;
  p.use_spot = true;
  p.checkpoint_interval_minutes = run.checkpoint_interval_minutes;
  p.switch_to_ondemand_at_hours = run.switch_at_hours;
  p.deadline_hours = run.deadline_hours;
  p.expected_hours = run.expected_hours;
  p.p90_hours = run.p90_hours;
  p.notes.push_back("spot with on-demand fallback: if the job has not finished " +
                    fmt::format("{:.2f}", run.switch_at_hours) +
                    " h after the start, checkpoint and relaunch it on on-demand capacity (" +
                    "use_spot: false) to meet the " + fmt::format("{:.2f}", run.deadline_hours) +
                    " h deadline");
}

void NoteSpotTraining(RunnablePlan& p) {
  p.notes.push_back("spot: a preemption stops the job; it must write a checkpoint every " +
                    fmt::format("{:.1f}", p.checkpoint_interval_minutes) +
                    " minutes (GPUPLAN_CHECKPOINT_INTERVAL_MINUTES) and resume from the latest "
                    "one when relaunched");
}

constexpr const char* kSpotNotViable =
    "the spot plan is not viable: interruptions come faster than it makes progress, so it "
    "never finishes and has no expected time or cost (the estimate's warnings say why); it is "
    "not exported";

bool IsAsciiLowerOrDigit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAsciiAlnum(char c) {
  return IsAsciiLowerOrDigit(c) || (c >= 'A' && c <= 'Z');
}

// A launcher's figure: nullopt when it is a finite number >= `min` (> 0 when `positive`),
// else why not.
std::optional<std::string> BadFigure(double value, const char* what, bool positive = false) {
  if (std::isfinite(value) && (positive ? value > 0 : value >= 0)) return std::nullopt;
  return std::string("the plan's ") + what + " is not a finite number " +
         (positive ? "above 0" : ">= 0") + ": it cannot be exported";
}

void AddAll(std::vector<std::string>& to, const std::vector<std::string>& from,
            const std::string& prefix) {
  for (const auto& s : from) to.push_back(prefix + s);
}

}  // namespace

std::string PlanName(const std::string& id) {
  std::string name = "gpuplan-";
  for (unsigned char ch : id) {
    char c = static_cast<char>(std::tolower(ch));
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok) {
      name += c;
    } else if (name.back() != '-') {
      name += '-';
    }
  }
  if (name.size() > 63) name.resize(63);
  while (name.back() == '-') name.pop_back();
  return name;
}

bool IsDns1123Label(std::string_view text) {
  if (text.empty() || text.size() > 63) return false;
  if (!IsAsciiLowerOrDigit(text.front()) || !IsAsciiLowerOrDigit(text.back())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return IsAsciiLowerOrDigit(c) || c == '-'; });
}

bool IsLabelValue(std::string_view text) {
  if (text.empty()) return true;
  if (text.size() > 63 || !IsAsciiAlnum(text.front()) || !IsAsciiAlnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return IsAsciiAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

Status CheckRunnable(const RunnablePlan& p) {
  if (p.not_runnable) return Error::Invalid(p.not_runnable->id, p.not_runnable->detail);
  std::optional<std::string> bad = BadFigure(p.expected_hours, "expected time", !p.inference);
  if (!bad) bad = BadFigure(p.p90_hours, "P90 time");
  if (!bad) bad = BadFigure(p.checkpoint_interval_minutes, "checkpoint interval");
  if (!bad && p.expected_cost) bad = BadFigure(*p.expected_cost, "expected cost");
  if (!bad && p.switch_to_ondemand_at_hours) {
    bad = BadFigure(*p.switch_to_ondemand_at_hours, "switch to on-demand");
  }
  if (!bad && p.deadline_hours) bad = BadFigure(*p.deadline_hours, "deadline");
  if (bad) return Error::Invalid(FieldId{Part::kInput, ""}, *bad);
  return OkStatus();
}

RunnablePlan RunnableFromTraining(const TrainingPlan& plan) {
  RunnablePlan p;
  SetCommon(p, plan.workload);
  SetPlace(p, plan.offer);
  SetGpu(p, plan.cluster.node.gpu, plan.cluster.node.gpus_per_node);
  p.nodes = plan.cluster.nodes;
  p.precision = std::string(model::PrecisionName(plan.estimate.precision));
  p.global_batch = plan.job.global_batch;
  p.micro_batch = plan.estimate.micro_batch;
  p.currency = plan.cost.currency;
  p.expected_hours = plan.estimate.total_hours;
  p.p90_hours = plan.estimate.p90_hours;
  const TrainingCost& cost = plan.cost;
  if (cost.fallback) {
    UseFallback(p, cost.fallback->run);
    p.expected_cost = cost.fallback->expected_total;
  } else if (cost.ondemand) {
    p.price_kind = model::PriceKind::kOndemand;
    p.expected_cost = cost.ondemand->total;
  } else if (cost.spot) {
    p.price_kind = model::PriceKind::kSpot;
    p.use_spot = true;
    p.checkpoint_interval_minutes = cost.spot->run.checkpoint_interval_minutes;
    p.expected_hours = cost.spot->run.wall_hours;
    p.p90_hours = cost.spot->p90_wall_hours;
    if (cost.spot->run.viable) {
      p.expected_cost = cost.spot->expected_total;
      NoteSpotTraining(p);
    } else {
      p.not_runnable =
          FieldError::At({Part::kPricing, "interruption_rate_per_hour"}, kSpotNotViable);
    }
  } else {
    p.notes.push_back("no price: the plan has no expected cost");
  }
  if (!plan.feasibility.feasible()) {
    const InfeasibleReason& why = plan.feasibility.reasons.front();
    p.not_runnable =
        FieldError::At({Part::kHardware, ""}, "the plan is not feasible (" +
                                                  std::string(InfeasibleName(why.code)) + ": " +
                                                  why.detail + "); it is not exported");
  }
  AddAll(p.notes, plan.estimate.warnings, "warning: ");
  AddAll(p.notes, plan.warnings, "warning: ");
  return p;
}

RunnablePlan RunnableFromInference(const InferencePlan& plan) {
  RunnablePlan p;
  p.inference = true;
  SetCommon(p, plan.workload);
  SetPlace(p, plan.offer);
  SetGpu(p, plan.cluster.node.gpu, plan.cluster.node.gpus_per_node);
  p.nodes = plan.instances;
  p.replicas = plan.estimate.replicas;
  p.gpus_per_replica = plan.estimate.gpus_per_replica;
  p.precision = std::string(model::PrecisionName(plan.estimate.precision));
  p.currency = plan.currency;
  if (plan.ondemand) {
    p.expected_cost = plan.ondemand->per_hour;
  } else if (plan.spot) {
    p.price_kind = model::PriceKind::kSpot;
    p.use_spot = true;
    p.expected_cost = plan.spot->per_hour;
  } else {
    p.notes.push_back("no price: the plan has no expected cost");
  }
  if (p.replicas <= 0 || !plan.feasibility.feasible()) {
    std::string why = plan.feasibility.feasible()
                          ? std::string("the model does not fit on the hardware")
                          : std::string(InfeasibleName(plan.feasibility.reasons.front().code)) +
                                ": " + plan.feasibility.reasons.front().detail;
    p.not_runnable = FieldError::At({Part::kHardware, ""},
                                    "the plan is not feasible (" + why + "); it is not exported");
  }
  AddAll(p.notes, plan.warnings, "warning: ");
  return p;
}

RunnablePlan RunnableFromOption(const RecommendedOption& option, const Recommendation& r,
                                const RecommendRequest& request) {
  RunnablePlan p;
  p.inference = r.inference;
  const model::Workload* w = nullptr;
  if (request.training) w = &request.training->workload;
  if (request.inference) w = &request.inference->workload;
  if (w) SetCommon(p, *w);
  SetPlace(p, option.offer);
  p.gpu_id = option.offer.instance.gpu_id;  // name and vendor: AddCatalogNames
  p.gpus_per_node = option.offer.instance.gpu_count;
  p.nodes = option.nodes;
  p.currency = r.currency;
  p.expected_cost = option.cost;
  p.use_spot = option.spot();
  p.price_kind = option.price_kind;
  if (option.training) {
    p.precision = std::string(model::PrecisionName(option.training->precision));
    p.micro_batch = option.training->micro_batch;
    if (request.training) p.global_batch = request.training->job.global_batch;
    p.expected_hours = option.hours;
    p.p90_hours = option.p90_hours;
    p.deadline_hours = request.constraints.deadline_hours;
    if (option.fallback) {
      UseFallback(p, option.fallback->run);
    } else if (option.spot()) {
      p.checkpoint_interval_minutes = option.checkpoint_interval_minutes;
      NoteSpotTraining(p);
    }
  }
  if (option.serving) {
    p.precision = std::string(model::PrecisionName(option.serving->precision));
    p.replicas = option.serving->replicas;
    p.gpus_per_replica = option.serving->gpus_per_replica;
  }
  if (!option.why.empty()) p.notes.push_back("recommended: " + option.why);
  AddAll(p.notes, option.warnings, "warning: ");
  return p;
}

Result<RunnablePlan> RunnableFromItem(const Recommendation& r, int item,
                                      const RecommendRequest& request) {
  if (item < 1 || static_cast<size_t>(item) > r.items.size()) {
    return Error::Invalid({Part::kExport, "item"},
                          "item " + std::to_string(item) + " is not in the recommendation, " +
                              "which has " + std::to_string(r.items.size()) + " item(s)");
  }
  return RunnableFromOption(r.items[item - 1], r, request);
}

Status AddCatalogNames(db::CatalogReader& catalog, RunnablePlan& plan) {
  if (plan.gpu_id.empty()) return OkStatus();
  if (plan.gpu_name.empty() || plan.gpu_vendor.empty()) {
    auto gpu = catalog.GetGpu(plan.gpu_id);
    if (gpu.ok()) {
      plan.gpu_name = gpu->name;
      plan.gpu_vendor = gpu->vendor;
    } else if (gpu.error().code != ErrorCode::kNotFound) {
      return gpu.error();
    }
  }
  auto skypilot = catalog.SynonymOf(db::kAnyCloud, plan.gpu_id);
  if (!skypilot.ok()) return skypilot.error();
  plan.skypilot_accelerator = skypilot->has_value() ? (*skypilot)->accelerator_name : "";
  auto kubernetes = catalog.SynonymOf(db::kKubernetesScope, plan.gpu_id);
  if (!kubernetes.ok()) return kubernetes.error();
  plan.gpu_product_label = GfdProductLabel(plan.gpu_id, plan.gpu_vendor, *kubernetes);
  return OkStatus();
}

std::optional<long long> DeadlineSeconds(const RunnablePlan& p) {
  constexpr double kMaxDeadlineSeconds = 1e12;
  if (!p.deadline_hours) return std::nullopt;
  double seconds = std::ceil(*p.deadline_hours * 3600);
  if (!(seconds > 0 && seconds <= kMaxDeadlineSeconds)) return std::nullopt;
  return static_cast<long long>(seconds);
}

}  // namespace gpuplan::plan
