#include <httplib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/catalog_export_writer.h"
#include "api/catalog_json.h"
#include "api/cursor.h"
#include "api/http_util.h"
#include "api/json_writer.h"
#include "api/query_params.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/cached_catalog.h"
#include "db/catalog_store.h"
#include "db/database.h"
#include "db/field_rules.h"
#include "db/offer_query.h"
#include "db/text.h"
#include "plan/price_quality.h"

namespace gpuplan::api {

namespace {


// Decodes /api/v1/instances parameters into a database filter and a page query.
struct InstancesRequest {
  db::OfferFilter filter;
  db::OfferQuery query;
  std::string cursor_text;
  std::string fingerprint;
  bool csv = false;  // format=csv: every matching offer as CSV, no paging
};

Result<InstancesRequest> DecodeInstancesRequest(const httplib::Request& req) {
  QueryParams q(req.params, {"cloud", "region", "gpu", "min_gpu_count", "max_gpu_count",
                             "min_gpu_memory_gb", "instance_type", "interconnect", "min_vcpus",
                             "min_memory_gib", "max_price_per_hour", "price_kind", "currency",
                             "sort", "order", "limit", "cursor", "format"});
  InstancesRequest r;
  r.csv = q.Choice("format", {"json", "csv"}, "json") == "csv";
  for (const char* paging : {"limit", "cursor"}) {
    if (r.csv && req.has_param(paging)) {
      q.Fail(paging, std::string("format=csv holds every matching offer: no ") + paging);
    }
  }
  r.filter.cloud = q.String("cloud");
  r.filter.region = q.String("region");
  r.filter.gpu = q.String("gpu");
  auto min_count = q.Integer("min_gpu_count", 0, 1 << 20);
  auto max_count = q.Integer("max_gpu_count", 0, 1 << 20);
  if (min_count) r.filter.min_gpu_count = static_cast<int>(*min_count);
  if (max_count) r.filter.max_gpu_count = static_cast<int>(*max_count);
  if (min_count && max_count && *min_count > *max_count) {
    q.Fail("max_gpu_count", "max_gpu_count must not be below min_gpu_count");
  }
  r.filter.min_gpu_memory_gb = q.Number("min_gpu_memory_gb", 0);
  r.filter.instance_type_contains = q.String("instance_type");
  if (r.filter.instance_type_contains.size() > 100) {
    q.Fail("instance_type", "instance_type is at most 100 characters");
  }
  r.filter.interconnect = q.Choice("interconnect", {"none", "pcie", "nvlink", "nvswitch"}, "");
  r.filter.min_vcpus = q.Number("min_vcpus", 0);
  r.filter.min_memory_gib = q.Number("min_memory_gib", 0);
  r.query.max_price_per_hour = q.Number("max_price_per_hour", 0);
  r.query.price_kind = model::ParseEnum(model::kPriceKindNames,
                                       q.Choice("price_kind", {"ondemand", "spot"}, "ondemand"))
      .value_or(model::PriceKind::kOndemand);
  std::string currency = q.String("currency");
  if (!currency.empty()) {
    if (auto why = db::rules::CheckCurrency(currency)) q.Fail("currency", "currency " + *why);
  }
  r.query.currency = currency;
  std::string sort =
      q.Choice("sort", {"price", "price_per_gpu", "gpu_count", "gpu_memory"}, "price");
  r.query.sort = sort == "price_per_gpu" ? db::OfferSort::kPricePerGpu
                 : sort == "gpu_count"   ? db::OfferSort::kGpuCount
                 : sort == "gpu_memory"  ? db::OfferSort::kGpuMemory
                                         : db::OfferSort::kPrice;
  r.query.descending = q.Choice("order", {"asc", "desc"}, "asc") == "desc";
  r.query.limit = static_cast<int>(q.Integer("limit", 1, kMaxListLimit).value_or(kDefaultListLimit));
  r.cursor_text = q.String("cursor");
  if (!q.ok()) return q.error();

  // Everything but limit, cursor and format defines the sequence a cursor walks.
  std::string canonical;
  for (const auto& [name, value] : req.params) {
    if (name == "limit" || name == "cursor" || name == "format") continue;
    canonical += name + "=" + value + "&";
  }
  r.fingerprint = Fingerprint(canonical);
  if (!r.cursor_text.empty()) {
    auto cursor = DecodeCursor(r.cursor_text, r.fingerprint);
    if (!cursor.ok()) return cursor.error();
    r.query.after = *cursor;
  }
  return r;
}

// The listing's items as CSV: one row per offer, the JSON item's scalar fields by name
// (the same values as format=json), text cells through CsvTextCell (never a formula).
constexpr const char* kOfferCsvColumns[] = {
    "cloud", "region", "instance_type", "gpu", "gpu_count", "gpu_memory_gb", "total_gpu_memory_gb",
    "vcpus", "memory_gib", "interconnect", "price_ondemand_per_hour", "price_spot_per_hour",
    "price_per_gpu_hour", "price_spot_per_gpu_hour", "currency", "spot_zone", "price_scope",
    "observed_at", "stale", "source"};

std::string OffersCsv(const std::vector<db::Offer>& offers, std::time_t now) {
  std::string out;
  for (const char* column : kOfferCsvColumns) out += std::string(out.empty() ? "" : ",") + column;
  out += "\r\n";
  for (const db::Offer& offer : offers) {
    AppendOfferCsvRow(out, kOfferCsvColumns, offer, now);
    out += "\r\n";
  }
  return out;
}

void ListInstances(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto request = DecodeInstancesRequest(req);
  if (!request.ok()) return WriteError(req, res, request.error());
  auto lease = ctx.pool->Acquire();
  db::CachedCatalog store(*lease);  // the snapshot's offers and rates: no SQL per listing
  auto rates = store.FxRates();
  if (!rates.ok()) return WriteError(req, res, rates.error());
  const std::string& currency = request->query.currency;
  if (!currency.empty() && !rates->count(currency)) {
    return WriteError(
        req, res, Error::Invalid("currency", "no exchange rate for currency '" + currency + "'"));
  }
  // The snapshot's offers, filtered by pointer: only the page is copied (the dashboard's
  // first view lists 50 of every offer).
  auto all = store.AllOffers();
  if (!all.ok()) return WriteError(req, res, all.error());
  std::vector<const db::Offer*> offers;
  for (const db::Offer& offer : **all) {
    if (db::OfferMatches(offer, request->filter)) offers.push_back(&offer);
  }
  if (request->csv) request->query.limit = std::max<int>(1, static_cast<int>(offers.size()));
  auto page = db::PageOffers(offers, request->query, *rates);
  if (!page.ok()) return WriteError(req, res, page.error());
  const std::time_t now = std::time(nullptr);
  if (request->csv) {
    res.set_header("Content-Disposition", "attachment; filename=\"gpuplan-offers.csv\"");
    res.set_content(OffersCsv(page->items, now), "text/csv; charset=utf-8");
    return;
  }
  JsonWriter out;
  out.BeginObject();
  out.Key("items");
  out.BeginArray();
  for (const db::Offer& offer : page->items) WriteOffer(out, offer, now);
  out.EndArray();
  out.Field("next_cursor", page->next ? std::optional<std::string>(EncodeCursor(
                                            *page->next, request->fingerprint))
                                      : std::nullopt);
  out.Field("total", page->total);
  out.Field("stale_after_days", plan::StalePriceDays());
  out.EndObject();
  WriteJsonText(res, out.Take());
}

void GetInstance(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {});
  if (!q.ok()) return WriteError(req, res, q.error());
  auto lease = ctx.pool->Acquire();
  db::CachedCatalog store(*lease);
  auto found = store.GetInstanceType(req.matches[1], req.matches[2]);
  if (!found.ok()) return WriteError(req, res, found.error());
  auto gpu = store.GetGpu(found->first.gpu_id);
  if (!gpu.ok()) return WriteError(req, res, gpu.error());
  nlohmann::json body = InstanceSpecJson(found->first);
  body["gpu_memory_gb"] = gpu->memory_gb;
  body["total_gpu_memory_gb"] = gpu->memory_gb * found->first.gpu_count;
  body["gpu_spec"] = GpuJson(*gpu);
  body["source"] = found->first.source;
  nlohmann::json regions = nlohmann::json::array();
  const std::time_t now = std::time(nullptr);
  for (const db::Offer& offer : found->second) regions.push_back(RegionalPriceJson(offer, now));
  body["regions"] = std::move(regions);
  body["stale_after_days"] = plan::StalePriceDays();
  WriteJson(res, body);
}

void ListGpus(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {"vendor"});
  std::string vendor = q.String("vendor");
  if (!q.ok()) return WriteError(req, res, q.error());
  auto lease = ctx.pool->Acquire();
  auto gpus = db::CatalogStore(*lease).ListGpus();
  if (!gpus.ok()) return WriteError(req, res, gpus.error());
  nlohmann::json items = nlohmann::json::array();
  for (const auto& gpu : *gpus) {
    if (vendor.empty() || db::AsciiLower(gpu.vendor) == db::AsciiLower(vendor)) {
      items.push_back(GpuJson(gpu));
    }
  }
  WriteJson(res, ListJson(std::move(items)));
}

