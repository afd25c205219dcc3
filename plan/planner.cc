#include "plan/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <set>

#include "db/catalog_writer.h"
#include "db/field_rules.h"
#include "db/offer_query.h"
#include "db/text.h"
#include "model/counts.h"
#include "model/memory.h"

namespace gpuplan::plan {

using model::PriceKind;

namespace {

std::string Minutes(double minutes) {
  return minutes < 1 ? db::FormatNumber("%.1f s", minutes * 60)
                     : db::FormatNumber("%.1f min", minutes);
}

}  // namespace

double RoundMoney(double amount) { return std::round(amount * 1e6) / 1e6; }

std::string DefaultRateAssumption(const model::SpotParams& params) {
  return "spot interruption rate " +
         db::FormatNumber("%.3g", params.interruption_rate_per_hour) +
         " per node-hour: the default (no per-offer interruption data); set "
         "pricing.interruption_rate_per_hour for your cloud and region";
}


std::string FallbackRule(const model::FallbackOutcome& run) {
  char text[400];
  if (run.switch_at_hours <= 0) {
    std::snprintf(text, sizeof(text),
                  "spot_with_fallback: the %.4g h to the deadline leave no room for a spot "
                  "interruption and the move to on-demand, so the job runs on demand from the "
                  "start",
                  run.deadline_hours);
  } else {
    std::snprintf(text, sizeof(text),
                  "spot_with_fallback: run on spot; if the job is not done %.4g h after the "
                  "start, write a checkpoint and move to on-demand. That switch point lets a "
                  "run that met the P90 number of interruptions still finish on demand by the "
                  "%.4g h deadline at the model's P90 work",
                  run.switch_at_hours, run.deadline_hours);
  }
  return text;
}

double PreemptionNoticeMinutes(const std::string& cloud) {
  if (cloud == "aws") return 2;                     // EC2 spot interruption notice
  if (cloud == "gcp" || cloud == "azure") return 0.5;  // preemption / eviction notice: ~30 s
  return 0;
}

Result<SpotPricing> Planner::SpotPricingFor(const std::optional<db::Offer>& offer,
                                            double current) const {
  SpotPricing out;
  out.price_per_hour = out.p10_per_hour = out.p90_per_hour = current;
  out.basis = "the current spot price";
  if (!offer) return out;
  auto latest = db::rules::ParseTimestamp(offer->observed_at);
  if (!latest) return out;
  const std::time_t window = kSpotHistoryWindowDays * 24 * 3600;
  db::SpotQuery query;
  query.cloud = offer->instance.cloud;
  query.instance_type = offer->instance.id;
  query.region = offer->region;
  query.limit = 10000;
  {
    // The window's start as a date (a day early): the query compares text.
    query.since = db::FormatUtc(*latest - window - 24 * 3600, "%Y-%m-%d");
  }
  auto rows = catalog_.SpotHistory(query);
  if (!rows.ok()) return rows.error();
  // Each zone's price holds until it changes: at every time any zone changed, the
  // cheapest zone's price then (zones report changes at their own times).
  std::map<std::time_t, std::vector<std::pair<std::string, double>>> changes;
  for (const auto& p : *rows) {
    auto t = db::rules::ParseTimestamp(p.observed_at);
    if (!t) continue;
    auto v = Convert(p.price_per_hour, p.currency);
    if (!v.ok()) return v.error();
    changes[*t].push_back({p.zone, *v});
  }
  if (changes.size() < 3) return out;  // a snapshot, not a history
  const std::time_t last = changes.rbegin()->first;
  std::map<std::string, double> zone_price;
  std::vector<double> prices;
  std::time_t first = 0;
  for (const auto& [t, updates] : changes) {
    for (const auto& [zone, price] : updates) zone_price[zone] = price;
    if (t < last - window) continue;
    double cheapest = INFINITY;
    for (const auto& [zone, price] : zone_price) cheapest = std::min(cheapest, price);
    if (prices.empty()) first = t;
    prices.push_back(cheapest);
  }
  if (prices.size() < 3) return out;
  double sum = 0;
  for (double p : prices) sum += p;
  std::sort(prices.begin(), prices.end());
  auto quantile = [&](double q) {
    double pos = q * (prices.size() - 1);
    size_t lo = static_cast<size_t>(pos);
    size_t hi = std::min(lo + 1, prices.size() - 1);
    return prices[lo] + (prices[hi] - prices[lo]) * (pos - lo);
  };
  auto date = [](std::time_t t) { return db::FormatUtc(t); };
  out.from_history = true;
  out.price_per_hour = sum / prices.size();
  out.p10_per_hour = quantile(0.1);
  out.p90_per_hour = quantile(0.9);
  out.observations = prices.size();
  out.window_start = date(first);
  out.window_end = date(last);
  out.basis = "the mean spot price of the cheapest zone over " + std::to_string(prices.size()) +
              " observation times from " + out.window_start + " to " + out.window_end +
              " (the last " + std::to_string(kSpotHistoryWindowDays) +
              " days of the catalog's history; each zone's price holds until it changes)";
  return out;
}


model::NodeSpec NodeFromInstance(const db::InstanceType& type, const model::GpuSpec& gpu) {
  model::NodeSpec node;
  node.gpu = gpu;
  node.gpus_per_node = type.gpu_count;
  node.interconnect = model::ParseInterconnect(type.interconnect)
                          .value_or(model::DefaultInterconnect(gpu, type.gpu_count));
  if (type.gpu_count > 1 && node.interconnect == model::Interconnect::kNone) {
    node.interconnect = model::Interconnect::kPcie;
  }
  node.interconnect_bw_gbps = type.interconnect_bw_gbps;
  node.network_gbps = type.network_gbps.value_or(0);
  node.vcpus = type.vcpus.value_or(0);
  node.nvlink_domain_gpus = model::DefaultNvlinkDomain(node);
  return node;
}

Status Planner::UseCurrency(const std::string& currency) {
  auto rates = catalog_.FxRates();
  if (!rates.ok()) return rates.error();
  rates_ = std::move(rates).value();
  if (!rates_.count(currency)) {
    return Error::Invalid("currency", "no exchange rate for currency '" + currency + "'");
  }
  currency_ = currency;
  return OkStatus();
}

Result<double> Planner::Convert(double amount, const std::string& from) const {
  auto v = db::ConvertCurrency(amount, from, currency_, rates_);
  if (!v.ok()) return Error::Invalid("currency", v.error().message);
  return *v;
}

Result<std::map<std::string, Planner::GpuHourPrice>> Planner::CheapestPerGpuHour(
    const std::vector<db::Offer>& offers, PriceKind kind,
    const std::function<bool(const db::Offer&)>& keep) const {
  std::map<std::string, GpuHourPrice> best;
  for (const db::Offer& o : offers) {
    if (keep && !keep(o)) continue;
    auto per_gpu = db::PricePerGpuHour(o, kind);
    if (!per_gpu) continue;
    auto price = Convert(*per_gpu, o.currency);
    if (!price.ok()) return price.error();
    auto it = best.find(o.instance.gpu_id);
    if (it == best.end() || *price < it->second.price) best[o.instance.gpu_id] = {*price, &o};
  }
  return best;
}

void Planner::NoteFxRate(PriceQuote& q) const {
  if (q.native_currency == q.currency) return;
  auto from = rates_.find(q.native_currency), to = rates_.find(q.currency);
  if (from == rates_.end() || to == rates_.end()) return;
  q.fx_rate = to->second.units_per_usd / from->second.units_per_usd;
  q.fx_as_of = std::min(from->second.as_of, to->second.as_of);
}

Result<PriceQuote> Planner::Quote(const db::Offer& offer) const {
  PriceQuote q;
  q.currency = currency_;
  q.native_currency = offer.currency;
  q.spot_zone = offer.spot_zone;
  q.observed_at = offer.observed_at;
  q.source = offer.source;
  for (auto [from, to] : {std::pair{&offer.price_ondemand_per_hour, &q.ondemand},
                          std::pair{&offer.price_spot_per_hour, &q.spot}}) {
    if (!*from) continue;
    auto v = Convert(**from, offer.currency);
    if (!v.ok()) return v.error();
    *to = *v;
  }
  NoteFxRate(q);
  return q;
}

Result<NamedGpu> Planner::FindGpu(const std::string& name, const std::string& field) {
  auto exact = catalog_.GetGpu(name);
  if (exact.ok()) return NamedGpu{*exact, ""};
  if (exact.error().code != ErrorCode::kNotFound) return exact.error();
  auto gpus = catalog_.ListGpus();
  if (!gpus.ok()) return gpus.error();
  std::vector<const model::GpuSpec*> matches;
  for (const model::GpuSpec& g : *gpus) {
    if (db::GpuIdMatches(g.id, name)) matches.push_back(&g);
  }
  const std::string shown = db::Printable(name, 60);
  if (matches.empty()) {
    return Error::Invalid(field, "unknown GPU '" + shown + "' (see GET /api/v1/gpus or `gpuplan gpus`)");
  }
  if (matches.size() == 1) {
    return NamedGpu{*matches[0], "GPU '" + shown + "' read as " + matches[0]->id +
                                     ", the only GPU whose id starts with it"};
  }
  // Several parts share the name: the one that can be rented, if only one can.
  auto offers = catalog_.AllOffers();
  if (!offers.ok()) return offers.error();
  std::set<std::string> priced;
  for (const db::Offer& o : **offers) {
    if (o.price_ondemand_per_hour || o.price_spot_per_hour) priced.insert(o.instance.gpu_id);
  }
  std::vector<const model::GpuSpec*> rentable;
  for (const model::GpuSpec* g : matches) {
    if (priced.count(g->id)) rentable.push_back(g);
  }
  if (rentable.size() == 1) {
    return NamedGpu{*rentable[0], "GPU '" + shown + "' read as " + rentable[0]->id +
                                      ", the only one of its " + std::to_string(matches.size()) +
                                      " parts with a catalog price; name another part by its id"};
  }
  std::string list;
  for (const model::GpuSpec* g : matches) {
    list += (list.empty() ? "" : ", ") + g->id + (priced.count(g->id) ? " (priced)" : "");
  }
  return Error::Invalid(field, "GPU '" + shown + "' is ambiguous: it names " + list +
                                   "; give one of these ids");
}

Result<ResolvedHardware> Planner::Resolve(const HardwareRequest& hw, const PricingRequest& pricing) {
  ResolvedHardware r;
  r.cluster.nodes = hw.nodes;
  if (!hw.from_catalog) {
    auto named = FindGpu(hw.gpu, "hardware.gpu");
    if (!named.ok()) return named.error();
    if (!named->assumption.empty()) r.assumptions.push_back(named->assumption);
    const model::GpuSpec* gpu = &named->gpu;
    model::NodeSpec& node = r.cluster.node;
    node.gpu = *gpu;
    node.gpus_per_node = hw.gpus_per_node;
    node.interconnect = hw.interconnect.value_or(model::DefaultInterconnect(*gpu, hw.gpus_per_node));
    node.interconnect_bw_gbps = hw.interconnect_bw_gbps;
    node.network_gbps = hw.network_gbps;
    node.vcpus = hw.vcpus;
    node.nvlink_domain_gpus =
        hw.nvlink_domain_gpus > 0 ? hw.nvlink_domain_gpus : model::DefaultNvlinkDomain(node);
    r.price.currency = currency_;
    r.price.native_currency = hw.price_currency;
    r.price.source = "request";
    for (auto [from, to] : {std::pair{&hw.price_per_hour, &r.price.ondemand},
                            std::pair{&hw.spot_price_per_hour, &r.price.spot}}) {
      if (!*from) continue;
      auto v = db::ConvertCurrency(**from, hw.price_currency, currency_, rates_);
      if (!v.ok()) {
        return Error::Invalid("hardware.price_currency",
                              "no exchange rate for '" + hw.price_currency + "'");
      }
      *to = *v;
    }
    NoteFxRate(r.price);
    return r;
  }
  auto found = catalog_.GetInstanceType(hw.cloud, hw.instance_type);
  if (!found.ok()) {
    if (found.error().code != ErrorCode::kNotFound) return found.error();
    return Error::Invalid("hardware.instance_type", "unknown instance type '" +
                                                         hw.instance_type + "' in cloud '" +
                                                         hw.cloud + "'");
  }
  auto gpu = catalog_.GetGpu(found->first.gpu_id);
  if (!gpu.ok()) return gpu.error();
  r.cluster.node = NodeFromInstance(found->first, *gpu);
  const std::vector<db::Offer>& offers = found->second;
  const db::Offer* chosen = nullptr;
  const bool by_spot =
      pricing.kinds.Has(PriceKind::kSpot) && !pricing.kinds.Has(PriceKind::kOndemand);
  double cheapest = std::numeric_limits<double>::infinity();
  for (const db::Offer& o : offers) {
    if (!hw.region.empty()) {
      if (o.region == hw.region) chosen = &o;
      continue;
    }
    const auto& p = by_spot ? o.price_spot_per_hour
                            : (o.price_ondemand_per_hour ? o.price_ondemand_per_hour
                                                         : o.price_spot_per_hour);
    if (!p) continue;
    auto usd = db::ConvertCurrency(*p, o.currency, "USD", rates_);
    if (usd.ok() && *usd < cheapest) {
      cheapest = *usd;
      chosen = &o;
    }
  }
  if (!hw.region.empty() && !chosen) {
    return Error::Invalid("hardware.region", "'" + hw.instance_type + "' has no price in region '" +
                                                  hw.region + "'");
  }
  if (!chosen) {
    r.warnings.push_back("no catalog price for " + hw.instance_type + ": cost is not estimated");
    r.price.currency = currency_;
    return r;
  }
  if (hw.region.empty()) {
    r.warnings.push_back("region not given: " + chosen->region + ", the region with the lowest " +
                         (by_spot ? "spot" : "on-demand") + " price, is used");
  }
  auto quote = Quote(*chosen);
  if (!quote.ok()) return quote.error();
  r.offer = *chosen;
  r.price = *quote;
  return r;
}

TrainingCost Planner::CostOfTraining(const model::TrainingEstimate& e, const model::Workload& w,
                                     int nodes, const PriceQuote& price,
                                     const PricingRequest& pricing, const SpotPricing& spot,
                                     const std::string& cloud) const {
  TrainingCost cost;
  cost.currency = currency_;
  if (pricing.kinds.Has(PriceKind::kOndemand) && price.ondemand) {
    OnDemandTrainingCost& c = cost.ondemand.emplace();
    c.price_per_hour = *price.ondemand;
    c.instances = nodes;
    c.hours = e.total_hours;
    c.total = *price.ondemand * nodes * e.total_hours;
    c.p10_total = *price.ondemand * nodes * e.p10_hours;
    c.p90_total = *price.ondemand * nodes * e.p90_hours;
    c.units = model::SpreadCost(c.total, e.epochs, e.total_tokens, e.total_samples);
  }
  if (pricing.kinds.Has(PriceKind::kSpotWithFallback) && price.spot && price.ondemand &&
      pricing.deadline_hours) {
    model::SpotParams params = pricing.spot_params;
    params.checkpoint_bytes = model::TrainingCheckpointBytes(w);
    if (!pricing.notice_given) params.preemption_notice_minutes = PreemptionNoticeMinutes(cloud);
    auto run = model::SpotWithFallback(e.total_hours, e.p90_hours, nodes, params,
                                       *pricing.deadline_hours);
    if (run.ok()) {
      FallbackTrainingCost& f = cost.fallback.emplace();
      f.pricing = spot;
      f.spot_price_per_hour = spot.price_per_hour;
      f.ondemand_price_per_hour = *price.ondemand;
      f.instances = nodes;
      f.params = params;
      f.run = *run;
      f.expected_total = nodes * (spot.price_per_hour * run->expected_spot_hours +
                                  *price.ondemand * run->expected_ondemand_hours);
      f.p90_total = nodes * (spot.p90_per_hour * run->p90_spot_hours +
                             *price.ondemand * run->p90_ondemand_hours);
      f.units = model::SpreadCost(f.expected_total, e.epochs, e.total_tokens, e.total_samples);
    }
  }
  if (pricing.kinds.Has(PriceKind::kSpot) && price.spot) {
    model::SpotParams params = pricing.spot_params;
    params.checkpoint_bytes = model::TrainingCheckpointBytes(w);
    if (!pricing.notice_given) params.preemption_notice_minutes = PreemptionNoticeMinutes(cloud);
    auto run = model::SpotRun(e.total_hours, nodes, params);
    if (run.ok()) {
      SpotTrainingCost& s = cost.spot.emplace();
      s.pricing = spot;
      s.price_per_hour = spot.price_per_hour;
      s.instances = nodes;
      s.params = params;
      s.run = *run;
      model::WallRange range =
          model::SpotWallRange(e.p10_hours, e.p90_hours, nodes, params, *run);
      s.p10_wall_hours = range.p10_hours;
      s.p90_wall_hours = range.p90_hours;
      if (run->viable) {
        s.expected_total = spot.price_per_hour * nodes * run->billable_hours;
        double time_p10 = e.total_hours > 0 ? e.p10_hours / e.total_hours : 1;
        double time_p90 = e.total_hours > 0 ? e.p90_hours / e.total_hours : 1;
        s.p10_total = spot.p10_per_hour * nodes * run->billable_hours * time_p10;
        s.p90_total = spot.p90_per_hour * nodes * run->billable_hours * time_p90;
        s.units = model::SpreadCost(s.expected_total, e.epochs, e.total_tokens, e.total_samples);
      }
    }
  }
  return cost;
}

Result<std::optional<SpotHistorySummary>> Planner::SpotHistory(const db::Offer& offer) const {
  db::SpotQuery query;
  query.cloud = offer.instance.cloud;
  query.instance_type = offer.instance.id;
  query.region = offer.region;
  query.limit = 10000;
  auto rows = catalog_.SpotHistory(query);
  if (!rows.ok()) return rows.error();
  if (rows->empty()) return std::optional<SpotHistorySummary>();
  SpotHistorySummary s;
  double low = INFINITY, high = 0, sum = 0;
  for (const auto& p : *rows) {
    auto v = Convert(p.price_per_hour, p.currency);
    if (!v.ok()) return v.error();
    low = std::min(low, *v);
    high = std::max(high, *v);
    sum += *v;
  }
  s.observations = rows->size();
  s.first_observed_at = rows->front().observed_at;
  s.last_observed_at = rows->back().observed_at;
  s.min_per_hour = low;
  s.max_per_hour = high;
  s.mean_per_hour = sum / rows->size();
  s.cloud = query.cloud;
  s.instance_type = query.instance_type;
  s.region = query.region;
  return std::optional<SpotHistorySummary>(std::move(s));
}

namespace {

std::string CalibrationAssumption(const RunCalibration& c, const std::string& gpu_id,
                                  model::Family family) {
  char text[400];
  std::snprintf(text, sizeof(text),
                "calibrated by %d measured run(s) of %s (%s workloads): throughput x %.4g, "
                "the runs' mean ratio to the model moved %d/(%d+%g) of the way from 1; "
                "error_after is leave-one-out; the step breakdown is the model's, before "
                "the correction",
                c.runs, gpu_id.c_str(), std::string(model::FamilyName(family)).c_str(), c.factor,
                c.runs, c.runs, kMeasurementPriorRuns);
  return text;
}

std::string CalibrationCapWarning(const RunCalibration& c) {
  return "calibrated by " + std::to_string(c.runs) + " of " + std::to_string(c.runs_available) +
         " measured runs that apply (at most " + std::to_string(kMaxRunsPerEstimate) +
         " per estimate): the caller's own runs first, then shared ones, each the most "
         "recently recorded first";
}

// Prefixes the fields of `e` with "reference_run." (the reference hardware's errors).
Error UnderReference(Error e) {
  for (FieldError& f : e.fields) {
    if (f.field.rfind("hardware", 0) == 0 || f.field == "precision" || f.field == "dataset.hours") {
      f.field = "reference_run." + (f.field == "dataset.hours" ? std::string("hours") : f.field);
    }
  }
  return e;
}

// Scales `e` by a measured-throughput correction: the rate by `f`, and so the time (or, for
// a fixed duration, the work) by it.
void ApplyCorrection(model::TrainingEstimate& e, double f, bool fixed_duration) {
  e.samples_per_s *= f;
  e.tokens_per_s *= f;
  e.mfu *= f;
  e.step.step_time_s /= f;
  if (fixed_duration) {
    for (double* v : {&e.steps, &e.total_samples, &e.total_tokens, &e.epochs,
                      &e.work_p10_samples, &e.work_p90_samples, &e.train_flops}) {
      *v *= f;
    }
  } else {
    e.total_hours /= f;
    e.p10_hours /= f;
    e.p90_hours /= f;
  }
}

// Combines two independent P10/P90 spreads (ratios to the central value) in log space.
double CombineSpread(double a, double b, bool high) {
  double la = std::log(std::max(a, 1e-12)), lb = std::log(std::max(b, 1e-12));
  double spread = std::sqrt(la * la + lb * lb);
  return std::exp(high ? spread : -spread);
}

}  // namespace

std::string ReferenceAssumption(const ReferenceWork& w) {
  char text[400];
  std::snprintf(text, sizeof(text),
                "reference run: the work is what the model predicts %d x %s processes in %.4g h "
                "at %s (%.4g samples, P10-P90 %.4g-%.4g)",
                w.cluster.TotalGpus(), w.cluster.node.gpu.id.c_str(), w.hours,
                std::string(model::PrecisionName(w.precision)).c_str(), w.samples, w.p10_samples,
                w.p90_samples);
  return text;
}

Result<TrainingRequest> Planner::WithReferenceWork(const TrainingRequest& request,
                                                   std::optional<ReferenceWork>* work) {
  if (!request.reference) return request;
  const ReferenceRun& ref = *request.reference;
  auto hw = Resolve(ref.hardware, PricingRequest{});
  if (!hw.ok()) return UnderReference(hw.error());
  model::TrainingJob job = request.job;
  job.samples = job.tokens = 0;
  job.epochs = 1;
  job.hours = ref.hours;
  if (ref.precision) {
    job.precision = *ref.precision;
    job.precision_auto = false;
  }
  auto e = model::EstimateTraining(request.workload, job, hw->cluster, model::DefaultConstants(),
                                   false);
  if (!e.ok()) return UnderReference(e.error());
  if (e->memory.verdict == model::FitVerdict::kDoesNotFit) {
    return Error::Invalid("reference_run.hardware",
                          "the workload does not fit the reference hardware's memory, so the "
                          "model cannot say what it processed there");
  }
  ReferenceWork w;
  w.cluster = hw->cluster;
  if (ref.hardware.from_catalog) {
    w.cloud = ref.hardware.cloud;
    w.instance_type = ref.hardware.instance_type;
  }
  w.hours = ref.hours;
  w.precision = e->precision;
  w.samples_per_s = e->samples_per_s;
  w.samples = e->total_samples;
  w.p10_samples = e->work_p10_samples;
  w.p90_samples = e->work_p90_samples;
  w.tokens = e->total_tokens;
  TrainingRequest out = request;
  out.reference.reset();
  out.job.samples = w.samples;
  out.job.tokens = 0;
  out.job.hours = 0;
  out.job.epochs = 1;
  *work = w;
  return out;
}

Result<TrainingPlan> Planner::Training(const TrainingRequest& asked) {
  Status currency = UseCurrency(asked.currency);
  if (!currency.ok()) return currency.error();
  std::optional<ReferenceWork> reference;
  auto resolved = WithReferenceWork(asked, &reference);
  if (!resolved.ok()) return resolved.error();
  const TrainingRequest& request = *resolved;
  auto hw = Resolve(request.hardware, request.pricing);
  if (!hw.ok()) return hw.error();
  auto estimate = model::EstimateTraining(request.workload, request.job, hw->cluster);
  if (!estimate.ok()) return estimate.error();
  TrainingPlan plan;
  plan.workload = request.workload;
  plan.job = request.job;
  plan.cluster = hw->cluster;
  plan.estimate = std::move(estimate).value();
  plan.calibration =
      Calibrate(request.measurements, hw->cluster.node.gpu.id, request.workload.family);
  if (plan.calibration) {
    const RunCalibration& c = *plan.calibration;
    ApplyCorrection(plan.estimate, c.factor, request.job.hours > 0);
    plan.assumptions.push_back(
        CalibrationAssumption(c, hw->cluster.node.gpu.id, request.workload.family));
    if (c.runs_available > c.runs) plan.warnings.push_back(CalibrationCapWarning(c));
  }
  if (reference) {
    // The time range holds both predictions' uncertainty: the reference's work range and
    // this hardware's time range, combined as if independent.
    model::TrainingEstimate& e = plan.estimate;
    double t = e.total_hours;
    if (t > 0 && reference->samples > 0) {
      e.p10_hours = t * CombineSpread(reference->p10_samples / reference->samples,
                                      e.p10_hours / t, false);
      e.p90_hours = t * CombineSpread(reference->p90_samples / reference->samples,
                                      e.p90_hours / t, true);
    }
    plan.assumptions.push_back(ReferenceAssumption(*reference) +
                               "; the time range combines that range and this estimate's, as "
                               "if independent");
    plan.reference = std::move(reference);
  }
  plan.feasibility = TrainingFeasibility(plan.estimate, hw->cluster, request.job);
  SpotPricing spot;
  if (hw->price.spot) {
    auto pricing = SpotPricingFor(hw->offer, *hw->price.spot);
    if (!pricing.ok()) return pricing.error();
    spot = *pricing;
  }
  std::string cloud = hw->offer ? hw->offer->instance.cloud : "";
  if (plan.feasibility.feasible()) {
    plan.cost = CostOfTraining(plan.estimate, request.workload, hw->cluster.nodes, hw->price,
                               request.pricing, spot, cloud);
  } else {
    // A job that cannot run has no time or cost: the answer says why, and what would fit.
    plan.cost.currency = currency_;
  }
  if (plan.cost.spot) {
    const SpotTrainingCost& s = *plan.cost.spot;
    plan.assumptions.push_back("spot cost at " + s.pricing.basis);
    if (!request.pricing.rate_given) plan.assumptions.push_back(DefaultRateAssumption(s.params));
    if (!s.run.viable) {
      plan.warnings.push_back(
          "spot is not viable: at " + db::FormatNumber("%.4g", s.params.interruption_rate_per_hour) +
          " interruption(s) per node-hour on " + std::to_string(s.instances) +
          " node(s), the work lost, the checkpoint writes and the restarts take longer than "
          "the progress between interruptions: the job never finishes on spot, so it has no "
          "expected time or cost");
    }
    if (request.job.hours > 0 && s.run.viable) {
      // On-demand holds the duration; spot does the same work, and interruptions stretch it.
      char text[160];
      std::snprintf(text, sizeof(text),
                    "fixed duration on spot: the work of the %.4g h takes %.4g wall hours with "
                    "interruptions, and is billed for %.4g h",
                    request.job.hours, s.run.wall_hours, s.run.billable_hours);
      plan.assumptions.push_back(text);
    }
    if (!request.pricing.notice_given) {
      double notice = s.params.preemption_notice_minutes;
      plan.assumptions.push_back(
          notice > 0 ? "preemption notice " + Minutes(notice) + " (" + cloud + "): " +
                           (s.run.checkpoint_on_notice
                                ? "the checkpoint (" + Minutes(s.run.checkpoint_write_minutes) +
                                      ") is written on notice, so interruptions lose no work"
                                : "too short for the " + Minutes(s.run.checkpoint_write_minutes) +
                                      " checkpoint write: half an interval of work is lost "
                                      "per interruption")
                     : "no preemption notice known for this cloud: half a checkpoint interval "
                       "of work is lost per interruption");
    }
  }
  if (request.pricing.kinds.Has(PriceKind::kSpotWithFallback) && plan.feasibility.feasible()) {
    if (!plan.cost.fallback) {
      plan.warnings.push_back(
          "spot_with_fallback needs both an on-demand and a spot price: it is not estimated");
    } else {
      const FallbackTrainingCost& f = *plan.cost.fallback;
      plan.assumptions.push_back("spot_with_fallback: spot cost at " + f.pricing.basis);
      plan.assumptions.push_back(FallbackRule(f.run));
      if (!f.run.feasible) {
        char text[200];
        std::snprintf(text, sizeof(text),
                      "the deadline of %.4g h cannot be met even on demand from the start: the "
                      "P90 time is %.4g h",
                      f.run.deadline_hours, f.run.p90_hours);
        plan.warnings.push_back(text);
      }
    }
  }
  plan.price = hw->price;
  plan.offer = hw->offer;
  if (hw->offer && hw->price.spot) {
    auto history = SpotHistory(*hw->offer);
    if (!history.ok()) return history.error();
    plan.spot_history = *history;
  }
  plan.warnings.insert(plan.warnings.begin(), hw->warnings.begin(), hw->warnings.end());
  plan.assumptions.insert(plan.assumptions.begin(), hw->assumptions.begin(), hw->assumptions.end());
  if (!hw->price.ondemand && !hw->price.spot) {
    plan.warnings.push_back("no price: give hardware.price_per_hour or a catalog instance");
  }
  if (hw->offer) {
    for (auto& w : PriceWarnings(*hw->offer, AssessPrice(*hw->offer, now_))) {
      plan.warnings.push_back(std::move(w));
    }
  }
  return plan;
}

Result<InferencePlan> Planner::Inference(const InferenceRequest& request) {
  Status currency = UseCurrency(request.currency);
  if (!currency.ok()) return currency.error();
  auto hw = Resolve(request.hardware, request.pricing);
  if (!hw.ok()) return hw.error();
  auto e = model::EstimateServing(request.workload, hw->cluster.node, request.serving);
  if (!e.ok()) return e.error();
  InferencePlan plan;
  plan.workload = request.workload;
  plan.serving = request.serving;
  plan.cluster = hw->cluster;
  plan.estimate = std::move(e).value();
  plan.currency = currency_;
  plan.price = hw->price;
  plan.offer = hw->offer;
  plan.asked = request.pricing.kinds;
  const model::ServingEstimate& est = plan.estimate;
  plan.feasibility = ServingFeasibility(est, hw->cluster.node);
  plan.instances = model::ServingInstances(est, hw->cluster.node.gpus_per_node);
  const model::ServingPoint& p = est.chosen;
  // Decoders: what the fleet takes within the latency targets and headroom, not its load.
  plan.capacity_requests_per_s =
      est.replicas * (est.capacity_requests_per_s_per_replica > 0 ? est.capacity_requests_per_s_per_replica
                                                                  : p.requests_per_s);
  plan.decoder = request.serving.output_tokens > 0 &&
                 model::IsDecoderOnly(request.workload.family);
  double served_rps = request.serving.target_requests_per_s > 0
                          ? request.serving.target_requests_per_s
                          : est.replicas * p.requests_per_s;
  double tokens_per_hour = served_rps * request.serving.output_tokens * 3600;
  auto costs = [&](std::optional<double> price) -> std::optional<ServingCost> {
    if (!price || !plan.feasibility.feasible()) return std::nullopt;
    ServingCost c;
    c.price_per_hour = *price;
    c.instances = plan.instances;
    c.per_hour = *price * plan.instances;
    c.per_month = c.per_hour * kHoursPerMonth;
    if (plan.decoder && tokens_per_hour > 0) {
      c.per_million_tokens = c.per_hour / tokens_per_hour * 1e6;
      double all_tokens_per_hour = tokens_per_hour *
                                   (request.serving.input_tokens + request.serving.output_tokens) /
                                   request.serving.output_tokens;
      c.per_million_input_and_output_tokens = c.per_hour / all_tokens_per_hour * 1e6;
    }
    if (served_rps > 0) c.per_thousand_requests = c.per_hour / (served_rps * 3600) * 1e3;
    return c;
  };
  if (request.pricing.kinds.Has(PriceKind::kOndemand)) plan.ondemand = costs(hw->price.ondemand);
  if (request.pricing.kinds.Has(PriceKind::kSpot)) plan.spot = costs(hw->price.spot);
  plan.assumptions = est.assumptions;
  if (plan.decoder) {
    plan.assumptions.push_back(
        "cost.per_million_tokens counts generated (output) tokens only; "
        "per_million_input_and_output_tokens counts prompt and output tokens");
  }
  plan.warnings = est.warnings;
  if (request.pricing.kinds.Has(PriceKind::kSpot) && hw->price.spot) {
    plan.warnings.push_back(kSpotServingCaveat);
  }
  for (const auto& w : hw->warnings) plan.warnings.push_back(w);
  for (const auto& a : hw->assumptions) plan.assumptions.push_back(a);
  if (hw->offer) {
    for (auto& w : PriceWarnings(*hw->offer, AssessPrice(*hw->offer, now_))) {
      plan.warnings.push_back(std::move(w));
    }
  }
  return plan;
}

}  // namespace gpuplan::plan
