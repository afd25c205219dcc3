#include "api/plan_service.h"

#include <cmath>
#include <limits>

#include "api/catalog_json.h"
#include "api/model_json.h"
#include "api/query_params.h"
#include "db/offer_query.h"
#include "model/inference.h"

namespace gpuplan::api {

namespace {

constexpr double kHoursPerMonth = 730;

nlohmann::json Money(std::optional<double> v) {
  return v ? nlohmann::json(RoundMoney(*v)) : nlohmann::json(nullptr);
}

void AppendAll(nlohmann::json& list, const std::vector<std::string>& items) {
  for (const auto& s : items) list.push_back(s);
}

}  // namespace

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
  return node;
}

Status PlanService::UseCurrency(const std::string& currency) {
  auto rates = store_.FxRates();
  if (!rates.ok()) return rates.error();
  rates_ = std::move(rates).value();
  if (!rates_.count(currency)) {
    return Error::Invalid("/currency", "no exchange rate for currency '" + currency + "'");
  }
  currency_ = currency;
  return OkStatus();
}

Result<double> PlanService::Convert(double amount, const std::string& from) const {
  auto v = db::ConvertCurrency(amount, from, currency_, rates_);
  if (!v.ok()) return Error::Invalid("/currency", v.error().message);
  return *v;
}

Result<PriceQuote> PlanService::Quote(const db::Offer& offer) const {
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
  return q;
}

Result<ResolvedHardware> PlanService::Resolve(const HardwareRequest& hw,
                                              const PricingRequest& pricing) {
  ResolvedHardware r;
  r.cluster.nodes = hw.nodes;
  if (!hw.from_catalog) {
    auto gpu = store_.GetGpu(hw.gpu);
    if (!gpu.ok()) {
      if (gpu.error().code != ErrorCode::kNotFound) return gpu.error();
      return Error::Invalid("/hardware/gpu", "unknown GPU '" + hw.gpu + "' (see GET /api/v1/gpus)");
    }
    model::NodeSpec& node = r.cluster.node;
    node.gpu = *gpu;
    node.gpus_per_node = hw.gpus_per_node;
    node.interconnect = hw.interconnect.value_or(model::DefaultInterconnect(*gpu, hw.gpus_per_node));
    node.interconnect_bw_gbps = hw.interconnect_bw_gbps;
    node.network_gbps = hw.network_gbps;
    node.vcpus = hw.vcpus;
    r.price.currency = currency_;
    r.price.native_currency = hw.price_currency;
    r.price.source = "request";
    for (auto [from, to] : {std::pair{&hw.price_per_hour, &r.price.ondemand},
                            std::pair{&hw.spot_price_per_hour, &r.price.spot}}) {
      if (!*from) continue;
      auto v = db::ConvertCurrency(**from, hw.price_currency, currency_, rates_);
      if (!v.ok()) {
        return Error::Invalid("/hardware/price_currency",
                              "no exchange rate for '" + hw.price_currency + "'");
      }
      *to = *v;
    }
    return r;
  }
  auto found = store_.GetInstanceType(hw.cloud, hw.instance_type);
  if (!found.ok()) {
    if (found.error().code != ErrorCode::kNotFound) return found.error();
    return Error::Invalid("/hardware/instance_type", "unknown instance type '" +
                                                         hw.instance_type + "' in cloud '" +
                                                         hw.cloud + "'");
  }
  auto gpu = store_.GetGpu(found->first.gpu_id);
  if (!gpu.ok()) return gpu.error();
  r.cluster.node = NodeFromInstance(found->first, *gpu);
  const std::vector<db::Offer>& offers = found->second;
  const db::Offer* chosen = nullptr;
  double cheapest = std::numeric_limits<double>::infinity();
  for (const db::Offer& o : offers) {
    if (!hw.region.empty()) {
      if (o.region == hw.region) chosen = &o;
      continue;
    }
    const bool by_spot = pricing.spot && !pricing.ondemand;
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
    return Error::Invalid("/hardware/region", "'" + hw.instance_type + "' has no price in region '" +
                                                  hw.region + "'");
  }
  if (!chosen) {
    r.warnings.push_back("no catalog price for " + hw.instance_type + ": cost is not estimated");
    r.price.currency = currency_;
    return r;
  }
  if (hw.region.empty()) {
    r.warnings.push_back("region not given: " + chosen->region + ", the region with the lowest " +
                         (pricing.spot && !pricing.ondemand ? "spot" : "on-demand") +
                         " price, is used");
  }
  auto quote = Quote(*chosen);
  if (!quote.ok()) return quote.error();
  r.offer = *chosen;
  r.price = *quote;
  return r;
}

