#include "server/catalog_commands.h"

#include <CLI/CLI.hpp>

#include <ctime>
#include <ostream>

#include <fmt/format.h>

#include "server/cli_errors.h"
#include "api/catalog_json.h"
#include "api/json_writer.h"
#include "api/model_json.h"
#include "db/cached_catalog.h"
#include "model/workload_presets.h"
#include "server/plan_commands.h"

namespace gpuplan::server {

namespace {

std::string Price(const std::optional<double>& v) {
  if (!v) return "-";
  std::string text = fmt::format("{:.4f}", *v);
  return text;
}

}  // namespace

void AddCatalogListOptions(CLI::App& app, CatalogListOptions& o, bool instances) {
  app.add_option("--db", o.db, "catalog: a SQLite file or a postgresql:// URL (default: the embedded seed, in memory)")
      ->envname("GPUPLAN_DB");
  app.add_flag("--json", o.json, "one JSON object per line, as the API lists them");
  if (!instances) return;
  app.add_option("--cloud", o.cloud, "only this cloud (aws, gcp, ...)");
  app.add_option("--region", o.region, "only this region");
  app.add_option("--gpu", o.gpu, "a GPU id or prefix (A100 matches A100-80GB-SXM4)");
  app.add_option("--min-gpu-count", o.min_gpu_count, "at least this many GPUs per instance");
}

int RunListGpus(const CatalogListOptions& o, std::ostream& out, std::ostream& err) {
  auto db = OpenCatalog(o.db);
  if (!db.ok()) return ReportError(db.error(), err);
  db::CachedCatalog catalog(**db);
  auto gpus = catalog.ListGpus();
  if (!gpus.ok()) return ReportError(gpus.error(), err);
  std::string line;
  if (!o.json) {
    line = fmt::format("{:<18} {:<8} {:>8} {:>10} {:>10} {:>10} {:>6}\n", "id", "vendor", "memory",
                       "bandwidth", "bf16", "fp8", "year");
    out << line;
  }
  for (const model::GpuSpec& g : *gpus) {
    if (o.json) {
      out << api::GpuJson(g).dump() << "\n";
      continue;
    }
    line = fmt::format("{:<18} {:<8} {:5.0f} GB {:5.0f} GB/s {:5.0f} TF/s {:5.0f} TF/s {:6}\n",
                       g.id.c_str(), g.vendor.c_str(), g.memory_gb, g.memory_bw_gbps, g.bf16_tflops,
                       g.fp8_tflops, g.release_year);
    out << line;
  }
  return 0;
}

int RunListInstances(const CatalogListOptions& o, std::ostream& out, std::ostream& err) {
  auto db = OpenCatalog(o.db);
  if (!db.ok()) return ReportError(db.error(), err);
  db::CachedCatalog catalog(**db);
  db::OfferFilter filter;
  filter.cloud = o.cloud;
  filter.region = o.region;
  filter.gpu = o.gpu;
  if (o.min_gpu_count > 0) filter.min_gpu_count = o.min_gpu_count;
  auto offers = catalog.ListOffers(filter);
  if (!offers.ok()) return ReportError(offers.error(), err);
  std::string line;
  if (!o.json) {
    line = fmt::format("{:<8} {:<16} {:<28} {:<16} {:>4} {:>12} {:>12} {}\n", "cloud", "region",
                       "instance type", "GPU", "GPUs", "on-demand/h", "spot/h", "currency");
    out << line;
  }
  for (const db::Offer& offer : *offers) {
    if (o.json) {  // one object a line, as the listing writes its items
      api::JsonWriter item;
      api::WriteOffer(item, offer, std::time(nullptr));
      out << item.Take() << "\n";
      continue;
    }
    line = fmt::format("{:<8} {:<16} {:<28} {:<16} {:4} {:>12} {:>12} {}\n",
                       offer.instance.cloud.c_str(), offer.region.c_str(),
                       offer.instance.id.c_str(), offer.instance.gpu_id.c_str(),
                       offer.instance.gpu_count, Price(offer.price_ondemand_per_hour).c_str(),
                       Price(offer.price_spot_per_hour).c_str(), offer.currency.c_str());
    out << line;
  }
  if (!o.json) out << offers->size() << " offer(s)\n";
  return 0;
}

int RunListWorkloads(const CatalogListOptions& o, std::ostream& out, std::ostream&) {
  std::string line;
  if (!o.json) {
    line = fmt::format("{:<20} {:<10} {:>12}  {}\n", "id", "family", "parameters", "name");
    out << line;
  }
  for (const model::Workload& w : model::WorkloadPresets()) {
    if (o.json) {
      out << api::WorkloadJson(w) << "\n";
      continue;
    }
    line = fmt::format("{:<20} {:<10} {:12.4g}  {}\n", w.id.c_str(),
                       std::string(model::FamilyName(w.family)).c_str(), model::ParamsTotal(w),
                       w.name.c_str());
    out << line;
  }
  return 0;
}

}  // namespace gpuplan::server
