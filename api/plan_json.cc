#include "api/plan_json.h"

#include "api/catalog_json.h"
#include "api/model_json.h"
#include "api/query_params.h"

namespace gpuplan::api {

namespace {

nlohmann::json Money(std::optional<double> v) {
  return v ? nlohmann::json(RoundMoney(*v)) : nlohmann::json(nullptr);
}

void AppendAll(nlohmann::json& list, const std::vector<std::string>& items) {
  for (const auto& s : items) list.push_back(s);
}

nlohmann::json TrainingCostJson(const plan::TrainingCost& cost, const plan::TrainingPlan& plan) {
  const model::TrainingEstimate& e = plan.estimate;
  bool images = model::IsImage(plan.workload.family) && e.total_samples > 0;
  nlohmann::json out = {{"currency", cost.currency}, {"ondemand", nullptr}, {"spot", nullptr}};
  if (cost.ondemand) {
    const plan::OnDemandTrainingCost& c = *cost.ondemand;
    out["ondemand"] = {{"price_per_hour", RoundMoney(c.price_per_hour)},
                       {"instances", c.instances},
                       {"hours", c.hours},
                       {"total", RoundMoney(c.total)},
                       {"p10_total", RoundMoney(c.p10_total)},
                       {"p90_total", RoundMoney(c.p90_total)},
                       {"per_epoch", c.units.per_epoch > 0 ? Money(c.units.per_epoch) : nullptr},
                       {"per_million_tokens",
                        e.total_tokens > 0 ? Money(c.units.per_million_tokens) : nullptr},
                       {"per_thousand_samples", Money(c.units.per_thousand_samples)},
                       {"per_thousand_images",
                        images ? Money(c.units.per_thousand_samples) : nullptr}};
  }
  if (cost.spot) {
    const plan::SpotTrainingCost& s = *cost.spot;
    const model::SpotOutcome& run = s.run;
    nlohmann::json spot = {
        {"price_per_hour", RoundMoney(s.price_per_hour)},
        {"instances", s.instances},
        {"viable", run.viable},
        {"interruption_rate_per_hour", s.params.interruption_rate_per_hour},
        {"expected_interruptions", run.expected_interruptions},
        {"checkpoint_interval_minutes", run.checkpoint_interval_minutes},
        {"checkpoint_write_minutes", run.checkpoint_write_minutes},
        {"restart_minutes", s.params.restart_minutes},
        {"capacity_wait_minutes", s.params.capacity_wait_minutes},
        {"lost_work_hours", run.lost_work_hours},
        {"preemption_notice_minutes", s.params.preemption_notice_minutes},
        {"checkpoint_on_notice", run.checkpoint_on_notice},
        {"price_basis", s.pricing.from_history ? "history" : "current"},
        {"price_history",
         s.pricing.from_history
             ? nlohmann::json{{"observations", s.pricing.observations},
                              {"from", s.pricing.window_start},
                              {"to", s.pricing.window_end},
                              {"p10_per_hour", RoundMoney(s.pricing.p10_per_hour)},
                              {"p90_per_hour", RoundMoney(s.pricing.p90_per_hour)}}
             : nlohmann::json(nullptr)},
        {"wall_hours", run.viable ? nlohmann::json(run.wall_hours) : nullptr},
        {"billable_hours", run.viable ? nlohmann::json(run.billable_hours) : nullptr},
        {"expected_total", nullptr}};
    if (run.viable) {
      spot["expected_total"] = RoundMoney(s.expected_total);
      spot["p10_total"] = RoundMoney(s.p10_total);
      spot["p90_total"] = RoundMoney(s.p90_total);
      spot["per_epoch"] = s.units.per_epoch > 0 ? Money(s.units.per_epoch) : nullptr;
      spot["per_million_tokens"] =
          e.total_tokens > 0 ? Money(s.units.per_million_tokens) : nullptr;
      spot["per_thousand_samples"] = Money(s.units.per_thousand_samples);
    }
    out["spot"] = std::move(spot);
  }
  return out;
}

nlohmann::json SpotHistoryJson(const std::optional<plan::SpotHistorySummary>& h,
                               const std::string& currency) {
  if (!h) return nullptr;
  return {{"observations", h->observations},
          {"first_observed_at", h->first_observed_at},
          {"last_observed_at", h->last_observed_at},
          {"min_per_hour", RoundMoney(h->min_per_hour)},
          {"max_per_hour", RoundMoney(h->max_per_hour)},
          {"mean_per_hour", RoundMoney(h->mean_per_hour)},
          {"currency", currency},
          {"series", "/api/v1/prices/spot-history?cloud=" + PercentEncode(h->cloud) +
                         "&instance_type=" + PercentEncode(h->instance_type) +
                         "&region=" + PercentEncode(h->region)}};
}

nlohmann::json ServingCostJson(const std::optional<plan::ServingCost>& c) {
  if (!c) return nullptr;
  return {{"price_per_hour", RoundMoney(c->price_per_hour)},
          {"instances", c->instances},
          {"per_hour", RoundMoney(c->per_hour)},
          {"per_month", RoundMoney(c->per_month)},
          {"per_million_tokens", Money(c->per_million_tokens)},
          {"per_million_input_and_output_tokens", Money(c->per_million_input_and_output_tokens)},
          {"per_thousand_requests", Money(c->per_thousand_requests)}};
}

const char* ObjectiveName(plan::Objective o) {
  switch (o) {
    case plan::Objective::kTime: return "time";
    case plan::Objective::kBalanced: return "balanced";
    default: return "cost";
  }
}

nlohmann::json OptionJson(const plan::RecommendedOption& c, bool inference,
                          const std::string& currency) {
  nlohmann::json j = {{"cloud", c.offer.instance.cloud},
                      {"region", c.offer.region},
                      {"instance_type", c.offer.instance.id},
                      {"gpu", c.offer.instance.gpu_id},
                      {"gpus_per_instance", c.offer.instance.gpu_count},
                      {"nodes", c.nodes},
                      {"total_gpus", c.total_gpus},
                      {"price_kind", c.spot ? "spot" : "ondemand"},
                      {"price_per_hour", RoundMoney(c.price_per_hour)},
                      {inference ? "latency_s" : "hours", c.hours},
                      {inference ? "cost_per_hour" : "cost", RoundMoney(c.cost)},
                      {"currency", currency},
                      {"why", c.why}};
  if (c.training) {
    const model::TrainingEstimate& e = *c.training;
    j["throughput"] = {{"samples_per_s", e.samples_per_s},
                       {"tokens_per_s",
                        e.tokens_per_s > 0 ? nlohmann::json(e.tokens_per_s) : nullptr}};
    j["mfu"] = e.mfu;
    j["bottleneck"] = e.step.bottleneck;
    j["memory_verdict"] = model::VerdictName(e.memory.verdict);
    j["layout"] = LayoutJson(e.layout);
    j["p90_hours"] = c.spot ? nlohmann::json(nullptr) : nlohmann::json(e.p90_hours);
  }
  if (c.serving) {
    const model::ServingEstimate& e = *c.serving;
    j["replicas"] = e.replicas;
    j["gpus_per_replica"] = e.gpus_per_replica;
    j["batch"] = e.chosen.batch;
    j["cost_per_month"] = RoundMoney(c.cost_per_month);
  }
  if (!c.warnings.empty()) j["warnings"] = c.warnings;
  return j;
}

}  // namespace

nlohmann::json PriceQuoteJson(const plan::PriceQuote& q, const std::optional<db::Offer>& offer) {
  nlohmann::json j = {{"price_ondemand_per_hour", Money(q.ondemand)},
                      {"price_spot_per_hour", Money(q.spot)},
                      {"currency", q.currency},
                      {"native_currency", q.native_currency},
                      {"observed_at", q.observed_at},
                      {"source", q.source}};
  if (q.fx_rate) {
    j["fx_rate"] = {{"from", q.native_currency}, {"to", q.currency}, {"rate", *q.fx_rate},
                    {"as_of", q.fx_as_of}};
  }
  if (offer) {
    j["cloud"] = offer->instance.cloud;
    j["region"] = offer->region;
    j["instance_type"] = offer->instance.id;
    j["spot_zone"] = offer->spot_zone.empty() ? nlohmann::json(nullptr)
                                              : nlohmann::json(offer->spot_zone);
  }
  return j;
}

nlohmann::json TrainingPlanJson(const plan::TrainingPlan& plan) {
  nlohmann::json out = TrainingEstimateJson(plan.estimate, plan.workload, plan.cluster, plan.job);
  out["workload"] = WorkloadJson(plan.workload);
  out["cost"] = TrainingCostJson(plan.cost, plan);
  out["instance"] = PriceQuoteJson(plan.price, plan.offer);
  if (plan.offer && plan.price.spot) {
    out["instance"]["spot_history"] = SpotHistoryJson(plan.spot_history, plan.cost.currency);
  }
  AppendAll(out["assumptions"], plan.assumptions);
  AppendAll(out["warnings"], plan.warnings);
  return out;
}

nlohmann::json InferencePlanJson(const plan::InferencePlan& plan) {
  const model::ServingEstimate& e = plan.estimate;
  const model::ServingPoint& p = e.chosen;
  const bool decoder = plan.decoder;
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& c : e.curve) {
    curve.push_back({{"batch", c.batch},
                     {"ttft_s", c.ttft_s},
                     {"tpot_s", decoder ? nlohmann::json(c.tpot_s) : nullptr},
                     {"latency_s", c.latency_s},
                     {"requests_per_s", c.requests_per_s},
                     {"tokens_per_s", decoder ? nlohmann::json(c.tokens_per_s) : nullptr}});
  }
  nlohmann::json out = {
      {"workload", WorkloadJson(plan.workload)},
      {"hardware",
       {{"gpu", plan.cluster.node.gpu.id}, {"gpus_per_node", plan.cluster.node.gpus_per_node}}},
      {"precision", model::PrecisionName(e.precision)},
      {"replicas", e.replicas},
      {"gpus_per_replica", e.gpus_per_replica},
      {"instances", plan.instances},
      {"total_gpus", e.total_gpus},
      {"batch", p.batch},
      {"latency_s", p.latency_s},
      {"ttft_s", p.ttft_s},
      {"tpot_s", decoder ? nlohmann::json(p.tpot_s) : nullptr},
      {"slo_met", e.slo_met},
      {"throughput_per_replica",
       {{"requests_per_s", p.requests_per_s},
        {"tokens_per_s", decoder ? nlohmann::json(p.tokens_per_s) : nullptr}}},
      {"capacity_requests_per_s", plan.capacity_requests_per_s},
      {"memory",
       {{"weights_gb", e.weights_gb},
        {"kv_cache_gb", e.kv_cache_gb},
        {"kv_cache_bytes_per_token", e.kv_cache_bytes_per_token},
        {"total_gb", e.memory_total_gb},
        {"capacity_gb", e.memory_capacity_gb},
        {"verdict", model::VerdictName(e.verdict)},
        {"max_batch", e.max_batch}}},
      {"curve", std::move(curve)},
      {"cost",
       {{"currency", plan.currency},
        {"ondemand", plan.ondemand_asked ? ServingCostJson(plan.ondemand) : nullptr},
        {"spot", plan.spot_asked ? ServingCostJson(plan.spot) : nullptr}}},
      {"instance", PriceQuoteJson(plan.price, plan.offer)},
      {"assumptions", plan.assumptions},
      {"warnings", plan.warnings},
      {"model_version", kModelVersion},
  };
  if (e.verdict == model::FitVerdict::kDoesNotFit) {
    // Hardware that cannot serve the model: say so, never "0 replicas, SLO met".
    for (const char* key : {"replicas", "instances", "total_gpus", "batch", "latency_s",
                            "ttft_s", "tpot_s", "capacity_requests_per_s"}) {
      out[key] = nullptr;
    }
    out["throughput_per_replica"] = nullptr;
    out["does_not_fit_reason"] = e.warnings.empty() ? "does not fit" : e.warnings.back();
  }
  return out;
}