nlohmann::json PlanService::TrainingCost(const model::TrainingEstimate& e, const model::Workload& w,
                                         int nodes, const PriceQuote& price,
                                         const PricingRequest& pricing) const {
  nlohmann::json cost = {{"currency", currency_}, {"ondemand", nullptr}, {"spot", nullptr}};
  double samples = model::IsImage(w.family) || e.total_tokens <= 0 ? e.total_samples : 0;
  if (pricing.ondemand && price.ondemand) {
    double total = *price.ondemand * nodes * e.total_hours;
    model::UnitCosts u = model::SpreadCost(total, e.epochs, e.total_tokens, e.total_samples);
    cost["ondemand"] = {{"price_per_hour", RoundMoney(*price.ondemand)},
                        {"instances", nodes},
                        {"hours", e.total_hours},
                        {"total", RoundMoney(total)},
                        {"p10_total", RoundMoney(*price.ondemand * nodes * e.p10_hours)},
                        {"p90_total", RoundMoney(*price.ondemand * nodes * e.p90_hours)},
                        {"per_epoch", u.per_epoch > 0 ? Money(u.per_epoch) : nullptr},
                        {"per_million_tokens",
                         e.total_tokens > 0 ? Money(u.per_million_tokens) : nullptr},
                        {"per_thousand_samples", Money(u.per_thousand_samples)},
                        {"per_thousand_images",
                         samples > 0 && model::IsImage(w.family) ? Money(u.per_thousand_samples)
                                                                 : nullptr}};
  }
  if (pricing.spot && price.spot) {
    model::SpotParams params = pricing.spot_params;
    params.checkpoint_bytes = 14 * model::ParamsTotal(w);
    auto run = model::SpotRun(e.total_hours, nodes, params);
    if (run.ok()) {
      nlohmann::json spot = {{"price_per_hour", RoundMoney(*price.spot)},
                             {"instances", nodes},
                             {"viable", run->viable},
                             {"interruption_rate_per_hour", params.interruption_rate_per_hour},
                             {"expected_interruptions", run->expected_interruptions},
                             {"checkpoint_interval_minutes", run->checkpoint_interval_minutes},
                             {"checkpoint_write_minutes", run->checkpoint_write_minutes},
                             {"restart_minutes", params.restart_minutes},
                             {"capacity_wait_minutes", params.capacity_wait_minutes},
                             {"lost_work_hours", run->lost_work_hours},
                             {"wall_hours", run->viable ? nlohmann::json(run->wall_hours) : nullptr},
                             {"billable_hours",
                              run->viable ? nlohmann::json(run->billable_hours) : nullptr},
                             {"expected_total", nullptr}};
      if (run->viable) {
        double total = *price.spot * nodes * run->billable_hours;
        model::UnitCosts u = model::SpreadCost(total, e.epochs, e.total_tokens, e.total_samples);
        spot["expected_total"] = RoundMoney(total);
        spot["per_epoch"] = u.per_epoch > 0 ? Money(u.per_epoch) : nullptr;
        spot["per_million_tokens"] = e.total_tokens > 0 ? Money(u.per_million_tokens) : nullptr;
        spot["per_thousand_samples"] = Money(u.per_thousand_samples);
      }
      cost["spot"] = std::move(spot);
    }
  }
  return cost;
}

