#include "db/import_references.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan::db {

Status RejectUnknownGpus(CatalogBatch& b, CatalogReader& catalog) {
  std::set<std::string> gpus;
  for (const auto& g : b.gpus) gpus.insert(g.id);
  std::vector<InstanceType> kept;
  for (size_t i = 0; i < b.instance_types.size(); ++i) {
    const auto& t = b.instance_types[i];
    if (!gpus.count(t.gpu_id)) {
      auto g = catalog.GetGpu(t.gpu_id);
      if (!g.ok() && g.error().code != ErrorCode::kNotFound) return g.error();
      if (g.ok()) {
        gpus.insert(t.gpu_id);
      } else {
        b.report.Reject(static_cast<int>(i + 1), "/instance_types/" + std::to_string(i) +
                                                     "/gpu: unknown GPU '" + t.gpu_id + "'");
        --b.report.rows_used;
        continue;
      }
    }
    kept.push_back(t);
  }
  b.instance_types = std::move(kept);
  return OkStatus();
}

Status RejectUnknownCurrencies(CatalogBatch& b, CatalogReader& catalog) {
  auto rates = catalog.FxRates();
  if (!rates.ok()) return rates.error();
  std::set<std::string> known;
  for (const auto& [currency, rate] : *rates) known.insert(currency);
  for (const auto& f : b.fx_rates) known.insert(f.currency);
  std::vector<PriceObservation> kept;
  for (size_t i = 0; i < b.prices.size(); ++i) {
    if (!known.count(b.prices[i].currency)) {
      b.report.Reject(static_cast<int>(i + 1), "/prices/" + std::to_string(i) +
                                                   "/currency: no exchange rate for '" +
                                                   b.prices[i].currency + "'");
      --b.report.rows_used;
      continue;
    }
    kept.push_back(b.prices[i]);
  }
  b.prices = std::move(kept);
  return OkStatus();
}

Result<bool> KnownInstanceTypes::Has(const std::string& type) {
  if (known_.count(type)) return true;
  if (unknown_.count(type)) return false;
  auto found = catalog_.GetInstanceType(cloud_, type);
  if (found.ok()) {
    known_.insert(type);
    return true;
  }
  if (found.error().code != ErrorCode::kNotFound) return found.error();
  unknown_.insert(type);
  return false;
}

}  // namespace gpuplan::db
