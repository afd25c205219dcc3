#include "api/catalog_json.h"

#include "db/offer_query.h"
#include "plan/price_quality.h"

#include <cmath>

namespace gpuplan::api {

namespace {

nlohmann::json Optional(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json OptionalMoney(const std::optional<double>& value) {
  return value ? nlohmann::json(RoundMoney(*value)) : nlohmann::json(nullptr);
}

nlohmann::json PositiveOrNull(double value) {
  return value > 0 ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// A spot interruption band and the hourly rate it converts to (plan/spot_risk.h).
nlohmann::json SpotBandJson(const db::SpotBand& b) {
  model::InterruptionRate rate = model::RateOfMonthlyBand(b.low_fraction, b.high_fraction);
  return {{"band", b.label},
          {"band_index", b.band},
          {"low_fraction", b.low_fraction},
          {"high_fraction", Optional(b.high_fraction)},
          {"rate_per_hour", rate.per_hour},
          {"low_per_hour", rate.low_per_hour},
          {"high_per_hour", rate.high_per_hour},
          {"savings_percent", Optional(b.savings_percent)},
          {"source", b.source},
          {"observed_at", b.observed_at}};
}

void AddPrices(nlohmann::json& out, const db::Offer& o, std::time_t now) {
  out["price_ondemand_per_hour"] = OptionalMoney(o.price_ondemand_per_hour);
  out["price_spot_per_hour"] = OptionalMoney(o.price_spot_per_hour);
  out["spot_zone"] = o.spot_zone.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.spot_zone);
  out["currency"] = o.currency;
  out["price_per_gpu_hour"] = OptionalMoney(db::PricePerGpuHour(o, model::PriceKind::kOndemand));
  out["price_spot_per_gpu_hour"] = OptionalMoney(db::PricePerGpuHour(o, model::PriceKind::kSpot));
  out["spot_above_ondemand"] = db::SpotAboveOndemand(o);
  out["price_scope"] = o.price_scope;
  out["observed_at"] = o.observed_at;
  out["stale"] = plan::AssessPrice(o, now).stale;
  out["source"] = o.source;
  out["spot_interruption"] =
      o.spot_band ? SpotBandJson(*o.spot_band) : nlohmann::json(nullptr);
}

}  // namespace


namespace {

// Dense tensor FLOPs one SM retires per clock, by precision (model::TensorFlopsPerSmPerClock;
// null where a factor is unknown).
nlohmann::json TensorFlopsPerSmPerClock(const model::GpuSpec& g) {
  auto per_clock = [&](double tflops) {
    auto v = model::TensorFlopsPerSmPerClock(g, tflops);
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  return {{"tf32", per_clock(g.tf32_tflops)},
          {"fp16", per_clock(g.fp16_tflops)},
          {"fp16_acc16", per_clock(g.fp16_acc16_tflops)},
          {"bf16", per_clock(g.bf16_tflops)},
          {"fp8", per_clock(g.fp8_tflops)}};
}

}  // namespace

nlohmann::json GpuJson(const model::GpuSpec& g) {
  return {
      {"id", g.id},
      {"name", g.name},
      {"vendor", g.vendor},
      {"architecture", g.architecture},
      {"release_year", g.release_year > 0 ? nlohmann::json(g.release_year) : nlohmann::json()},
      {"memory_gb", g.memory_gb},
      {"memory_type", g.memory_type},
      {"memory_bw_gbps", g.memory_bw_gbps},
      {"achievable_bw_gbps", PositiveOrNull(g.achievable_bw_gbps)},
      {"peak_tflops",
       {{"fp64", PositiveOrNull(g.fp64_tflops)},
        {"fp32", PositiveOrNull(g.fp32_tflops)},
        {"tf32", PositiveOrNull(g.tf32_tflops)},
        {"fp16", PositiveOrNull(g.fp16_tflops)},
        {"fp16_acc16", PositiveOrNull(g.fp16_acc16_tflops)},
        {"fp16_vector", PositiveOrNull(g.fp16_vector_tflops)},
        {"bf16", PositiveOrNull(g.bf16_tflops)},
        {"fp8", PositiveOrNull(g.fp8_tflops)},
        {"int8_tops", PositiveOrNull(g.int8_tops)}}},
      {"nvlink_bw_gbps", g.nvlink_bw_gbps},
      {"pcie_gen", g.pcie_gen > 0 ? nlohmann::json(g.pcie_gen) : nlohmann::json()},
      {"tdp_w", PositiveOrNull(g.tdp_w)},
      {"sm_count", PositiveOrNull(g.sm_count)},
      {"boost_clock_mhz", PositiveOrNull(g.boost_clock_mhz)},
      {"base_clock_mhz", PositiveOrNull(g.base_clock_mhz)},
      {"tensor_flops_per_sm_per_clock", TensorFlopsPerSmPerClock(g)},
      {"l2_cache_mb", PositiveOrNull(g.l2_cache_mb)},
      {"form_factor", g.form_factor},
      {"launch_price_usd",
       g.launch_price_usd ? nlohmann::json(*g.launch_price_usd) : nlohmann::json()},
      {"source", g.source},
  };
}

nlohmann::json CloudJson(const db::CloudSummary& c) {
  return {{"id", c.cloud.id},
          {"name", c.cloud.name},
          {"default_currency", c.cloud.default_currency},
          {"price_scope", c.cloud.price_scope},
          {"region_count", c.regions},
          {"instance_type_count", c.instance_types}};
}

nlohmann::json RegionJson(const db::Region& r) {
  return {{"cloud", r.cloud},
          {"id", r.id},
          {"display_name", r.display_name},
          {"country", r.country},
          {"continent", r.continent}};
}

nlohmann::json InstanceSpecJson(const db::InstanceType& t) {
  return {
      {"cloud", t.cloud},
      {"instance_type", t.id},
      {"gpu", t.gpu_id},
      {"gpu_count", t.gpu_count},
      {"vcpus", Optional(t.vcpus)},
      {"memory_gib", Optional(t.memory_gib)},
      {"interconnect", t.interconnect},
      {"interconnect_bw_gbps", t.interconnect_bw_gbps},
      {"network_gbps", Optional(t.network_gbps)},
      {"arch", t.arch},
      {"host_instance_type",
       t.host_instance_type.empty() ? nlohmann::json() : nlohmann::json(t.host_instance_type)},
      {"accelerator_name", t.accelerator_name},
  };
}

nlohmann::json OfferJson(const db::Offer& o, std::time_t now) {
  nlohmann::json out = InstanceSpecJson(o.instance);
  out["region"] = o.region;
  out["gpu_memory_gb"] = o.gpu_memory_gb;
  out["total_gpu_memory_gb"] = o.gpu_memory_gb * o.instance.gpu_count;
  AddPrices(out, o, now);
  return out;
}

nlohmann::json RegionalPriceJson(const db::Offer& o, std::time_t now) {
  nlohmann::json out = {{"region", o.region}};
  AddPrices(out, o, now);
  return out;
}

}  // namespace gpuplan::api
