// How a GPU-hour is bought: the one encoding of "price kind" from the model to the JSON
// answers (db/ offer prices, plan/ options and comparisons, api/ fields and exports all use
// it). Pure values; thread-safe.
#pragma once

#include <initializer_list>
#include <string_view>

#include "model/enum_names.h"

namespace gpuplan::model {

enum class PriceKind {
  kOndemand,          // the on-demand price: never reclaimed
  kSpot,              // the spot price: reclaimable, interruptions cost time
  kSpotWithFallback,  // spot, moving to on-demand in time for a deadline (training only)
};

// The names requests and answers use ("ondemand", "spot", "spot_with_fallback").
inline constexpr EnumNames<PriceKind, 3> kPriceKindNames = {{
    {"ondemand", PriceKind::kOndemand},
    {"spot", PriceKind::kSpot},
    {"spot_with_fallback", PriceKind::kSpotWithFallback},
}};

inline std::string_view PriceKindName(PriceKind kind) { return EnumName(kPriceKindNames, kind); }

// Whether an option of `kind` starts on the spot price (and may be interrupted).
inline bool StartsOnSpot(PriceKind kind) { return kind != PriceKind::kOndemand; }

// The price kinds a request asks for (a set of PriceKind). Value type.
class PriceKindSet {
 public:
  constexpr PriceKindSet() = default;
  constexpr PriceKindSet(std::initializer_list<PriceKind> kinds) {
    for (PriceKind k : kinds) Add(k);
  }
  constexpr bool Has(PriceKind k) const { return bits_ & Bit(k); }
  constexpr void Add(PriceKind k) { bits_ |= Bit(k); }
  constexpr void Remove(PriceKind k) { bits_ &= ~Bit(k); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool operator==(const PriceKindSet&) const = default;

 private:
  static constexpr unsigned Bit(PriceKind k) { return 1u << static_cast<unsigned>(k); }
  unsigned bits_ = 0;
};

}  // namespace gpuplan::model
