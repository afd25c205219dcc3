#include "db/catalog_refresh.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "db/sql.h"
#include "db/write_transaction.h"

namespace gpuplan::db {

namespace {

using PriceKey = std::tuple<std::string, std::string, std::string, std::string>;

struct CurrentPrice {
  double per_hour = 0;
  std::string currency;
};

// One cloud's current prices and instance types.
struct CloudState {
  std::map<PriceKey, CurrentPrice> prices;
  std::set<std::string> instance_types;
};

// Thrown from inside the write transaction when another connection committed since the
// current prices were read: the write rolls back and the refresh starts again.
struct CatalogMoved {};

CloudState ReadState(Connection& db, const std::string& cloud) {
  CloudState state;
  Statement prices(db, "SELECT instance_type, region, zone, kind, price_per_hour, currency "
                               "FROM current_prices WHERE cloud = ?");
  prices.bind(1, cloud);
  while (prices.executeStep()) {
    state.prices[{prices.getColumn(0).getString(), prices.getColumn(1).getString(),
                  prices.getColumn(2).getString(), prices.getColumn(3).getString()}] =
        CurrentPrice{prices.getColumn(4).getDouble(), prices.getColumn(5).getString()};
  }
  Statement types(db, "SELECT id FROM instance_types WHERE cloud = ?");
  types.bind(1, cloud);
  while (types.executeStep()) state.instance_types.insert(types.getColumn(0).getString());
  return state;
}

CatalogBatch Merge(const std::vector<CloudCatalog>& catalogs) {
  CatalogBatch all;
  auto append = [](auto& into, const auto& from) { into.insert(into.end(), from.begin(), from.end()); };
  for (const CloudCatalog& c : catalogs) {
    const CatalogBatch& b = c.batch;
    append(all.gpus, b.gpus);
    append(all.clouds, b.clouds);
    append(all.regions, b.regions);
    append(all.fx_rates, b.fx_rates);
    append(all.instance_types, b.instance_types);
    append(all.prices, b.prices);
    append(all.spot_bands, b.spot_bands);
    for (const auto& [cloud, scope] : b.price_scopes) all.price_scopes[cloud] = scope;
    all.report.rows_read += b.report.rows_read;
    all.report.rows_used += b.report.rows_used;
    all.report.rows_skipped += b.report.rows_skipped;
    all.report.spot_above_ondemand += b.report.spot_above_ondemand;
    for (const auto& [reason, n] : b.report.skipped_by_reason) {
      all.report.skipped_by_reason[c.cloud + ": " + reason] += n;
    }
    for (const auto& [reason, n] : b.report.corrected_by_reason) {
      all.report.corrected_by_reason[c.cloud + ": " + reason] += n;
    }
  }
  return all;
}

CloudRefresh Diff(const CloudCatalog& c, const CloudState& before, const CloudState& after) {
  CloudRefresh r;
  r.cloud = c.cloud;
  r.origin = c.origin;
  r.rows_without_gpu = c.rows_without_gpu;
  r.rows_read = c.batch.report.rows_read;
  r.rows_skipped = c.batch.report.rows_skipped;
  std::set<PriceKey> listed;
  for (const PriceObservation& p : c.batch.prices) {
    listed.insert({p.instance_type, p.region, p.zone, p.kind});
  }
  r.prices_listed = static_cast<int>(listed.size());
  std::vector<PriceMove> moves;
  for (const PriceKey& key : listed) {
    auto was = before.prices.find(key);
    auto now = after.prices.find(key);
    if (was == before.prices.end()) {
      ++r.prices_added;
    } else if (now != after.prices.end() && (now->second.per_hour != was->second.per_hour ||
                                              now->second.currency != was->second.currency)) {
      ++r.prices_changed;
      const auto& [type, region, zone, kind] = key;
      moves.push_back({type, region, zone, kind, was->second.per_hour, now->second.per_hour,
                       now->second.currency});
    } else {
      ++r.prices_unchanged;
    }
  }
  for (const auto& [key, price] : before.prices) r.prices_not_seen += listed.count(key) == 0;
  for (const std::string& id : after.instance_types) {
    if (!before.instance_types.count(id)) r.instance_types_added_ids.push_back(id);
  }
  r.instance_types_added = static_cast<int>(r.instance_types_added_ids.size());
  std::stable_sort(moves.begin(), moves.end(), [](const PriceMove& a, const PriceMove& b) {
    return std::fabs(a.relative_change()) > std::fabs(b.relative_change());
  });
  if (moves.size() > kRefreshMovesReported) moves.resize(kRefreshMovesReported);
  r.largest_moves = std::move(moves);
  return r;
}

Status CheckCatalogs(const std::vector<CloudCatalog>& catalogs) {
  if (catalogs.empty()) return Error::Invalid("cloud", "no cloud catalog to refresh");
  std::set<std::string> seen;
  for (const CloudCatalog& c : catalogs) {
    if (!seen.insert(c.cloud).second) {
      return Error::Invalid("cloud", "cloud '" + c.cloud + "' is given twice (" + c.origin + ")");
    }
    if (!c.batch.report.rejected.empty()) {
      return Error::Invalid("cloud", c.origin + " has " +
                                         std::to_string(c.batch.report.rows_rejected) +
                                         " invalid rows; nothing was refreshed");
    }
  }
  return OkStatus();
}

}  // namespace

CsvTable SkypilotGpuRows(const CsvTable& table, const GcpAttachRules* attach, int& left_out) {
  left_out = 0;
  const auto accelerator = table.Column("AcceleratorName");
  if (!accelerator) return table;
  const auto instance_type = table.Column("InstanceType");
  std::set<std::string, std::less<>> hosts;
  if (attach) {
    for (const auto& [machine, gpus] : attach->machine_gpus) hosts.insert(machine);
    for (const auto& [gpus, host] : attach->n1_hosts) hosts.insert(host);
  }
  std::vector<CsvRow> kept;
  for (const CsvRow& row : table.rows()) {
    if (!CsvTable::Field(row, accelerator).empty() ||
        hosts.count(CsvTable::Field(row, instance_type))) {
      kept.push_back(row);
    } else {
      ++left_out;
    }
  }
  return CsvTable(table.header(), std::move(kept));
}

double PriceMove::relative_change() const {
  if (before_per_hour == 0) return std::numeric_limits<double>::infinity();
  return after_per_hour / before_per_hour - 1;
}

Result<RefreshOutcome> RefreshCatalog(Connection& db, const std::vector<CloudCatalog>& catalogs,
                                      const std::string& actor) {
  Status valid = CheckCatalogs(catalogs);
  if (!valid.ok()) return valid.error();
  const CatalogBatch merged = Merge(catalogs);
  ImportOptions options;
  options.actor = actor;
  options.format = "skypilot";
  for (const CloudCatalog& c : catalogs) options.cloud += (options.cloud.empty() ? "" : ",") + c.cloud;
  for (int attempt = 1; attempt <= kRefreshAttempts; ++attempt) {
    std::vector<CloudState> before;
    long long version = 0;
    try {
      Transaction read(db);  // one snapshot of every cloud
      for (const CloudCatalog& c : catalogs) before.push_back(ReadState(db, c.cloud));
      version = WriteCommits(db);
      read.commit();
    } catch (const SqlError& e) {
      return StorageFailure(e);
    }
    RefreshOutcome out;
    out.attempts = attempt;
    try {
      auto imported = ImportCatalog(db, merged, options, [&](const ImportOutcome&) {
        if (WriteCommits(db) != version) throw CatalogMoved{};
        for (size_t i = 0; i < catalogs.size(); ++i) {
          out.clouds.push_back(Diff(catalogs[i], before[i], ReadState(db, catalogs[i].cloud)));
        }
      });
      if (!imported.ok()) return imported.error();
      out.import = std::move(imported).value();
      return out;
    } catch (const CatalogMoved&) {
      continue;  // rolled back: nothing of this attempt is written
    } catch (const SqlError& e) {
      Error err = StorageError(e, "the refresh");
      err.message += "; nothing was written";
      return err;
    }
  }
  return Error::Unavailable("the catalog changed during each of " +
                            std::to_string(kRefreshAttempts) +
                            " attempts to refresh it; nothing was written, run it again");
}

}  // namespace gpuplan::db
