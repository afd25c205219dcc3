// URL query parameters: the query text is split and percent-decoded by cpp-httplib's own
// parser (httplib::detail::parse_query_text, what the server does with the request
// target), then read the way the GET routes read it:
//  - generic api::QueryParams String/Integer/Number/Choice/Fail/error calls;
//  - /api/v1/instances (mirrors DecodeInstancesRequest + ListInstances in
//    api/catalog_routes.cc: filters, sort, cursor with its fingerprint, the seeded
//    catalog's offers paged by db::PageOffers, OfferJson and the next cursor);
//  - /api/v1/prices/spot-history (api::ReadSpotHistoryQuery, the route's own reader:
//    filters and cursor, then the store's SpotHistory query).
// The first input byte selects whether the rest is parsed by httplib (even) or split raw
// on '&' and '=' without decoding (odd), so names and values may hold any byte.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "api/catalog_json.h"
#include "api/catalog_requests.h"
#include "api/cursor.h"
#include "api/query_params.h"
#include "db/field_rules.h"
#include "db/offer_query.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

using Params = std::multimap<std::string, std::string>;

Params RawSplit(const std::string& text) {
  Params params;
  size_t start = 0;
  while (start <= text.size()) {
    size_t amp = text.find('&', start);
    std::string pair = text.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
    size_t eq = pair.find('=');
    if (!pair.empty()) {
      params.emplace(pair.substr(0, eq), eq == std::string::npos ? "" : pair.substr(eq + 1));
    }
    if (amp == std::string::npos) break;
    start = amp + 1;
  }
  return params;
}

void Finish(api::QueryParams& q) {
  if (!q.ok()) CheckError(q.error());
}

void Generic(const Params& params) {
  api::QueryParams q(params, {"name", "limit", "min", "ratio", "kind", "cursor", "cloud"});
  std::string name = q.String("name", "fallback");
  Require(!name.empty(), "QueryParams::String returned an empty value");
  if (auto v = q.Integer("limit", 1, 500)) Require(*v >= 1 && *v <= 500, "Integer out of range");
  if (auto v = q.Integer("min", -(1LL << 62), 1LL << 62)) (void)v;
  if (auto v = q.Number("ratio", 0.5)) Require(std::isfinite(*v) && *v >= 0.5, "Number out of range");
  std::string kind = q.Choice("kind", {"ondemand", "spot"}, "ondemand");
  Require(kind == "ondemand" || kind == "spot", "Choice returned a value not among the choices");
  if (q.String("cloud") == "fail") q.Fail("cloud", "refused by the caller");
  Finish(q);
}

// GET /api/v1/instances
void Instances(const Params& params) {
  api::QueryParams q(params, {"cloud", "region", "gpu", "min_gpu_count", "max_gpu_count",
                              "min_gpu_memory_gb", "max_price_per_hour", "price_kind", "currency",
                              "sort", "order", "limit", "cursor"});
  db::OfferFilter filter;
  db::OfferQuery query;
  filter.cloud = q.String("cloud");
  filter.region = q.String("region");
  filter.gpu = q.String("gpu");
  auto min_count = q.Integer("min_gpu_count", 0, 1 << 20);
  auto max_count = q.Integer("max_gpu_count", 0, 1 << 20);
  if (min_count) filter.min_gpu_count = static_cast<int>(*min_count);
  if (max_count) filter.max_gpu_count = static_cast<int>(*max_count);
  if (min_count && max_count && *min_count > *max_count) {
    q.Fail("max_gpu_count", "max_gpu_count must not be below min_gpu_count");
  }
  filter.min_gpu_memory_gb = q.Number("min_gpu_memory_gb", 0);
  query.max_price_per_hour = q.Number("max_price_per_hour", 0);
  query.price_kind = model::ParseEnum(model::kPriceKindNames,
                                     q.Choice("price_kind", {"ondemand", "spot"}, "ondemand"))
      .value_or(model::PriceKind::kOndemand);
  std::string currency = q.String("currency");
  if (!currency.empty()) {
    if (auto why = db::rules::CheckCurrency(currency)) q.Fail("currency", "currency " + *why);
  }
  query.currency = currency;
  std::string sort = q.Choice("sort", {"price", "price_per_gpu", "gpu_count", "gpu_memory"}, "price");
  query.sort = sort == "price_per_gpu" ? db::OfferSort::kPricePerGpu
               : sort == "gpu_count"   ? db::OfferSort::kGpuCount
               : sort == "gpu_memory"  ? db::OfferSort::kGpuMemory
                                       : db::OfferSort::kPrice;
  query.descending = q.Choice("order", {"asc", "desc"}, "asc") == "desc";
  query.limit = static_cast<int>(q.Integer("limit", 1, 500).value_or(50));
  std::string cursor_text = q.String("cursor");
  if (!q.ok()) return Finish(q);
  std::string canonical;
  for (const auto& [name, value] : params) {
    if (name != "limit" && name != "cursor") canonical += name + "=" + value + "&";
  }
  std::string fingerprint = api::Fingerprint(canonical);
  if (!cursor_text.empty()) {
    auto cursor = api::DecodeCursor(cursor_text, fingerprint);
    if (!cursor.ok()) return CheckError(cursor.error());
    query.after = *cursor;
  }
  db::CatalogStore& store = SeededStore();
  auto rates = store.FxRates();
  Require(rates.ok(), "FxRates failed on the in-memory catalog");
  if (!query.currency.empty() && !rates->count(query.currency)) return;
  auto offers = store.ListOffers(filter);
  if (!offers.ok()) return CheckError(offers.error());
  std::vector<const db::Offer*> listed;
  for (const db::Offer& offer : *offers) listed.push_back(&offer);
  auto page = db::PageOffers(listed, query, *rates);
  if (!page.ok()) return CheckError(page.error());
  Require(static_cast<int>(page->items.size()) <= query.limit, "PageOffers returned more than limit");
  nlohmann::json items = nlohmann::json::array();
  for (const db::Offer& offer : page->items) items.push_back(api::OfferJson(offer, 0));
  nlohmann::json answer = {{"items", std::move(items)}, {"total", page->total}};
  if (page->next) {
    std::string next = api::EncodeCursor(*page->next, fingerprint);
    auto back = api::DecodeCursor(next, fingerprint);
    Require(back.ok(), "a next cursor does not decode", next);
    answer["next_cursor"] = next;
  }
  CheckEncodes(answer);
}

// GET /api/v1/prices/spot-history
void SpotHistory(const Params& params) {
  api::QueryParams q(params, {"cloud", "instance_type", "region", "zone", "since", "until", "limit", "cursor"});
  auto read = api::ReadSpotHistoryQuery(q);
  if (!read.ok()) return CheckError(read.error());
  db::CatalogStore::SpotQuery& query = read->query;
  ++query.limit;
  auto rows = SeededStore().SpotHistory(query);
  if (!rows.ok()) return CheckError(rows.error());
  Require(static_cast<int>(rows->size()) <= query.limit, "SpotHistory returned more than limit");
}

}  // namespace
}  // namespace gpuplan::fuzz

GPUPLAN_FUZZ_SEED_STORE_FIRST()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan::fuzz;
  if (size == 0) return 0;
  std::string text = Text(data + 1, size - 1);
  Params params;
  if (data[0] % 2 == 0) {
    httplib::detail::parse_query_text(text, params);
  } else {
    params = RawSplit(text);
  }
  Generic(params);
  Instances(params);
  SpotHistory(params);
  return 0;
}
