#include "plan/hardware.h"

#include <limits>
#include <set>

#include "db/offer_query.h"
#include "db/text.h"

namespace gpuplan::plan {

using model::PriceKind;

model::NodeSpec NodeFromInstance(const db::InstanceType& type, const model::GpuSpec& gpu) {
  model::NodeSpec node;
  node.gpu = gpu;
  node.gpus_per_node = type.gpu_count;
  node.interconnect = model::ParseInterconnect(type.interconnect)
                          .value_or(model::DefaultInterconnect(gpu, type.gpu_count));
  if (type.gpu_count > 1 && node.interconnect == model::Interconnect::kNone) {
    node.interconnect = model::Interconnect::kPcie;
  }
  node.interconnect_bw_gbps = type.interconnect_bw_gbps;
  node.network_gbps = type.network_gbps.value_or(0);
  node.vcpus = type.vcpus.value_or(0);
  node.nvlink_domain_gpus = model::DefaultNvlinkDomain(node);
  return node;
}

Result<NamedGpu> HardwareResolver::FindGpu(const std::string& name, const FieldId& field) const {
  auto exact = catalog_.GetGpu(name);
  if (exact.ok()) return NamedGpu{*exact, ""};
  if (exact.error().code != ErrorCode::kNotFound) return exact.error();
  auto gpus = catalog_.ListGpus();
  if (!gpus.ok()) return gpus.error();
  std::vector<const model::GpuSpec*> matches;
  for (const model::GpuSpec& g : *gpus) {
    if (db::GpuIdMatches(g.id, name)) matches.push_back(&g);
  }
  const std::string shown = db::Printable(name, 60);
  if (matches.empty()) {
    return Error::Invalid(field, "unknown GPU '" + shown + "' (see GET /api/v1/gpus or `gpuplan gpus`)");
  }
  if (matches.size() == 1) {
    return NamedGpu{*matches[0], "GPU '" + shown + "' read as " + matches[0]->id +
                                     ", the only GPU whose id starts with it"};
  }
  // Several parts share the name: the one that can be rented, if only one can.
  auto offers = catalog_.AllOffers();
  if (!offers.ok()) return offers.error();
  std::set<std::string> priced;
  for (const db::Offer& o : **offers) {
    if (o.price_ondemand_per_hour || o.price_spot_per_hour) priced.insert(o.instance.gpu_id);
  }
  std::vector<const model::GpuSpec*> rentable;
  for (const model::GpuSpec* g : matches) {
    if (priced.count(g->id)) rentable.push_back(g);
  }
  if (rentable.size() == 1) {
    return NamedGpu{*rentable[0], "GPU '" + shown + "' read as " + rentable[0]->id +
                                      ", the only one of its " + std::to_string(matches.size()) +
                                      " parts with a catalog price; name another part by its id"};
  }
  std::string list;
  for (const model::GpuSpec* g : matches) {
    list += (list.empty() ? "" : ", ") + g->id + (priced.count(g->id) ? " (priced)" : "");
  }
  return Error::Invalid(field, "GPU '" + shown + "' is ambiguous: it names " + list +
                                   "; give one of these ids");
}

Result<ResolvedHardware> HardwareResolver::Resolve(const HardwareRequest& hw,
                                                    const PricingRequest& pricing) const {
  ResolvedHardware r;
  r.cluster.nodes = hw.nodes;
  if (!hw.from_catalog) {
    auto named = FindGpu(hw.gpu, {Part::kHardware, "gpu"});
    if (!named.ok()) return named.error();
    if (!named->assumption.empty()) r.assumptions.push_back(named->assumption);
    const model::GpuSpec* gpu = &named->gpu;
    model::NodeSpec& node = r.cluster.node;
    node.gpu = *gpu;
    node.gpus_per_node = hw.gpus_per_node;
    node.interconnect = hw.interconnect.value_or(model::DefaultInterconnect(*gpu, hw.gpus_per_node));
    node.interconnect_bw_gbps = hw.interconnect_bw_gbps;
    node.network_gbps = hw.network_gbps;
    node.vcpus = hw.vcpus;
    node.nvlink_domain_gpus =
        hw.nvlink_domain_gpus > 0 ? hw.nvlink_domain_gpus : model::DefaultNvlinkDomain(node);
    auto given = pricing_.QuoteGiven(hw.price_per_hour, hw.spot_price_per_hour, hw.price_currency,
                                     {Part::kHardware, "price_currency"});
    if (!given.ok()) return given.error();
    r.price = std::move(given).value();
    return r;
  }
  auto found = catalog_.GetInstanceOffers(hw.cloud, hw.instance_type);
  if (!found.ok()) {
    if (found.error().code != ErrorCode::kNotFound) return found.error();
    return Error::Invalid(
        {Part::kHardware, "instance_type"},
        "unknown instance type '" + hw.instance_type + "' in cloud '" + hw.cloud + "'");
  }
  auto gpu = catalog_.GetGpu(found->type.gpu_id);
  if (!gpu.ok()) return gpu.error();
  r.cluster.node = NodeFromInstance(found->type, *gpu);
  const db::Offer* chosen = nullptr;
  const bool by_spot =
      pricing.kinds.Has(PriceKind::kSpot) && !pricing.kinds.Has(PriceKind::kOndemand);
  double cheapest = std::numeric_limits<double>::infinity();
  for (const db::Offer* offer : found->offers) {
    const db::Offer& o = *offer;
    if (!hw.region.empty()) {
      if (o.region == hw.region) chosen = &o;
      continue;
    }
    const auto& p = by_spot ? o.price_spot_per_hour
                            : (o.price_ondemand_per_hour ? o.price_ondemand_per_hour
                                                         : o.price_spot_per_hour);
    if (!p) continue;
    auto usd = pricing_.InUsd(*p, o.currency);
    if (usd && *usd < cheapest) {
      cheapest = *usd;
      chosen = &o;
    }
  }
  if (!hw.region.empty() && !chosen) {
    return Error::Invalid({Part::kHardware, "region"},
                          "'" + hw.instance_type + "' has no price in region '" + hw.region + "'");
  }
  if (!chosen) {
    r.warnings.push_back("no catalog price for " + hw.instance_type + ": cost is not estimated");
    r.price.currency = pricing_.currency();
    return r;
  }
  if (hw.region.empty()) {
    r.warnings.push_back("region not given: " + chosen->region + ", the region with the lowest " +
                         (by_spot ? "spot" : "on-demand") + " price, is used");
  }
  auto quote = pricing_.Quote(*chosen);
  if (!quote.ok()) return quote.error();
  r.offer = *chosen;
  r.price = *quote;
  return r;
}

}  // namespace gpuplan::plan
