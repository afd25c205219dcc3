#include "api/catalog_export_writer.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "api/json_encode.h"
#include "model/gpu_spec.h"

namespace gpuplan::api {

namespace {

nlohmann::json Opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json GpuJson(const model::GpuSpec& g) {
  nlohmann::json j = {{"id", g.id}, {"name", g.name}, {"vendor", g.vendor},
                      {"architecture", g.architecture}, {"release_year", g.release_year},
                      {"memory_gb", g.memory_gb}, {"memory_type", g.memory_type},
                      {"pcie_gen", g.pcie_gen}, {"form_factor", g.form_factor},
                      {"launch_price_usd", Opt(g.launch_price_usd)}, {"source", g.source}};
  for (const model::GpuRateField& rate : model::kGpuRateFields) j[rate.name] = g.*rate.field;
  return j;
}

nlohmann::json TypeJson(const db::InstanceType& t) {
  return {{"cloud", t.cloud}, {"instance_type", t.id}, {"gpu", t.gpu_id},
          {"gpu_count", t.gpu_count}, {"vcpus", Opt(t.vcpus)}, {"memory_gib", Opt(t.memory_gib)},
          {"interconnect", t.interconnect}, {"interconnect_bw_gbps", t.interconnect_bw_gbps},
          {"network_gbps", Opt(t.network_gbps)}, {"arch", t.arch},
          {"host_instance_type", t.host_instance_type}, {"accelerator_name", t.accelerator_name},
          {"source", t.source}};
}

nlohmann::json PriceJson(const db::PriceObservation& p) {
  return {{"cloud", p.cloud}, {"instance_type", p.instance_type}, {"region", p.region},
          {"zone", p.zone}, {"kind", p.kind}, {"price_per_hour", p.price_per_hour},
          {"currency", p.currency}, {"observed_at", p.observed_at}, {"source", p.source}};
}

nlohmann::json SpotBandJson(const db::SpotBand& b) {
  return {{"cloud", b.cloud}, {"region", b.region}, {"instance_type", b.instance_type},
          {"band", b.band}, {"label", b.label}, {"low_fraction", b.low_fraction},
          {"high_fraction", Opt(b.high_fraction)}, {"savings_percent", Opt(b.savings_percent)},
          {"observed_at", b.observed_at}, {"source", b.source}};
}

std::string CsvNumber(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// (cloud, id) order as SQLite's BINARY collation sorts it (bytewise).
bool KeyBefore(const db::InstanceType& t, const db::PriceObservation& p) {
  int c = t.cloud.compare(p.cloud);
  return c < 0 || (c == 0 && t.id.compare(p.instance_type) < 0);
}

}  // namespace

bool CsvNeedsFormulaEscape(std::string_view text) {
  return !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
}

std::string CsvTextCell(std::string_view text) {
  std::string cell = CsvNeedsFormulaEscape(text) ? "'" : "";
  cell += text;
  bool edge_space = !cell.empty() && (cell.front() == ' ' || cell.back() == ' ' ||
                                      cell.back() == '\t');  // CSV readers trim them
  if (!edge_space && cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string out = "\"";
  for (char ch : cell) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

ExportWriter::ExportWriter(std::unique_ptr<db::CatalogSnapshot> snapshot,
                           CatalogExportFormat format)
    : snapshot_(std::move(snapshot)), format_(format) {}

Result<std::unique_ptr<ExportWriter>> ExportWriter::Start(
    std::unique_ptr<db::CatalogSnapshot> snapshot, CatalogExportFormat format,
    const std::string& exported_at) {
  std::unique_ptr<ExportWriter> w(new ExportWriter(std::move(snapshot), format));
  if (format == CatalogExportFormat::kCsv) {
    w->head_ =
        "cloud,region,zone,instance_type,gpu,gpu_count,vcpus,memory_gib,kind,price_per_hour,"
        "currency,observed_at,source\n";
    return w;
  }
  auto ref = w->snapshot_->Reference();
  if (!ref.ok()) return ref.error();
  auto array = [](const auto& items, auto to_json) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& item : items) a.push_back(to_json(item));
    return EncodeJson(a);
  };
  // The keys in nlohmann's (sorted) order, so the text equals a dump of the whole document.
  w->head_ = "{\"clouds\":" + array(ref->clouds, [](const db::Cloud& c) {
               return nlohmann::json{{"id", c.id}, {"name", c.name},
                                     {"default_currency", c.default_currency},
                                     {"price_scope", c.price_scope}};
             }) +
             ",\"exported_at\":" + EncodeJson(exported_at) + ",\"format\":\"gpuplan\"" +
             ",\"fx_rates\":" + array(ref->fx_rates, [](const db::FxRate& f) {
               return nlohmann::json{{"currency", f.currency}, {"units_per_usd", f.units_per_usd},
                                     {"as_of", f.as_of}, {"source", f.source}};
             }) +
             ",\"gpus\":" + array(ref->gpus, GpuJson) + ",\"instance_types\":[";
  w->tail_ = "],\"regions\":" + array(ref->regions, [](const db::Region& r) {
               return nlohmann::json{{"cloud", r.cloud}, {"id", r.id},
                                     {"display_name", r.display_name}, {"country", r.country},
                                     {"continent", r.continent}};
             }) +
             ",\"spot_bands\":" + array(ref->spot_bands, SpotBandJson) + ",\"version\":1}";
  return w;
}

bool ExportWriter::Next(std::string& out, size_t min_bytes) {
  size_t start = out.size();
  auto full = [&] { return out.size() - start >= min_bytes; };
  while (!full()) {
    switch (stage_) {
      case Stage::kHead:
        out += head_;
        head_.clear();
        stage_ = format_ == CatalogExportFormat::kCsv ? Stage::kPrices : Stage::kTypes;
        break;
      case Stage::kTypes: {
        db::InstanceType t;
        if (!snapshot_->NextInstanceType(t)) {
          out += "],\"prices\":[";
          first_ = true;
          stage_ = Stage::kPrices;
          break;
        }
        if (!first_) out += ',';
        first_ = false;
        out += EncodeJson(TypeJson(t));
        break;
      }
      case Stage::kPrices: {
        if (format_ == CatalogExportFormat::kCsv) {
          CsvPrices(out, min_bytes - (out.size() - start));
          break;
        }
        db::PriceObservation p;
        if (!snapshot_->NextPrice(p)) {
          out += tail_;
          stage_ = Stage::kDone;
          break;
        }
        if (!first_) out += ',';
        first_ = false;
        out += EncodeJson(PriceJson(p));
        break;
      }
      case Stage::kDone:
        return out.size() > start;
    }
  }
  return true;
}

void ExportWriter::CsvPrices(std::string& out, size_t min_bytes) {
  size_t start = out.size();
  db::PriceObservation p;
  while (out.size() - start < min_bytes) {
    if (!snapshot_->NextPrice(p)) {
      stage_ = Stage::kDone;
      return;
    }
    while (!types_done_ && (!have_type_ || KeyBefore(type_, p))) {
      have_type_ = snapshot_->NextInstanceType(type_);
      types_done_ = !have_type_;
    }
    const db::InstanceType* t =
        have_type_ && type_.cloud == p.cloud && type_.id == p.instance_type ? &type_ : nullptr;
    out += CsvTextCell(p.cloud) + "," + CsvTextCell(p.region) + "," + CsvTextCell(p.zone) + "," +
           CsvTextCell(p.instance_type) + "," + (t ? CsvTextCell(t->gpu_id) : "") + "," +
           (t ? std::to_string(t->gpu_count) : "") + "," +
           (t && t->vcpus ? CsvNumber(*t->vcpus) : "") + "," +
           (t && t->memory_gib ? CsvNumber(*t->memory_gib) : "") + "," + CsvTextCell(p.kind) +
           "," + CsvNumber(p.price_per_hour) + "," + CsvTextCell(p.currency) + "," +
           CsvTextCell(p.observed_at) + "," + CsvTextCell(p.source) + "\n";
  }
}

}  // namespace gpuplan::api
