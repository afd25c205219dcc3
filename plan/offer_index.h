// Dense integer ids over the catalog's offers (CatalogReader::AllOffers), so that a
// recommendation walk groups its offers by array lookups instead of hashing and comparing
// their text: a walk over the seeded catalog meets 3 748 offers of 456 instance types, and
// reading each offer's strings again costs more than the grouping itself (docs/benchmarks.md,
// issue 26). Three groupings: by instance type, by the hardware the model sees (offers that
// get equal estimates) and by the options that repeat another offer's. Built once per catalog
// generation and kept by the reader (CatalogReader::Derived); immutable once built, safe to read
// from any thread.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "db/catalog_reader.h"
#include "model/result.h"

namespace gpuplan::plan {

// What a walk's model reads of an instance type: the network between nodes when there are
// several (training), the vCPUs (the input pipeline) of image training; serving reads neither.
enum class KeyFor { kTraining, kImageTraining, kServing };

class OfferIndex {
 public:
  // The ids of `offers` (one AllOffers list; the index does not keep it alive).
  explicit OfferIndex(const std::shared_ptr<const std::vector<db::Offer>>& offers);

  // Whether this index was built from `offers` (the same list, not an equal one).
  bool Indexes(const std::shared_ptr<const std::vector<db::Offer>>& offers) const {
    return offers_.lock() == offers;
  }

  // The id, in [0, types()), of the instance type (cloud, id) of `offer`, which must point
  // into the list this index was built from: offers of one type share it. The catalog holds
  // one InstanceType per (cloud, id) (its key), so a walk may read any of them for all.
  uint32_t TypeOf(const db::Offer& offer) const { return type_of_[Position(offer)]; }
  uint32_t types() const { return types_; }

  // The id, in [0, hardware()), of what the model reads of instance type `type` (TypeOf) for
  // `use` on one node (`several_nodes` false) or on several: the GPU, its count per node,
  // the interconnect and its bandwidth, and as `use` reads them the network and the vCPUs.
  // Offers whose types share it get equal estimates on equal node counts, whatever their
  // cloud, region or price (a p4d.24xlarge in six regions is estimated once; an 8 x A100
  // node of any cloud, on one node, once).
  uint32_t HardwareOf(uint32_t type, KeyFor use, bool several_nodes) const {
    return hardware_of_[type][Variant(use, several_nodes)];
  }
  uint32_t hardware() const { return hardware_; }

  // The id, in [0, repeat_groups()), of the offers whose options repeat each other's:
  // offers of one instance type of a cloud that lists one price in every region (price_scope
  // "cloud": Lambda, OCI) with the same prices, observation times, currency, source and spot
  // interruption band, and without spot history (under 3 observation times), differ only by
  // region, so a walk estimates and costs one of them for all. Every other offer has a group
  // of its own.
  uint32_t RepeatGroupOf(const db::Offer& offer) const { return group_of_[Position(offer)]; }
  uint32_t repeat_groups() const { return groups_; }

 private:
  size_t Position(const db::Offer& offer) const {
    assert(!std::less<const db::Offer*>()(&offer, first_) &&
           std::less<const db::Offer*>()(&offer, first_ + type_of_.size()));
    return &offer - first_;
  }
  // Serving reads what training on one node reads.
  static int Variant(KeyFor use, bool several_nodes) {
    if (use == KeyFor::kServing) return 0;
    return (use == KeyFor::kImageTraining ? 2 : 0) + (several_nodes ? 1 : 0);
  }

  std::weak_ptr<const std::vector<db::Offer>> offers_;
  const db::Offer* first_ = nullptr;
  std::vector<uint32_t> type_of_, group_of_;
  std::vector<std::array<uint32_t, 4>> hardware_of_;  // by type, by Variant
  uint32_t types_ = 0, groups_ = 0, hardware_ = 0;
};

// The index of `offers` (what `catalog.AllOffers()` answered): the one `catalog` keeps
// (CatalogReader::Derived) when it indexes these offers; else one built now, which the
// catalog keeps in place of its own when this request may update it (Derived's update).
// An index of other offers (another request still updating, or another generation's, or a
// reader whose every AllOffers is a new list) is never answered. Errors: the catalog's.
Result<std::shared_ptr<const OfferIndex>> IndexOfOffers(
    db::CatalogReader& catalog, const std::shared_ptr<const std::vector<db::Offer>>& offers);

}  // namespace gpuplan::plan
