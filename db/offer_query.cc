#include "db/offer_query.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <tuple>

#include "db/text.h"

namespace gpuplan::db {

const std::optional<double>& PriceOf(const Offer& offer, model::PriceKind kind) {
  return model::StartsOnSpot(kind) ? offer.price_spot_per_hour : offer.price_ondemand_per_hour;
}

std::optional<double> PricePerGpuHour(const Offer& offer, model::PriceKind kind) {
  const auto& price = PriceOf(offer, kind);
  if (!price || offer.instance.gpu_count < 1) return std::nullopt;
  return *price / offer.instance.gpu_count;
}

std::string AwsRegionOfZone(const std::string& zone) {
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  // Split on '-': parts must be [a-z]{2} [gov]? [a-z]+ \d+ ([a-z]+ \d+)? with a final [a-z].
  if (zone.size() < 4 || !lower(zone.back())) return "";
  std::string body = zone.substr(0, zone.size() - 1);
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dash = body.find('-', start);
    parts.push_back(body.substr(start, dash == std::string::npos ? std::string::npos : dash - start));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  auto all = [](const std::string& s, auto pred) {
    return !s.empty() && std::all_of(s.begin(), s.end(), pred);
  };
  size_t i = 0;
  if (parts.size() < 3 || parts[0].size() != 2 || !all(parts[0], lower)) return "";
  i = 1;
  if (parts[i] == "gov") ++i;
  if (i + 1 >= parts.size() || !all(parts[i], lower) || !all(parts[i + 1], digit)) return "";
  size_t region_end = i + 2;
  if (parts.size() == region_end + 2) {
    if (!all(parts[region_end], lower) || !all(parts[region_end + 1], digit)) return "";
  } else if (parts.size() != region_end) {
    return "";
  }
  std::string region = parts[0];
  for (size_t k = 1; k < region_end; ++k) region += "-" + parts[k];
  return region;
}

bool OfferMatches(const Offer& o, const OfferFilter& f) {
  const InstanceType& t = o.instance;
  if (!f.cloud.empty() && t.cloud != f.cloud) return false;
  if (!f.region.empty() && o.region != f.region) return false;
  if (!f.instance_type.empty() && t.id != f.instance_type) return false;
  if (!f.gpu.empty() && !GpuIdMatches(t.gpu_id, f.gpu)) return false;
  if (f.min_gpu_count && t.gpu_count < *f.min_gpu_count) return false;
  if (f.max_gpu_count && t.gpu_count > *f.max_gpu_count) return false;
  if (f.min_gpu_memory_gb && o.gpu_memory_gb < *f.min_gpu_memory_gb) return false;
  if (!f.interconnect.empty() && t.interconnect != f.interconnect) return false;
  if (f.min_vcpus && !(t.vcpus && *t.vcpus >= *f.min_vcpus)) return false;
  if (f.min_memory_gib && !(t.memory_gib && *t.memory_gib >= *f.min_memory_gib)) return false;
  if (!f.instance_type_contains.empty()) {
    const std::string& id = t.id;
    const std::string& part = f.instance_type_contains;
    auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    auto at = std::search(id.begin(), id.end(), part.begin(), part.end(),
                          [&](char a, char b) { return lower(a) == lower(b); });
    if (at == id.end()) return false;
  }
  return true;
}

std::string AwsZoneKind(const std::string& zone) {
  if (zone.empty()) return "";
  // Ids: letters and a digit, "-az", digits (use1-az1, apne1-az4).
  size_t az = zone.find("-az");
  if (az != std::string::npos && az + 3 < zone.size() &&
      std::all_of(zone.begin() + az + 3, zone.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return "id";
  }
  return AwsRegionOfZone(zone).empty() ? "" : "name";
}

bool SpotAboveOndemand(const Offer& offer) {
  return offer.price_ondemand_per_hour && offer.price_spot_per_hour &&
         *offer.price_spot_per_hour > *offer.price_ondemand_per_hour;
}

namespace {

struct Ranked {
  const Offer* offer;  // into the caller's offers
  std::optional<double> sort_value;  // in the comparison currency for price sorts
};

// True when `a` comes before `b` in the listing order.
bool Before(const std::optional<double>& a_value, const std::string& a_cloud,
            const std::string& a_region, const std::string& a_type,
            const std::optional<double>& b_value, const std::string& b_cloud,
            const std::string& b_region, const std::string& b_type, bool descending) {
  if (a_value.has_value() != b_value.has_value()) return a_value.has_value();  // nulls last
  if (a_value && *a_value != *b_value) return descending ? *a_value > *b_value : *a_value < *b_value;
  return std::tie(a_cloud, a_region, a_type) < std::tie(b_cloud, b_region, b_type);
}

Result<std::optional<double>> Converted(const std::optional<double>& price, const Offer& offer,
                                        const std::string& to,
                                        const std::map<std::string, FxRate>& rates) {
  if (!price) return std::optional<double>();
  auto value = ConvertCurrency(*price, offer.currency, to, rates);
  if (!value.ok()) return value.error();
  return std::optional<double>(*value);
}

}  // namespace

Result<double> ConvertCurrency(double amount, const std::string& from, const std::string& to,
                               const std::map<std::string, FxRate>& rates) {
  if (from == to) return amount;
  auto f = rates.find(from);
  auto t = rates.find(to);
  if (f == rates.end()) return Error::Invalid("currency", "no exchange rate for " + from);
  if (t == rates.end()) return Error::Invalid("currency", "no exchange rate for " + to);
  return amount / f->second.units_per_usd * t->second.units_per_usd;
}

Result<OfferPage> PageOffers(const std::vector<const Offer*>& offers, const OfferQuery& query,
                             const std::map<std::string, FxRate>& rates) {
  const std::string compare_currency = query.currency.empty() ? "USD" : query.currency;
  // Offers are ranked by pointer and only the page is sorted (a catalog at its caps holds
  // 100 000 offers; sorting them whole, moved by value, cost seconds).
  std::vector<Ranked> ranked;
  ranked.reserve(offers.size());
  for (const Offer* listed : offers) {
    const Offer& offer = *listed;
    const std::optional<double>& chosen = PriceOf(offer, query.price_kind);
    auto price = Converted(chosen, offer, compare_currency, rates);
    if (!price.ok()) return price.error();
    if (query.max_price_per_hour && (!*price || **price > *query.max_price_per_hour)) continue;
    std::optional<double> sort_value;
    switch (query.sort) {
      case OfferSort::kPrice: sort_value = *price; break;
      case OfferSort::kPricePerGpu:
        if (*price && offer.instance.gpu_count > 0) sort_value = **price / offer.instance.gpu_count;
        break;
      case OfferSort::kGpuCount: sort_value = offer.instance.gpu_count; break;
      case OfferSort::kGpuMemory: sort_value = offer.gpu_memory_gb; break;
    }
    ranked.push_back({&offer, sort_value});
  }
  auto before = [&](const std::optional<double>& value, const std::string& cloud,
                    const std::string& region, const std::string& type, const Ranked& r) {
    return Before(value, cloud, region, type, r.sort_value, r.offer->instance.cloud,
                  r.offer->region, r.offer->instance.id, query.descending);
  };
  OfferPage page;
  page.total = static_cast<int>(ranked.size());
  if (query.after) {
    const OfferCursor& c = *query.after;
    std::erase_if(ranked, [&](const Ranked& r) {
      return !before(c.sort_value, c.cloud, c.region, c.instance_type, r);
    });
  }
  auto less = [&](const Ranked& a, const Ranked& b) {
    return before(a.sort_value, a.offer->instance.cloud, a.offer->region, a.offer->instance.id, b);
  };
  auto end = ranked.begin() + std::min<std::ptrdiff_t>(query.limit, std::ssize(ranked));
  std::partial_sort(ranked.begin(), end, ranked.end(), less);
  if (end != ranked.end() && end != ranked.begin()) {
    const Ranked& last = *(end - 1);
    page.next = OfferCursor{last.sort_value, last.offer->instance.cloud, last.offer->region,
                            last.offer->instance.id};
  }
  for (auto it = ranked.begin(); it != end; ++it) {
    Offer offer = *it->offer;  // the page's copy
    if (!query.currency.empty() && query.currency != offer.currency) {
      auto od = Converted(offer.price_ondemand_per_hour, offer, query.currency, rates);
      auto sp = Converted(offer.price_spot_per_hour, offer, query.currency, rates);
      if (!od.ok()) return od.error();
      if (!sp.ok()) return sp.error();
      offer.price_ondemand_per_hour = *od;
      offer.price_spot_per_hour = *sp;
      offer.currency = query.currency;
    }
    page.items.push_back(std::move(offer));
  }
  return page;
}

}  // namespace gpuplan::db
