#include "plan/pricing.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "db/text.h"
#include "db/field_rules.h"
#include "db/offer_query.h"

namespace gpuplan::plan {

double RoundMoney(double amount) { return std::round(amount * 1e6) / 1e6; }

Status Pricing::UseCurrency(const std::string& currency) {
  auto rates = catalog_.FxRates();
  if (!rates.ok()) return rates.error();
  rates_ = std::move(rates).value();
  if (!rates_.count(currency)) {
    return Error::Invalid({Part::kInput, "currency"},
                          "no exchange rate for currency '" + currency + "'");
  }
  currency_ = currency;
  return OkStatus();
}

Result<double> Pricing::Convert(double amount, const std::string& from) const {
  auto v = db::ConvertCurrency(amount, from, currency_, rates_);
  if (!v.ok()) return Error::Invalid({Part::kInput, "currency"}, v.error().message);
  return *v;
}

std::optional<double> Pricing::InUsd(double amount, const std::string& from) const {
  auto v = db::ConvertCurrency(amount, from, "USD", rates_);
  if (!v.ok()) return std::nullopt;
  return *v;
}

Result<std::map<std::string, Pricing::GpuHourPrice>> Pricing::CheapestPerGpuHour(
    const std::vector<db::Offer>& offers, model::PriceKind kind,
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

void Pricing::NoteFxRate(PriceQuote& q) const {
  if (q.native_currency == q.currency) return;
  auto from = rates_.find(q.native_currency), to = rates_.find(q.currency);
  if (from == rates_.end() || to == rates_.end()) return;
  q.fx_rate = to->second.units_per_usd / from->second.units_per_usd;
  q.fx_as_of = std::min(from->second.as_of, to->second.as_of);
}

Result<PriceQuote> Pricing::QuotePrices(const db::Offer& offer) const {
  PriceQuote q;
  q.currency = currency_;
  for (auto [from, to] : {std::pair{&offer.price_ondemand_per_hour, &q.ondemand},
                          std::pair{&offer.price_spot_per_hour, &q.spot}}) {
    if (!*from) continue;
    auto v = Convert(**from, offer.currency);
    if (!v.ok()) return v.error();
    *to = *v;
  }
  return q;
}

Result<PriceQuote> Pricing::Quote(const db::Offer& offer) const {
  auto quoted = QuotePrices(offer);
  if (!quoted.ok()) return quoted;
  PriceQuote& q = *quoted;
  q.native_currency = offer.currency;
  q.spot_zone = offer.spot_zone;
  q.observed_at = offer.observed_at;
  q.source = offer.source;
  NoteFxRate(q);
  return quoted;
}

Result<PriceQuote> Pricing::QuoteGiven(std::optional<double> ondemand, std::optional<double> spot,
                                       const std::string& native, const FieldId& field) const {
  PriceQuote q;
  q.currency = currency_;
  q.native_currency = native;
  q.source = "request";
  for (auto [from, to] : {std::pair{&ondemand, &q.ondemand}, std::pair{&spot, &q.spot}}) {
    if (!*from) continue;
    auto v = db::ConvertCurrency(**from, native, currency_, rates_);
    if (!v.ok()) return Error::Invalid(field, "no exchange rate for '" + native + "'");
    *to = *v;
  }
  NoteFxRate(q);
  return q;
}

std::string SpotPricingBasis(const SpotPricing& p) {
  if (!p.from_history) return "the current spot price";
  return "the mean spot price of the cheapest zone over " + std::to_string(p.observations) +
         " observation times from " + db::FormatUtc(p.window_start) + " to " +
         db::FormatUtc(p.window_end) + " (the last " + std::to_string(kSpotHistoryWindowDays) +
         " days of the catalog's history; each zone's price holds until it changes)";
}

Result<SpotPricing> Pricing::SpotPricingFor(const db::Offer* offer, double current) const {
  SpotPricing out;
  out.price_per_hour = out.p10_per_hour = out.p90_per_hour = current;
  // Fewer than 3 observation times in all of the region's history: fewer in the window too,
  // a snapshot (below), so the history is not read (most offers: one catalog import).
  if (!offer || !MayHaveSpotHistory(*offer)) return out;
  auto latest = db::rules::ParseTimestamp(offer->observed_at);
  if (!latest) return out;
  const std::time_t window = kSpotHistoryWindowDays * 24 * 3600;
  db::SpotQuery query;
  query.cloud = offer->instance.cloud;
  query.instance_type = offer->instance.id;
  query.region = offer->region;
  query.limit = 10000;
  // The window's start as a date (a day early): the query compares text.
  query.since = db::FormatUtc(*latest - window - 24 * 3600, "%Y-%m-%d");
  auto rows = catalog_.SharedSpotHistory(query);
  if (!rows.ok()) return rows.error();
  // Each zone's price holds until it changes: at every time any zone changed, the
  // cheapest zone's price then (zones report changes at their own times). The rows (and
  // so the zone names viewed here) stay alive while `rows` holds them.
  struct Change {
    std::time_t t;
    std::string_view zone;
    double price;
  };
  std::vector<Change> changes;
  changes.reserve((*rows)->size());
  for (const auto& p : **rows) {
    auto t = db::rules::ParseTimestamp(p.observed_at);
    if (!t) continue;
    auto v = Convert(p.price_per_hour, p.currency);
    if (!v.ok()) return v.error();
    changes.push_back({*t, p.zone, *v});
  }
  // By time; the updates of one time in the rows' order.
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.t < b.t; });
  size_t times = 0;
  for (size_t i = 0; i < changes.size(); ++i) times += i == 0 || changes[i].t != changes[i - 1].t;
  if (times < kMinSpotHistoryTimes) return out;  // a snapshot, not a history
  const std::time_t last = changes.back().t;
  std::vector<std::pair<std::string_view, double>> zone_price;  // a few zones: a flat list
  std::vector<double> prices;
  std::time_t first = 0;
  for (size_t i = 0; i < changes.size();) {
    const std::time_t t = changes[i].t;
    for (; i < changes.size() && changes[i].t == t; ++i) {
      auto known = std::find_if(zone_price.begin(), zone_price.end(),
                                [&](const auto& z) { return z.first == changes[i].zone; });
      if (known == zone_price.end()) {
        zone_price.emplace_back(changes[i].zone, changes[i].price);
      } else {
        known->second = changes[i].price;
      }
    }
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
  out.from_history = true;
  out.price_per_hour = sum / prices.size();
  out.p10_per_hour = quantile(0.1);
  out.p90_per_hour = quantile(0.9);
  out.observations = prices.size();
  out.window_start = first;
  out.window_end = last;
  return out;
}

Result<std::optional<SpotHistorySummary>> Pricing::SpotHistory(const db::Offer& offer) const {
  db::SpotQuery query;
  query.cloud = offer.instance.cloud;
  query.instance_type = offer.instance.id;
  query.region = offer.region;
  query.limit = 10000;
  auto shared = catalog_.SharedSpotHistory(query);
  if (!shared.ok()) return shared.error();
  const std::vector<db::PriceObservation>* rows = shared->get();
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

}  // namespace gpuplan::plan