void GetGpu(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {});
  if (!q.ok()) return WriteError(req, res, q.error());
  auto lease = ctx.pool->Acquire();
  auto gpu = db::CatalogStore(*lease).GetGpu(req.matches[1]);
  if (!gpu.ok()) return WriteError(req, res, gpu.error());
  WriteJson(res, GpuJson(*gpu));
}

void ListClouds(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {});
  if (!q.ok()) return WriteError(req, res, q.error());
  auto lease = ctx.pool->Acquire();
  auto clouds = db::CatalogStore(*lease).ListClouds();
  if (!clouds.ok()) return WriteError(req, res, clouds.error());
  nlohmann::json items = nlohmann::json::array();
  for (const auto& cloud : *clouds) items.push_back(CloudJson(cloud));
  WriteJson(res, ListJson(std::move(items)));
}

void ListRegions(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {"cloud"});
  std::string cloud = q.String("cloud");
  if (!q.ok()) return WriteError(req, res, q.error());
  auto lease = ctx.pool->Acquire();
  auto regions = db::CatalogStore(*lease).ListRegions(cloud);
  if (!regions.ok()) return WriteError(req, res, regions.error());
  nlohmann::json items = nlohmann::json::array();
  for (const auto& region : *regions) items.push_back(RegionJson(region));
  WriteJson(res, ListJson(std::move(items)));
}

}  // namespace

void RegisterCatalogRoutes(RouteTable& routes, const ApiContext& context) {
  routes.Get("/api/v1/gpus", Bind(context, ListGpus));
  routes.Get("/api/v1/gpus/{id}", Bind(context, GetGpu));
  routes.Get("/api/v1/clouds", Bind(context, ListClouds));
  routes.Get("/api/v1/regions", Bind(context, ListRegions));
  routes.Get("/api/v1/instances", Bind(context, ListInstances));
  routes.Get("/api/v1/instances/{cloud}/{instance_type}", Bind(context, GetInstance));
}

}  // namespace gpuplan::api
