// Hardware resolution: what a request's `hardware` names, as the model's cluster and the
// price of one node. A catalog instance (cloud, instance type, region or the cheapest one)
// or an explicit GPU by id or alias ("H100" -> H100-80GB-SXM5 when only that part has a
// catalog price).
//
// One HardwareResolver per request, on one thread, beside the request's Pricing (which it
// quotes with and which must outlive it). Reads the catalog through db::CatalogReader.
//
// Errors: kInvalidArgument naming a hardware field by type (model/result.h: "gpu",
// "instance_type", "region", "price_currency"); kUnavailable
// when the catalog fails.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/catalog_reader.h"
#include "model/hardware.h"
#include "plan/pricing.h"
#include "plan/requests.h"

namespace gpuplan::plan {

struct ResolvedHardware {
  model::Cluster cluster;
  std::optional<db::Offer> offer;  // set for catalog instances
  PriceQuote price;
  std::vector<std::string> assumptions;  // how a GPU name was read ("H100" -> ...)
  std::vector<std::string> warnings;
};

// A GPU as a user named it: its spec, and how an alias was read (empty for an exact id).
struct NamedGpu {
  model::GpuSpec gpu;
  std::string assumption;
};

// The node of a catalog instance type with GPU `gpu`.
model::NodeSpec NodeFromInstance(const db::InstanceType& type, const model::GpuSpec& gpu);

class HardwareResolver {
 public:
  HardwareResolver(db::CatalogReader& catalog, const Pricing& pricing)
      : catalog_(catalog), pricing_(pricing) {}

  // The GPU `name` names: an id (any case); else the only GPU whose id starts with
  // "name-"; else, among several, the only one with a catalog price ("H100" ->
  // H100-80GB-SXM5). Otherwise kInvalidArgument on `field` listing the candidates.
  Result<NamedGpu> FindGpu(const std::string& name, const FieldId& field) const;
  // Without a region, the cheapest region for the price kind asked (spot price when only
  // spot is wanted, else on-demand), named in warnings. A catalog instance without any
  // price resolves with a warning and no price.
  Result<ResolvedHardware> Resolve(const HardwareRequest& hardware,
                                   const PricingRequest& pricing) const;

 private:
  db::CatalogReader& catalog_;
  const Pricing& pricing_;
};

}  // namespace gpuplan::plan