nlohmann::json RecommendationJson(const plan::Recommendation& r) {
  nlohmann::json items = nlohmann::json::array(), front = nlohmann::json::array();
  for (size_t i = 0; i < r.items.size(); ++i) {
    nlohmann::json j = OptionJson(r.items[i], r.inference, r.currency);
    j["rank"] = i + 1;
    items.push_back(std::move(j));
  }
  for (const auto& c : r.pareto_front) front.push_back(OptionJson(c, r.inference, r.currency));
  nlohmann::json out = {{"objective", ObjectiveName(r.objective)},
                        {"currency", r.currency},
                        {"items", std::move(items)},
                        {"pareto_front", std::move(front)},
                        {"considered", r.considered},
                        {"feasible", r.feasible},
                        {"rejected", r.rejected},
                        {"model_version", kModelVersion}};
  if (r.inference) out["assumptions"] = r.assumptions;
  return out;
}

nlohmann::json ComparisonJson(const plan::Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const plan::ComparisonRow& r : c.rows) {
    nlohmann::json row = {{"gpu", r.gpu}, {"precision", model::PrecisionName(r.precision)}};
    if (r.error) {
      row["error"] = *r.error;
      rows.push_back(std::move(row));
      continue;
    }
    const model::TrainingEstimate& e = r.estimate;
    row["samples_per_s"] = e.samples_per_s;
    row["tokens_per_s"] = e.tokens_per_s > 0 ? nlohmann::json(e.tokens_per_s) : nullptr;
    row["hours"] = e.total_hours;
    row["bottleneck"] = e.step.bottleneck;
    row["mfu"] = e.mfu;
    row["memory_verdict"] = model::VerdictName(e.memory.verdict);
    row["memory_per_gpu_gb"] = e.memory.total_gb;
    row["layout"] = LayoutJson(e.layout);
    row["smallest_fitting_gpus"] =
        e.smallest_layout ? nlohmann::json(e.smallest_layout->gpus) : nlohmann::json(nullptr);
    if (r.price_per_gpu_hour && r.price_source) {
      row["price_per_gpu_hour"] = RoundMoney(*r.price_per_gpu_hour);
      row["price_source"] = {{"cloud", r.price_source->instance.cloud},
                             {"region", r.price_source->region},
                             {"instance_type", r.price_source->instance.id}};
      row["cost"] = RoundMoney(r.cost);
      row["samples_per_currency_unit"] = r.samples_per_currency_unit;
      row["tokens_per_currency_unit"] =
          e.tokens_per_s > 0 ? nlohmann::json(r.tokens_per_currency_unit) : nullptr;
    } else {
      row["price_per_gpu_hour"] = nullptr;
      row["cost"] = nullptr;
      row["samples_per_currency_unit"] = nullptr;
    }
    if (!r.warnings.empty()) row["warnings"] = r.warnings;
    rows.push_back(std::move(row));
  }
  return {{"workload", WorkloadJson(c.workload)},
          {"currency", c.currency},
          {"gpus_per_node", c.gpus_per_node},
          {"items", std::move(rows)},
          {"model_version", kModelVersion}};
}

}  // namespace gpuplan::api
