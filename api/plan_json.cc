#include "api/plan_json.h"

#include "api/catalog_json.h"
#include "api/model_json.h"
#include "api/query_params.h"
#include "db/text.h"

namespace gpuplan::api {

namespace {

// The members every planning answer ends with, and the end of its object.
void EndAnswer(JsonWriter& out, const std::vector<std::string>& assumptions,
               const std::vector<std::string>& warnings) {
  out.Field("assumptions", assumptions);
  out.Field("warnings", warnings);
  out.Field("model_version", kModelVersion);
  out.EndObject();
}

std::optional<double> Money(std::optional<double> v) {
  if (v) return RoundMoney(*v);
  return std::nullopt;
}

// An option's verdict: {feasible, reasons [{code, detail}], nearest_change}.
void WriteFeasibility(JsonWriter& out, const plan::Feasibility& f) {
  out.BeginObject();
  out.Field("feasible", f.feasible());
  out.Key("reasons");
  out.BeginArray();
  for (const plan::InfeasibleReason& r : f.reasons) {
    out.BeginObject();
    out.Field("code", plan::InfeasibleName(r.code));
    out.Field("detail", r.detail);
    out.EndObject();
  }
  out.EndArray();
  out.Field("nearest_change",
            f.nearest_change.empty() ? std::nullopt : std::optional(f.nearest_change));
  out.EndObject();
}

// Per-unit costs: null where the unit does not apply (no epochs, no tokens). A price of 0 is
// a price: its unit costs are 0, not null.
void WriteUnitCosts(JsonWriter& out, const model::UnitCosts& u, const model::TrainingEstimate& e) {
  out.Field("per_epoch", e.epochs > 0 ? Money(u.per_epoch) : std::nullopt);
  out.Field("per_million_tokens", e.total_tokens > 0 ? Money(u.per_million_tokens) : std::nullopt);
  out.Field("per_thousand_samples", Money(u.per_thousand_samples));
}

// spot_with_fallback: the switch point, and the expected and P90 time and cost.
// With `e` (an estimate's cost), also the cost per unit of work.
// Where a spot cost's interruption rate comes from (plan/spot_risk.h): "request",
// "aws-spot-advisor" (with the band) or "default".
void WriteSpotRisk(JsonWriter& out, const plan::SpotRisk& r) {
  out.Object("interruption", [&] {
    out.Field("source", plan::SpotRiskSourceName(r.source));
    out.Field("rate_per_hour", r.rate.per_hour);
    out.Field("low_per_hour", r.rate.low_per_hour);
    out.Field("high_per_hour", r.rate.high_per_hour);
    if (r.band) {
      out.Field("band", r.band->label);
      out.Field("observed_at", r.band->observed_at);
    } else {
      out.Field("band", nullptr);
      out.Field("observed_at", nullptr);
    }
  });
}

void WriteFallback(JsonWriter& out, const plan::FallbackTrainingCost& f,
                   const model::TrainingEstimate* e) {
  const model::FallbackOutcome& run = f.run;
  out.BeginObject();
  out.Field("spot_price_per_hour", RoundMoney(f.spot_price_per_hour));
  out.Field("ondemand_price_per_hour", RoundMoney(f.ondemand_price_per_hour));
  out.Field("instances", f.instances);
  out.Field("deadline_hours", run.deadline_hours);
  out.Field("meets_deadline", run.feasible);
  out.Field("switch_at_hours", run.switch_at_hours);
  out.Field("expected_hours", run.expected_hours);
  out.Field("p90_hours", run.p90_hours);
  out.Field("expected_spot_hours", run.expected_spot_hours);
  out.Field("expected_ondemand_hours", run.expected_ondemand_hours);
  out.Field("fallback_probability", run.fallback_probability);
  out.Field("interruption_rate_per_hour", f.params.interruption_rate_per_hour);
  WriteSpotRisk(out, f.risk);
  out.Field("expected_interruptions", run.expected_interruptions);
  out.Field("p90_interruptions", run.p90_interruptions);
  out.Field("checkpoint_interval_minutes", run.checkpoint_interval_minutes);
  out.Field("checkpoint_write_minutes", run.checkpoint_write_minutes);
  out.Field("checkpoint_on_notice", run.checkpoint_on_notice);
  out.Field("price_basis", f.pricing.from_history ? "history" : "current");
  out.Field("expected_total", RoundMoney(f.expected_total));
  out.Field("p90_total", RoundMoney(f.p90_total));
  if (e) WriteUnitCosts(out, f.units, *e);
  out.EndObject();
}

void WriteTrainingCost(JsonWriter& out, const plan::TrainingCost& cost,
                       const plan::TrainingPlan& plan) {
  const model::TrainingEstimate& e = plan.estimate;
  bool images = model::IsImage(plan.workload.family) && e.total_samples > 0;
  out.BeginObject();
  out.Field("currency", cost.currency);
  out.Key("ondemand");
  if (cost.ondemand) {
    const plan::OnDemandTrainingCost& c = *cost.ondemand;
    out.BeginObject();
    out.Field("price_per_hour", RoundMoney(c.price_per_hour));
    out.Field("instances", c.instances);
    out.Field("hours", c.hours);
    out.Field("total", RoundMoney(c.total));
    out.Field("p10_total", RoundMoney(c.p10_total));
    out.Field("p90_total", RoundMoney(c.p90_total));
    WriteUnitCosts(out, c.units, e);
    out.Field("per_thousand_images", images ? Money(c.units.per_thousand_samples) : std::nullopt);
    out.EndObject();
  } else {
    out.Null();
  }
  out.Key("spot");
  if (cost.spot) {
    const plan::SpotTrainingCost& s = *cost.spot;
    const model::SpotOutcome& run = s.run;
    out.BeginObject();
    out.Field("price_per_hour", RoundMoney(s.price_per_hour));
    out.Field("instances", s.instances);
    out.Field("viable", run.viable);
    out.Field("interruption_rate_per_hour", s.params.interruption_rate_per_hour);
    WriteSpotRisk(out, s.risk);
    out.Field("expected_interruptions", run.expected_interruptions);
    out.Field("checkpoint_interval_minutes", run.checkpoint_interval_minutes);
    out.Field("checkpoint_write_minutes", run.checkpoint_write_minutes);
    out.Field("restart_minutes", s.params.restart_minutes);
    out.Field("capacity_wait_minutes", s.params.capacity_wait_minutes);
    out.Field("lost_work_hours", run.lost_work_hours);
    out.Field("preemption_notice_minutes", s.params.preemption_notice_minutes);
    out.Field("checkpoint_on_notice", run.checkpoint_on_notice);
    out.Field("price_basis", s.pricing.from_history ? "history" : "current");
    out.Key("price_history");
    if (s.pricing.from_history) {
      out.BeginObject();
      out.Field("observations", s.pricing.observations);
      out.Field("from", db::FormatUtc(s.pricing.window_start));
      out.Field("to", db::FormatUtc(s.pricing.window_end));
      out.Field("p10_per_hour", RoundMoney(s.pricing.p10_per_hour));
      out.Field("p90_per_hour", RoundMoney(s.pricing.p90_per_hour));
      out.EndObject();
    } else {
      out.Null();
    }
    if (run.viable) {
      out.Field("wall_hours", run.wall_hours);
      out.Field("p10_wall_hours", s.p10_wall_hours);
      out.Field("p90_wall_hours", s.p90_wall_hours);
      out.Field("billable_hours", run.billable_hours);
      out.Field("expected_total", RoundMoney(s.expected_total));
      out.Field("p10_total", RoundMoney(s.p10_total));
      out.Field("p90_total", RoundMoney(s.p90_total));
      WriteUnitCosts(out, s.units, e);
    } else {
      out.Field("wall_hours", nullptr);
      out.Field("p10_wall_hours", nullptr);
      out.Field("p90_wall_hours", nullptr);
      out.Field("billable_hours", nullptr);
      out.Field("expected_total", nullptr);
    }
    out.EndObject();
  } else {
    out.Null();
  }
  if (cost.fallback) {
    out.Key("spot_with_fallback");
    WriteFallback(out, *cost.fallback, &plan.estimate);
  }
  out.EndObject();
}

void WriteSpotHistory(JsonWriter& out, const std::optional<plan::SpotHistorySummary>& h,
                      const std::string& currency) {
  if (!h) return out.Null();
  out.BeginObject();
  out.Field("observations", h->observations);
  out.Field("first_observed_at", h->first_observed_at);
  out.Field("last_observed_at", h->last_observed_at);
  out.Field("min_per_hour", RoundMoney(h->min_per_hour));
  out.Field("max_per_hour", RoundMoney(h->max_per_hour));
  out.Field("mean_per_hour", RoundMoney(h->mean_per_hour));
  out.Field("currency", currency);
  out.Field("series", "/api/v1/prices/spot-history?cloud=" + PercentEncode(h->cloud) +
                          "&instance_type=" + PercentEncode(h->instance_type) +
                          "&region=" + PercentEncode(h->region));
  out.EndObject();
}

void WriteServingCost(JsonWriter& out, const std::optional<plan::ServingCost>& c) {
  if (!c) return out.Null();
  out.BeginObject();
  out.Field("price_per_hour", RoundMoney(c->price_per_hour));
  out.Field("instances", c->instances);
  out.Field("per_hour", RoundMoney(c->per_hour));
  out.Field("per_month", RoundMoney(c->per_month));
  out.Field("per_million_tokens", Money(c->per_million_tokens));
  out.Field("per_million_input_and_output_tokens", Money(c->per_million_input_and_output_tokens));
  out.Field("per_thousand_requests", Money(c->per_thousand_requests));
  out.EndObject();
}

// The price used, its source and date, and the exchange rate when it was converted, as
// members of an object the caller has begun.
void WritePriceQuoteMembers(JsonWriter& out, const plan::PriceQuote& q,
                            const std::optional<db::Offer>& offer) {
  if (offer) {
    out.Field("cloud", offer->instance.cloud);
    out.Field("region", offer->region);
    out.Field("instance_type", offer->instance.id);
  }
  out.Field("price_ondemand_per_hour", Money(q.ondemand));
  out.Field("price_spot_per_hour", Money(q.spot));
  out.Field("currency", q.currency);
  out.Field("native_currency", q.native_currency);
  if (q.fx_rate) {
    out.Object("fx_rate", [&] {
      out.Field("from", q.native_currency);
      out.Field("to", q.currency);
      out.Field("rate", *q.fx_rate);
      out.Field("as_of", q.fx_as_of);
    });
  }
  out.Field("observed_at", q.observed_at);
  out.Field("source", q.source);
  if (offer) {
    if (offer->spot_zone.empty()) {
      out.Field("spot_zone", nullptr);
    } else {
      out.Field("spot_zone", offer->spot_zone);
    }
    out.Field("price_scope", offer->price_scope);
  }
}

// One option of a recommendation; `rank` is 0 for Pareto-front entries (no rank).
void WriteOption(JsonWriter& out, const plan::RecommendedOption& c, bool inference,
                 const std::string& currency, size_t rank) {
  out.BeginObject();
  if (rank > 0) out.Field("rank", rank);
  out.Field("cloud", c.offer.instance.cloud);
  out.Field("region", c.offer.region);
  out.Field("instance_type", c.offer.instance.id);
  out.Field("gpu", c.offer.instance.gpu_id);
  out.Field("gpus_per_instance", c.offer.instance.gpu_count);
  out.Field("nodes", c.nodes);
  out.Field("total_gpus", c.total_gpus);
  out.Field("price_kind", model::PriceKindName(c.price_kind));
  out.Field("price_per_hour", RoundMoney(c.price_per_hour));
  out.Field("price_observed_at",
            db::PriceObservedAt(c.offer, model::StartsOnSpot(c.price_kind)));
  out.Field(inference ? JsonKey("latency_s") : JsonKey("hours"), c.hours);
  if (!inference) {
    out.Field("p10_hours", c.p10_hours);
    out.Field("p90_hours", c.p90_hours);
  }
  out.Field(inference ? JsonKey("cost_per_hour") : JsonKey("cost"), RoundMoney(c.cost));
  out.Field("currency", currency);
  out.Field("why", c.why);
  if (c.training) {
    const model::TrainingEstimate& e = *c.training;
    out.Object("throughput", [&] {
      out.Field("samples_per_s", e.samples_per_s);
      if (e.tokens_per_s > 0) {
        out.Field("tokens_per_s", e.tokens_per_s);
      } else {
        out.Field("tokens_per_s", nullptr);
      }
    });
    out.Field("mfu", e.mfu);
    out.Field("bottleneck", e.step.bottleneck);
    out.Field("memory_verdict", model::VerdictName(e.memory.verdict));
    out.Key("layout");
    WriteLayout(out, e.layout);
    if (c.fallback) {
      out.Key("spot_with_fallback");
      WriteFallback(out, *c.fallback, nullptr);
    }
    if (c.spot()) {
      out.Field("checkpoint_interval_minutes", c.checkpoint_interval_minutes);
      WriteSpotRisk(out, c.spot_risk);
    }
  }
  if (c.serving) {
    const model::ServingEstimate& e = *c.serving;
    out.Field("replicas", e.replicas);
    out.Field("gpus_per_replica", e.gpus_per_replica);
    out.Field("batch", e.chosen.batch);
    out.Field("cost_per_month", RoundMoney(c.cost_per_month));
    if (!e.engine.name.empty()) {
      out.Object("latency_p95", [&] {
        out.Field("ttft_s", e.planned.ttft_s.p95);
        out.Field("tpot_s", e.planned.tpot_s.p95);
        out.Field("e2e_s", e.planned.e2e_s.p95);
      });
      out.Field("saturated_requests_per_s", e.saturation.requests_per_s);
    }
  }
  if (!c.price_flags.empty()) out.Field("price_flags", c.price_flags);
  if (!c.warnings.empty()) out.Field("warnings", c.warnings);
  out.EndObject();
}

template <typename Answer>
std::string Encode(void (*write)(JsonWriter&, const Answer&), const Answer& answer) {
  JsonWriter out;
  write(out, answer);
  return out.Take();
}

// The model's strings, then the planner's.
void WriteBoth(JsonWriter& out, const std::vector<std::string>& first,
               const std::vector<std::string>& second) {
  out.BeginArray();
  for (const auto& s : first) out.String(s);
  for (const auto& s : second) out.String(s);
  out.EndArray();
}

}  // namespace

void WriteTrainingPlan(JsonWriter& out, const plan::TrainingPlan& plan) {
  out.BeginObject();
  out.Key("workload");
  WriteWorkload(out, plan.workload);
  out.Key("feasibility");
  WriteFeasibility(out, plan.feasibility);
  WriteTrainingEstimateMembers(out, plan.estimate, plan.cluster, plan.job,
                               !plan.feasibility.Has(plan::Infeasible::kDoesNotFit));
  if (plan.reference) {
    const plan::ReferenceWork& w = *plan.reference;
    out.Object("reference_run", [&] {
      out.Object("hardware", [&] {
        out.Field("gpu", w.cluster.node.gpu.id);
        out.Field("gpus_per_node", w.cluster.node.gpus_per_node);
        out.Field("nodes", w.cluster.nodes);
        out.Field("cloud", w.cloud.empty() ? std::nullopt : std::optional(w.cloud));
        out.Field("instance_type",
                  w.instance_type.empty() ? std::nullopt : std::optional(w.instance_type));
      });
      out.Field("hours", w.hours);
      out.Field("precision", model::PrecisionName(w.precision));
      out.Field("samples_per_s", w.samples_per_s);
      out.Field("samples", w.samples);
      out.Field("p10_samples", w.p10_samples);
      out.Field("p90_samples", w.p90_samples);
      out.Field("tokens", w.tokens > 0 ? std::optional(w.tokens) : std::nullopt);
    });
  }
  out.Key("calibration");
  if (plan.calibration) {
    const plan::RunCalibration& c = *plan.calibration;
    out.BeginObject();
    out.Field("runs", c.runs);
    out.Field("runs_available", c.runs_available);
    out.Field("factor", c.factor);
    out.Field("error_before", c.error_before);
    out.Field("error_after", c.error_after);
    out.Key("measurement_ids");
    out.BeginArray();
    for (long long id : c.ids) out.Int(id);
    out.EndArray();
    out.EndObject();
  } else {
    out.Null();
  }
  out.Key("cost");
  WriteTrainingCost(out, plan.cost, plan);
  out.Object("instance", [&] {
    WritePriceQuoteMembers(out, plan.price, plan.offer);
    if (plan.offer && plan.price.spot) {
      out.Key("spot_history");
      WriteSpotHistory(out, plan.spot_history, plan.cost.currency);
    }
  });
  out.Key("assumptions");
  WriteBoth(out, plan.estimate.assumptions, plan.assumptions);
  out.Key("warnings");
  WriteBoth(out, plan.estimate.warnings, plan.warnings);
  out.Field("model_version", kModelVersion);
  out.EndObject();
}

namespace {

void WritePercentiles(JsonWriter& out, JsonKey key, const model::Percentiles& p) {
  out.Object(key, [&] {
    out.Field("mean", p.mean);
    out.Field("p50", p.p50);
    out.Field("p95", p.p95);
  });
}

void WriteOperatingPoint(JsonWriter& out, JsonKey key, const model::OperatingPoint& p) {
  out.Object(key, [&] {
    out.Field("batch", p.batch);
    out.Field("requests_per_s", p.requests_per_s);
    out.Field("tokens_per_s", p.tokens_per_s);
    out.Field("iteration_s", p.iteration.total_s);
  });
}

// The serving model v3 figures of a decoder plan: the engine as resolved, what caps the batch,
// saturation, latency percentiles at the planned load and one iteration's terms.
void WriteDecoderServing(JsonWriter& out, const model::ServingEstimate& e, bool fits) {
  const model::EngineSettings& g = e.engine;
  out.Object("engine", [&] {
    out.Field("name", g.name);
    out.Field("version", g.version);
    out.Field("max_num_seqs", g.max_num_seqs);
    out.Field("max_num_batched_tokens", g.max_num_batched_tokens);
    out.Field("gpu_memory_utilization", g.gpu_memory_utilization);
    out.Field("cuda_graphs", g.cuda_graphs);
    out.Field("graph_capture_max_batch", g.graph_capture_max_batch);
    out.Field("chunked_prefill", g.chunked_prefill);
    out.Field("prefix_caching", g.prefix_caching);
    out.Field("max_model_len", g.max_model_len);
    out.Field("num_scheduler_steps", g.num_scheduler_steps);
    out.Field("frontend_multiprocessing", g.frontend_multiprocessing);
  });
  out.Object("batch_cap", [&] {
    out.Field("effective", e.batch_cap.effective);
    out.Field("binding", std::string(e.batch_cap.binding));
    out.Field("max_num_seqs", e.batch_cap.max_num_seqs);
    out.Field("kv_capacity", e.batch_cap.kv_capacity);
    out.Field("token_budget", e.batch_cap.token_budget);
    out.Field("client_concurrency",
              e.batch_cap.client_concurrency > 0 ? std::optional(e.batch_cap.client_concurrency)
                                                 : std::nullopt);
  });
  if (!fits) return;
  WriteOperatingPoint(out, "saturation", e.saturation);
  WriteOperatingPoint(out, "kv_limit", e.kv_limit);
  out.Field("planned_requests_per_s_per_replica", e.planned_requests_per_s_per_replica);
  out.Field("replica_rule", e.replica_rule);
  out.Object("latency", [&] {
    WritePercentiles(out, "ttft_s", e.planned.ttft_s);
    WritePercentiles(out, "tpot_s", e.planned.tpot_s);
    WritePercentiles(out, "e2e_s", e.planned.e2e_s);
  });
  const model::IterationTime& t = e.planned.iteration;
  out.Object("iteration", [&] {
    out.Field("batch", e.planned.batch);
    out.Field("weights_s", t.weights_s);
    out.Field("kv_read_s", t.kv_read_s);
    out.Field("compute_s", t.compute_s);
    out.Field("sampling_s", t.sampling_s);
    out.Field("kernel_floors_s", t.floors_s);
    out.Field("allreduce_s", t.allreduce_s);
    out.Field("cpu_s", t.cpu_s);
    out.Field("cuda_graphs", t.graphs);
    out.Field("total_s", t.total_s);
  });
}

}  // namespace

void WriteInferencePlan(JsonWriter& out, const plan::InferencePlan& plan) {
  const model::ServingEstimate& e = plan.estimate;
  const model::ServingPoint& p = e.chosen;
  const bool decoder = plan.decoder;
  // Hardware that cannot serve the model: say so, never "0 replicas, SLO met".
  const bool fits = e.verdict != model::FitVerdict::kDoesNotFit;
  auto optional = [](bool given, auto v) { return given ? std::optional(v) : std::nullopt; };
  out.BeginObject();
  out.Key("workload");
  WriteWorkload(out, plan.workload);
  out.Key("feasibility");
  WriteFeasibility(out, plan.feasibility);
  out.Object("hardware", [&] {
    out.Field("gpu", plan.cluster.node.gpu.id);
    out.Field("gpus_per_node", plan.cluster.node.gpus_per_node);
  });
  out.Field("precision", model::PrecisionName(e.precision));
  out.Field("replicas", optional(fits, e.replicas));
  out.Field("gpus_per_replica", e.gpus_per_replica);
  out.Field("instances", optional(fits, plan.instances));
  out.Field("total_gpus", optional(fits, e.total_gpus));
  out.Field("batch", optional(fits, p.batch));
  out.Field("latency_s", optional(fits, p.latency_s));
  out.Field("ttft_s", optional(fits, p.ttft_s));
  out.Field("tpot_s", optional(fits && decoder, p.tpot_s));
  out.Field("slo_met", e.slo_met);
  out.Key("throughput_per_replica");
  if (fits) {
    out.BeginObject();
    out.Field("requests_per_s", p.requests_per_s);
    out.Field("tokens_per_s", optional(decoder, p.tokens_per_s));
    out.EndObject();
  } else {
    out.Null();
  }
  out.Field("capacity_requests_per_s", optional(fits, plan.capacity_requests_per_s));
  if (decoder && !e.engine.name.empty()) WriteDecoderServing(out, e, fits);
  if (!fits) out.Field("does_not_fit_reason", e.warnings.empty() ? "does not fit" : e.warnings.back());
  out.Object("memory", [&] {
    out.Field("weights_gb", e.weights_gb);
    out.Field("kv_cache_gb", e.kv_cache_gb);
    out.Field("kv_cache_bytes_per_token", e.kv_cache_bytes_per_token);
    out.Field("total_gb", e.memory_total_gb);
    out.Field("capacity_gb", e.memory_capacity_gb);
    out.Field("verdict", model::VerdictName(e.verdict));
    out.Field("max_batch", e.max_batch);
  });
  out.Key("curve");
  out.BeginArray();
  for (const auto& c : e.curve) {
    out.BeginObject();
    out.Field("batch", c.batch);
    out.Field("ttft_s", c.ttft_s);
    out.Field("tpot_s", optional(decoder, c.tpot_s));
    out.Field("latency_s", c.latency_s);
    out.Field("requests_per_s", c.requests_per_s);
    out.Field("tokens_per_s", optional(decoder, c.tokens_per_s));
    out.EndObject();
  }
  out.EndArray();
  out.Object("cost", [&] {
    out.Field("currency", plan.currency);
    out.Key("ondemand");
    WriteServingCost(out, plan.asked.Has(model::PriceKind::kOndemand) ? plan.ondemand : std::nullopt);
    out.Key("spot");
    WriteServingCost(out, plan.asked.Has(model::PriceKind::kSpot) ? plan.spot : std::nullopt);
  });
  out.Object("instance", [&] { WritePriceQuoteMembers(out, plan.price, plan.offer); });
  EndAnswer(out, plan.assumptions, plan.warnings);
}

void WriteRecommendation(JsonWriter& out, const plan::Recommendation& r) {
  out.BeginObject();
  out.Field("objective", model::EnumName(plan::kObjectiveNames, r.objective));
  out.Field("currency", r.currency);
  out.Key("items");
  out.BeginArray();
  for (size_t i = 0; i < r.items.size(); ++i) WriteOption(out, r.items[i], r.inference, r.currency, i + 1);
  out.EndArray();
  out.Key("pareto_front");
  out.BeginArray();
  for (const auto& c : r.pareto_front) WriteOption(out, c, r.inference, r.currency, 0);
  out.EndArray();
  out.Field("considered", r.considered);
  out.Field("feasible", r.feasible);
  out.Object("rejected", [&] {
    for (const auto& [reason, count] : r.rejected) out.Field(reason, count);
  });
  out.Key("stopped_early");
  if (r.stopped_early) {
    out.BeginObject();
    out.Field("offers_evaluated", r.offers_evaluated);
    out.Field("offers_not_evaluated", r.offers_not_evaluated);
    out.Field("detail", std::string(
        "the catalog is too large to plan within this request's time: the answer ranks the "
        "offers evaluated only; narrow constraints (clouds, regions, gpus, max_nodes) to "
        "cover the rest"));
    out.EndObject();
  } else {
    out.Null();
  }
  if (!r.inference) {
    out.Field("deadline_confidence",
              model::EnumName(plan::kDeadlineConfidenceNames, r.deadline_confidence));
  }
  EndAnswer(out, r.assumptions, r.warnings);
}

void WriteComparison(JsonWriter& out, const plan::Comparison& c) {
  out.BeginObject();
  out.Key("workload");
  WriteWorkload(out, c.workload);
  out.Field("currency", c.currency);
  out.Field("gpus_per_node", c.gpus_per_node);
  out.Key("items");
  out.BeginArray();
  for (const plan::ComparisonRow& r : c.rows) {
    out.BeginObject();
    out.Field("gpu", r.gpu);
    out.Field("precision", model::PrecisionName(r.precision));
    out.Key("feasibility");
    WriteFeasibility(out, r.feasibility);
    if (r.error) {
      out.Field("error", *r.error);
      out.EndObject();
      continue;
    }
    const model::TrainingEstimate& e = r.estimate;
    const bool tokens = e.tokens_per_s > 0;
    // A GPU the job does not fit on has no time, throughput or cost: null, never a plan's.
    const bool fits = !r.feasibility.Has(plan::Infeasible::kDoesNotFit);
    auto figure = [fits](double v) { return fits ? std::optional(v) : std::nullopt; };
    out.Field("samples_per_s", figure(e.samples_per_s));
    out.Field("tokens_per_s", tokens ? figure(e.tokens_per_s) : std::nullopt);
    out.Field("hours", figure(e.total_hours));
    out.Field("p10_hours", figure(e.p10_hours));
    out.Field("p90_hours", figure(e.p90_hours));
    out.Field("bottleneck", fits ? std::optional(e.step.bottleneck) : std::nullopt);
    out.Field("mfu", figure(e.mfu));
    out.Field("memory_verdict", model::VerdictName(e.memory.verdict));
    out.Field("memory_per_gpu_gb", e.memory.total_gb);
    out.Key("layout");
    WriteLayout(out, e.layout);
    out.Key("smallest_fitting_gpus");
    if (e.smallest_layout) {
      out.Value(e.smallest_layout->gpus);
    } else {
      out.Null();
    }
    if (r.price_per_gpu_hour && r.price_source) {
      out.Field("price_per_gpu_hour", RoundMoney(*r.price_per_gpu_hour));
      out.Object("price_source", [&] {
        out.Field("cloud", r.price_source->instance.cloud);
        out.Field("region", r.price_source->region);
        out.Field("instance_type", r.price_source->instance.id);
        out.Field("gpus_per_instance", r.price_source->instance.gpu_count);
        out.Field("single_gpu_rentable", r.price_source->instance.gpu_count == 1);
        out.Field("rentable_at_this_size", r.price_source->instance.gpu_count == c.gpus_per_node);
      });
    } else {
      out.Field("price_per_gpu_hour", nullptr);
      out.Field("price_source", nullptr);
    }
    const bool costed = r.feasibility.feasible() && r.price_per_gpu_hour;
    out.Field("cost", costed ? std::optional(RoundMoney(r.cost)) : std::nullopt);
    out.Field("samples_per_currency_unit",
              costed ? std::optional(r.samples_per_currency_unit) : std::nullopt);
    out.Field("tokens_per_currency_unit",
              costed && tokens ? std::optional(r.tokens_per_currency_unit) : std::nullopt);
    if (!r.price_flags.empty()) out.Field("price_flags", r.price_flags);
    if (!r.warnings.empty()) out.Field("warnings", r.warnings);
    out.EndObject();
  }
  out.EndArray();
  EndAnswer(out, c.assumptions, c.warnings);
}

std::string TrainingPlanJson(const plan::TrainingPlan& plan) { return Encode(&WriteTrainingPlan, plan); }
std::string InferencePlanJson(const plan::InferencePlan& plan) { return Encode(&WriteInferencePlan, plan); }
std::string RecommendationJson(const plan::Recommendation& r) { return Encode(&WriteRecommendation, r); }
std::string ComparisonJson(const plan::Comparison& c) { return Encode(&WriteComparison, c); }

}  // namespace gpuplan::api