nlohmann::json PriceQuoteJson(const PriceQuote& q, const std::optional<db::Offer>& offer,
                              const std::map<std::string, db::FxRate>& rates) {
  nlohmann::json j = {{"price_ondemand_per_hour", Money(q.ondemand)},
                      {"price_spot_per_hour", Money(q.spot)},
                      {"currency", q.currency},
                      {"native_currency", q.native_currency},
                      {"observed_at", q.observed_at},
                      {"source", q.source}};
  if (!q.native_currency.empty() && q.native_currency != q.currency) {
    auto from = rates.find(q.native_currency), to = rates.find(q.currency);
    if (from != rates.end() && to != rates.end()) {
      j["fx_rate"] = {{"from", q.native_currency}, {"to", q.currency},
                      {"rate", to->second.units_per_usd / from->second.units_per_usd},
                      {"as_of", std::min(from->second.as_of, to->second.as_of)}};
    }
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

Result<nlohmann::json> PlanService::SpotHistorySummary(const db::Offer& offer) const {
  db::CatalogStore::SpotQuery query;
  query.cloud = offer.instance.cloud;
  query.instance_type = offer.instance.id;
  query.region = offer.region;
  query.limit = 10000;
  auto rows = store_.SpotHistory(query);
  if (!rows.ok()) return rows.error();
  if (rows->empty()) return nlohmann::json(nullptr);
  double low = INFINITY, high = 0, sum = 0;
  for (const auto& p : *rows) {
    auto v = Convert(p.price_per_hour, p.currency);
    if (!v.ok()) return v.error();
    low = std::min(low, *v);
    high = std::max(high, *v);
    sum += *v;
  }
  return nlohmann::json{{"observations", rows->size()},
                        {"first_observed_at", rows->front().observed_at},
                        {"last_observed_at", rows->back().observed_at},
                        {"min_per_hour", RoundMoney(low)},
                        {"max_per_hour", RoundMoney(high)},
                        {"mean_per_hour", RoundMoney(sum / rows->size())},
                        {"currency", currency_},
                        {"series", "/api/v1/prices/spot-history?cloud=" +
                                       PercentEncode(query.cloud) + "&instance_type=" +
                                       PercentEncode(query.instance_type) + "&region=" +
                                       PercentEncode(query.region)}};
}

Result<nlohmann::json> PlanService::Training(const TrainingRequest& request) {
  Status currency = UseCurrency(request.currency);
  if (!currency.ok()) return currency.error();
  auto hw = Resolve(request.hardware, request.pricing);
  if (!hw.ok()) return hw.error();
  auto estimate = model::EstimateTraining(request.workload, request.job, hw->cluster);
  if (!estimate.ok()) return estimate.error();
  nlohmann::json out = TrainingEstimateJson(*estimate, request.workload, hw->cluster, request.job);
  out["workload"] = WorkloadJson(request.workload);
  out["cost"] = TrainingCost(*estimate, request.workload, hw->cluster.nodes, hw->price,
                             request.pricing);
  out["instance"] = PriceQuoteJson(hw->price, hw->offer, rates_);
  if (hw->offer && hw->price.spot) {
    auto history = SpotHistorySummary(*hw->offer);
    if (!history.ok()) return history.error();
    out["instance"]["spot_history"] = *history;
  }
  AppendAll(out["warnings"], hw->warnings);
  if (!hw->price.ondemand && !hw->price.spot) {
    out["warnings"].push_back("no price: give hardware.price_per_hour or a catalog instance");
  }
  return out;
}

Result<nlohmann::json> PlanService::Inference(const InferenceRequest& request) {
  Status currency = UseCurrency(request.currency);
  if (!currency.ok()) return currency.error();
  auto hw = Resolve(request.hardware, request.pricing);
  if (!hw.ok()) return hw.error();
  auto e = model::EstimateServing(request.workload, hw->cluster.node, request.serving);
  if (!e.ok()) return e.error();
  int per_instance = std::max(1, hw->cluster.node.gpus_per_node / std::max(1, e->gpus_per_replica));
  int instances = (e->replicas + per_instance - 1) / per_instance;
  const model::ServingPoint& p = e->chosen;
  bool decoder = request.serving.output_tokens > 0 &&
                 (request.workload.family == model::Family::kDecoder ||
                  request.workload.family == model::Family::kMoe);
  double served_rps = request.serving.target_requests_per_s > 0
                          ? request.serving.target_requests_per_s
                          : e->replicas * p.requests_per_s;
  double tokens_per_hour = served_rps * request.serving.output_tokens * 3600;
  auto costs = [&](std::optional<double> price) -> nlohmann::json {
    if (!price || e->verdict == model::FitVerdict::kDoesNotFit) return nullptr;
    double per_hour = *price * instances;
    return {{"price_per_hour", RoundMoney(*price)},
            {"instances", instances},
            {"per_hour", RoundMoney(per_hour)},
            {"per_month", RoundMoney(per_hour * kHoursPerMonth)},
            {"per_million_tokens",
             decoder && tokens_per_hour > 0 ? Money(per_hour / tokens_per_hour * 1e6) : nullptr},
            {"per_million_input_and_output_tokens",
             decoder && tokens_per_hour > 0
                 ? Money(per_hour / (tokens_per_hour * (request.serving.input_tokens +
                                                        request.serving.output_tokens) /
                                     request.serving.output_tokens) * 1e6)
                 : nullptr},
            {"per_thousand_requests",
             served_rps > 0 ? Money(per_hour / (served_rps * 3600) * 1e3) : nullptr}};
  };
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& c : e->curve) {
    curve.push_back({{"batch", c.batch},
                     {"ttft_s", c.ttft_s},
                     {"tpot_s", decoder ? nlohmann::json(c.tpot_s) : nullptr},
                     {"latency_s", c.latency_s},
                     {"requests_per_s", c.requests_per_s},
                     {"tokens_per_s", decoder ? nlohmann::json(c.tokens_per_s) : nullptr}});
  }
  nlohmann::json out = {
      {"workload", WorkloadJson(request.workload)},
      {"hardware",
       {{"gpu", hw->cluster.node.gpu.id}, {"gpus_per_node", hw->cluster.node.gpus_per_node}}},
      {"precision", model::PrecisionName(e->precision)},
      {"replicas", e->replicas},
      {"gpus_per_replica", e->gpus_per_replica},
      {"instances", instances},
      {"total_gpus", e->total_gpus},
      {"batch", p.batch},
      {"latency_s", p.latency_s},
      {"ttft_s", p.ttft_s},
      {"tpot_s", decoder ? nlohmann::json(p.tpot_s) : nullptr},
      {"slo_met", e->slo_met},
      {"throughput_per_replica",
       {{"requests_per_s", p.requests_per_s},
        {"tokens_per_s", decoder ? nlohmann::json(p.tokens_per_s) : nullptr}}},
      {"capacity_requests_per_s", e->replicas * p.requests_per_s},
      {"memory",
       {{"weights_gb", e->weights_gb},
        {"kv_cache_gb", e->kv_cache_gb},
        {"kv_cache_bytes_per_token", e->kv_cache_bytes_per_token},
        {"total_gb", e->memory_total_gb},
        {"capacity_gb", e->memory_capacity_gb},
        {"verdict", model::VerdictName(e->verdict)},
        {"max_batch", e->max_batch}}},
      {"curve", std::move(curve)},
      {"cost",
       {{"currency", currency_},
        {"ondemand", request.pricing.ondemand ? costs(hw->price.ondemand) : nullptr},
        {"spot", request.pricing.spot ? costs(hw->price.spot) : nullptr}}},
      {"instance", PriceQuoteJson(hw->price, hw->offer, rates_)},
      {"assumptions", e->assumptions},
      {"warnings", e->warnings},
      {"model_version", kModelVersion},
  };
  if (decoder) {
    out["assumptions"].push_back(
        "cost.per_million_tokens counts generated (output) tokens only; "
        "per_million_input_and_output_tokens counts prompt and output tokens");
  }
  if (request.pricing.spot && hw->price.spot) {
    out["warnings"].push_back(kSpotServingCaveat);
  }
  AppendAll(out["warnings"], hw->warnings);
  if (e->verdict == model::FitVerdict::kDoesNotFit) {
    // Hardware that cannot serve the model: say so, never "0 replicas, SLO met".
    for (const char* key : {"replicas", "instances", "total_gpus", "batch", "latency_s",
                            "ttft_s", "tpot_s", "capacity_requests_per_s"}) {
      out[key] = nullptr;
    }
    out["throughput_per_replica"] = nullptr;
    out["does_not_fit_reason"] = e->warnings.empty() ? "does not fit" : e->warnings.back();
  }
  return out;
}

}  // namespace gpuplan::api
