#include "api/catalog_json.h"

#include "api/catalog_export_writer.h"
#include "api/json_writer.h"
#include "db/offer_query.h"
#include "plan/price_quality.h"

#include <cmath>
#include <type_traits>
#include <vector>

namespace gpuplan::api {

namespace {

std::optional<double> OptionalMoney(const std::optional<double>& value) {
  return value ? std::optional<double>(RoundMoney(*value)) : std::nullopt;
}

nlohmann::json PositiveOrNull(double value) {
  return value > 0 ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// The writers below fill `Out`: a JsonWriter, or CsvCells (an offer's scalar members by
// name, for the CSV listing), so each member is named and converted in one place.

// A spot interruption band and the hourly rate it converts to (plan/spot_risk.h).
template <typename Out>
void WriteSpotBand(Out& out, const db::SpotBand& b) {
  model::InterruptionRate rate = model::RateOfMonthlyBand(b.low_fraction, b.high_fraction);
  out.BeginObject();
  out.Field("band", b.label);
  out.Field("band_index", b.band);
  out.Field("low_fraction", b.low_fraction);
  out.Field("high_fraction", b.high_fraction);
  out.Field("rate_per_hour", rate.per_hour);
  out.Field("low_per_hour", rate.low_per_hour);
  out.Field("high_per_hour", rate.high_per_hour);
  out.Field("savings_percent", b.savings_percent);
  out.Field("source", b.source);
  out.Field("observed_at", b.observed_at);
  out.EndObject();
}

// An offer's prices, their staleness and its spot band, as members of an open object.
template <typename Out>
void WritePriceMembers(Out& out, const db::Offer& o, std::time_t now) {
  out.Field("price_ondemand_per_hour", OptionalMoney(o.price_ondemand_per_hour));
  out.Field("price_spot_per_hour", OptionalMoney(o.price_spot_per_hour));
  out.Field("spot_zone",
            o.spot_zone.empty() ? std::nullopt : std::optional<std::string>(o.spot_zone));
  out.Field("currency", o.currency);
  out.Field("price_per_gpu_hour",
            OptionalMoney(db::PricePerGpuHour(o, model::PriceKind::kOndemand)));
  out.Field("price_spot_per_gpu_hour",
            OptionalMoney(db::PricePerGpuHour(o, model::PriceKind::kSpot)));
  out.Field("spot_above_ondemand", db::SpotAboveOndemand(o));
  out.Field("price_scope", o.price_scope);
  out.Field("observed_at", o.observed_at);
  out.Field("stale", plan::AssessPrice(o, now).stale);
  out.Field("source", o.source);
  out.Key("spot_interruption");
  if (o.spot_band) {
    WriteSpotBand(out, *o.spot_band);
  } else {
    out.Null();
  }
}

// The instance type's specs as members of an open object.
template <typename Out>
void WriteInstanceSpecMembers(Out& out, const db::InstanceType& t) {
  out.Field("cloud", t.cloud);
  out.Field("instance_type", t.id);
  out.Field("gpu", t.gpu_id);
  out.Field("gpu_count", t.gpu_count);
  out.Field("vcpus", t.vcpus);
  out.Field("memory_gib", t.memory_gib);
  out.Field("interconnect", t.interconnect);
  out.Field("interconnect_bw_gbps", t.interconnect_bw_gbps);
  out.Field("network_gbps", t.network_gbps);
  out.Field("arch", t.arch);
  out.Field("host_instance_type", t.host_instance_type.empty()
                                      ? std::nullopt
                                      : std::optional<std::string>(t.host_instance_type));
  out.Field("accelerator_name", t.accelerator_name);
}

// An offer's members (WriteOffer's object without its braces).
template <typename Out>
void WriteOfferMembers(Out& out, const db::Offer& o, std::time_t now) {
  WriteInstanceSpecMembers(out, o.instance);
  out.Field("region", o.region);
  out.Field("gpu_memory_gb", o.gpu_memory_gb);
  out.Field("total_gpu_memory_gb", o.gpu_memory_gb * o.instance.gpu_count);
  WritePriceMembers(out, o, now);
}

// The cells of one CSV row: the scalar members of the object written into it whose names
// are `columns` (nested objects and nulls leave a cell empty). Text goes through
// CsvTextCell; numbers and booleans as JSON writes them (nlohmann's number format).
class CsvCells {
 public:
  explicit CsvCells(std::span<const char* const> columns)
      : columns_(columns), cells_(columns.size()) {}
  template <typename T>
  void Field(std::string_view key, const T& v) {
    if (depth_ > 0) return;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (key == columns_[i]) {
        cells_[i] = Cell(v);
        return;
      }
    }
  }
  void Key(std::string_view) {}
  void Null() {}
  void BeginObject() { ++depth_; }
  void EndObject() { --depth_; }
  // Appends the cells, comma-separated, to `row`.
  void AppendTo(std::string& row) const {
    for (size_t i = 0; i < cells_.size(); ++i) {
      if (i > 0) row += ',';
      row += cells_[i];
    }
  }

 private:
  template <typename T>
  static std::string Cell(const T& v) {
    using U = std::decay_t<T>;
    if constexpr (std::is_same_v<U, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<U>) {
      return std::isfinite(v) ? nlohmann::json(v).dump() : std::string();  // JSON's null
    } else if constexpr (std::is_arithmetic_v<U>) {
      return nlohmann::json(v).dump();
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      return CsvTextCell(std::string_view(v));
    } else {
      static_assert(json_writer_detail::IsOptional<U>::value, "CsvCells: no cell for this type");
      return v ? Cell(*v) : std::string();  // an optional: empty when null
    }
  }

  std::span<const char* const> columns_;
  std::vector<std::string> cells_;
  int depth_ = 0;
};

// The tree of the one object `members` writes (the renderings that callers extend or read
// back as a tree share the writer's encoding: one place per field).
template <typename Members>
nlohmann::json TreeOf(Members&& members) {
  JsonWriter out;
  out.BeginObject();
  members(out);
  out.EndObject();
  return nlohmann::json::parse(out.Take());
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
          {"fp8", per_clock(g.fp8_tflops)},
          {"fp4", per_clock(g.fp4_tflops)}};
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
        {"fp4", PositiveOrNull(g.fp4_tflops)},
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
  return TreeOf([&](JsonWriter& out) { WriteInstanceSpecMembers(out, t); });
}

void WriteOffer(JsonWriter& out, const db::Offer& o, std::time_t now) {
  out.BeginObject();
  WriteOfferMembers(out, o, now);
  out.EndObject();
}

void AppendOfferCsvRow(std::string& row, std::span<const char* const> columns,
                       const db::Offer& o, std::time_t now) {
  CsvCells cells(columns);
  WriteOfferMembers(cells, o, now);
  cells.AppendTo(row);
}

nlohmann::json OfferJson(const db::Offer& o, std::time_t now) {
  return TreeOf([&](JsonWriter& out) { WriteOfferMembers(out, o, now); });
}

nlohmann::json RegionalPriceJson(const db::Offer& o, std::time_t now) {
  return TreeOf([&](JsonWriter& out) {
    out.Field("region", o.region);
    WritePriceMembers(out, o, now);
  });
}

}  // namespace gpuplan::api
