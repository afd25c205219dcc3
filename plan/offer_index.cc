// Dense ids over the catalog's offers (plan/offer_index.h).
#include "plan/offer_index.h"

#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "plan/pricing.h"

namespace gpuplan::plan {

namespace {

using TypeKey = std::pair<std::string_view, std::string_view>;  // (cloud, id)
struct TypeKeyHash {
  size_t operator()(const TypeKey& t) const {
    return std::hash<std::string_view>()(t.first) * 31 + std::hash<std::string_view>()(t.second);
  }
};

// What the model reads of an instance type (OfferIndex::HardwareOf). Its text is the
// offers' (no copy): it lives no longer than the index's construction.
using HardwareKey = std::tuple<std::string_view, int, std::string_view, double, double, double>;
struct HardwareKeyHash {
  size_t operator()(const HardwareKey& k) const {
    size_t h = std::hash<std::string_view>()(std::get<0>(k));
    auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    mix(std::hash<int>()(std::get<1>(k)));
    mix(std::hash<std::string_view>()(std::get<2>(k)));
    mix(std::hash<double>()(std::get<3>(k)));
    mix(std::hash<double>()(std::get<4>(k)));
    mix(std::hash<double>()(std::get<5>(k)));
    return h;
  }
};
HardwareKey KeyOf(const db::InstanceType& t, bool network, bool vcpus) {
  return {t.gpu_id,
          t.gpu_count,
          t.interconnect,
          t.interconnect_bw_gbps,
          network ? t.network_gbps.value_or(0) : 0,
          vcpus ? t.vcpus.value_or(0) : 0};
}

// Whether `offer`'s options may repeat another offer's (OfferIndex::RepeatGroupOf).
bool MayRepeat(const db::Offer& offer) {
  return offer.price_scope == "cloud" && !MayHaveSpotHistory(offer);
}

// Whether two offers of one instance type (both MayRepeat) have the same options.
bool SameOptions(const db::Offer& a, const db::Offer& b) {
  return a.price_ondemand_per_hour == b.price_ondemand_per_hour &&
         a.price_spot_per_hour == b.price_spot_per_hour && a.currency == b.currency &&
         a.ondemand_observed_at == b.ondemand_observed_at &&
         a.spot_observed_at == b.spot_observed_at && a.observed_at == b.observed_at &&
         a.source == b.source &&
         a.spot_band == b.spot_band;  // the band sets a spot option's interruption risk
}

}  // namespace

OfferIndex::OfferIndex(const std::shared_ptr<const std::vector<db::Offer>>& offers)
    : offers_(offers), first_(offers->data()) {
  const std::vector<db::Offer>& all = *offers;
  type_of_.resize(all.size());
  group_of_.resize(all.size());
  // Per instance type: its id, and the first offer of each of its repeat groups.
  struct Type {
    uint32_t id;
    std::vector<size_t> group_firsts;
  };
  std::unordered_map<TypeKey, Type, TypeKeyHash> types;
  std::unordered_map<HardwareKey, uint32_t, HardwareKeyHash> hardware;
  for (size_t i = 0; i < all.size(); ++i) {
    const db::Offer& o = all[i];
    auto [it, added] =
        types.try_emplace(TypeKey(o.instance.cloud, o.instance.id), Type{types_, {}});
    if (added) {
      ++types_;
      std::array<uint32_t, 4>& ids = hardware_of_.emplace_back();
      for (int variant = 0; variant < 4; ++variant) {  // as Variant numbers them
        const bool image = variant >= 2, several = variant % 2 == 1;
        auto [h, new_key] = hardware.try_emplace(KeyOf(o.instance, several, image), hardware_);
        if (new_key) ++hardware_;
        ids[variant] = h->second;
      }
    }
    type_of_[i] = it->second.id;
    group_of_[i] = groups_;
    if (MayRepeat(o)) {
      for (size_t j : it->second.group_firsts) {
        if (SameOptions(all[j], o)) {
          group_of_[i] = group_of_[j];
          break;
        }
      }
      if (group_of_[i] == groups_) it->second.group_firsts.push_back(i);
    }
    if (group_of_[i] == groups_) ++groups_;
  }
}

Result<std::shared_ptr<const OfferIndex>> IndexOfOffers(
    db::CatalogReader& catalog, const std::shared_ptr<const std::vector<db::Offer>>& offers) {
  auto index = catalog.Derived<OfferIndex>(
      [&](std::shared_ptr<const OfferIndex> kept) -> Result<std::shared_ptr<const OfferIndex>> {
        if (kept && kept->Indexes(offers)) return kept;
        return std::make_shared<const OfferIndex>(offers);
      });
  if (!index.ok()) return index.error();
  // Another request may have handed over an index of another generation's offers (kept
  // while it updates): this request's own, then.
  if (!(*index)->Indexes(offers)) return std::make_shared<const OfferIndex>(offers);
  return *index;
}

}  // namespace gpuplan::plan
