#include "server/catalog_refresh_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

#include "api/catalog_io.h"
#include "db/catalog_refresh.h"
#include "db/catalog_store.h"
#include "db/csv.h"
#include "db/field_rules.h"
#include "db/seeder.h"
#include "db/sql.h"
#include "db/text.h"
#include "server/admin_commands.h"
#include "server/catalog_sources.h"
#include "server/cli_errors.h"

namespace gpuplan::server {

namespace {

constexpr size_t kRejectedLinesShown = 20;

struct NotRefreshed {
  std::string cloud, reason;
};

// The files to refresh, and the clouds left out with the reason.
struct Plan {
  std::vector<CatalogFile> files;
  std::vector<NotRefreshed> left_out;
};

Result<Plan> Gather(const CatalogRefreshCommand& c, const std::set<std::string>& catalog_clouds) {
  const std::string from = c.from.empty() ? kSkypilotCatalogUrl : c.from;
  const bool url = IsHttpUrl(from);
  std::vector<std::string> asked = c.clouds;
  if (url && asked.empty()) asked.assign(catalog_clouds.begin(), catalog_clouds.end());
  auto found = url ? DownloadCatalogs(from, asked) : ReadCatalogDirectory(from, asked);
  if (!found.ok()) return found.error();
  auto where = [&](const std::string& cloud) {
    return url ? from + "/" + cloud + "/vms.csv"
               : from + "/" + cloud + "/vms.csv or " + from + "/" + cloud + "_vms_gpu.csv";
  };
  Plan plan;
  for (const std::string& cloud : found->missing) {
    if (!c.clouds.empty()) return Error::Invalid("cloud", "cloud '" + cloud + "': no " + where(cloud));
    plan.left_out.push_back({cloud, "not published: no " + where(cloud)});
  }
  if (!url && c.clouds.empty()) {  // a directory's clouds are found, not asked: say which are not
    std::set<std::string> published;
    for (const CatalogFile& file : found->files) published.insert(file.cloud);
    for (const std::string& cloud : catalog_clouds) {
      if (!published.count(cloud)) plan.left_out.push_back({cloud, "not published: no " + where(cloud)});
    }
  }
  for (CatalogFile& file : found->files) {
    if (c.clouds.empty() && !catalog_clouds.count(file.cloud)) {
      plan.left_out.push_back({file.cloud, "not in the catalog (name it with --cloud to add it)"});
      continue;
    }
    plan.files.push_back(std::move(file));
  }
  if (plan.files.empty()) {
    return Error::Invalid("from", "nothing to refresh: " + from +
                                      " holds no SkyPilot catalog of the catalog's clouds "
                                      "(<cloud>/vms.csv or <cloud>_vms_gpu.csv)");
  }
  return plan;
}

// A parse error or rejected rows, naming the file they are in.
Error InFile(const std::string& origin, Error e) {
  e.message = origin + ": " + e.message + "; nothing was refreshed";
  return e;
}

// The file's GPU rows through the import's SkyPilot parser (api::ParseSkypilotTable).
Result<db::CloudCatalog> Parse(CatalogFile& file, const std::string& observed_at,
                               const std::string& now, const db::GcpAttachRules& attach,
                               db::CatalogStore& store) {
  auto table = db::ParseCsv(file.text);
  std::string().swap(file.text);  // read: the text is no longer needed
  if (!table.ok()) return InFile(file.origin, table.error());
  int without_gpu = 0;
  db::CsvTable gpu_rows =
      db::SkypilotGpuRows(*table, file.cloud == "gcp" ? &attach : nullptr, without_gpu);
  api::ImportRequest request{"skypilot", file.cloud, observed_at,
                             "SkyPilot catalog " + file.origin + " (gpuplan catalog refresh at " +
                                 now + ")"};
  auto batch = api::ParseSkypilotTable(request, gpu_rows, store);
  if (!batch.ok()) return InFile(file.origin, batch.error());
  const db::ImportReport& report = batch->report;
  if (!report.rejected.empty()) {
    Error e{ErrorCode::kInvalidArgument, std::to_string(report.rows_rejected) + " invalid rows", {}};
    for (const db::RowIssue& issue : report.rejected) {
      if (e.fields.size() == kRejectedLinesShown) break;
      e.fields.push_back({"line " + std::to_string(issue.line), issue.reason});
    }
    return InFile(file.origin, std::move(e));
  }
  return db::CloudCatalog{file.cloud, file.origin, std::move(batch).value(), without_gpu};
}

nlohmann::json MoveJson(const db::PriceMove& m) {
  const double change = m.relative_change();
  return {{"instance_type", m.instance_type}, {"region", m.region}, {"zone", m.zone},
          {"kind", m.kind}, {"before_per_hour", m.before_per_hour},
          {"after_per_hour", m.after_per_hour}, {"currency", m.currency},
          {"relative_change", std::isfinite(change) ? nlohmann::json(change) : nlohmann::json()}};
}

nlohmann::json ReportJson(const db::RefreshOutcome& r, const Plan& plan,
                          const std::string& observed_at) {
  nlohmann::json clouds = nlohmann::json::array();
  for (const db::CloudRefresh& c : r.clouds) {
    nlohmann::json moves = nlohmann::json::array();
    for (const db::PriceMove& m : c.largest_moves) moves.push_back(MoveJson(m));
    clouds.push_back({{"cloud", c.cloud}, {"origin", c.origin},
                      {"rows", {{"without_gpu", c.rows_without_gpu}, {"read", c.rows_read},
                                {"skipped", c.rows_skipped}}},
                      {"prices", {{"listed", c.prices_listed}, {"added", c.prices_added},
                                  {"changed", c.prices_changed}, {"unchanged", c.prices_unchanged},
                                  {"not_seen", c.prices_not_seen}}},
                      {"instance_types_added", c.instance_types_added_ids},
                      {"largest_moves", std::move(moves)}});
  }
  nlohmann::json left_out = nlohmann::json::array();
  for (const NotRefreshed& n : plan.left_out) left_out.push_back({{"cloud", n.cloud}, {"reason", n.reason}});
  return {{"written", r.import.written},
          {"observed_at", observed_at},
          {"clouds", std::move(clouds)},
          {"not_refreshed", std::move(left_out)},
          {"skipped_by_reason", r.import.report.skipped_by_reason},
          {"prices_written", {{"inserted", r.import.counts.prices.inserted},
                              {"updated", r.import.counts.prices.updated}}}};
}

std::string MoveText(const db::PriceMove& m) {
  const double change = m.relative_change();
  return fmt::format("{} {}{}{} {}: {:.6g} -> {:.6g} {}/h ({})", m.instance_type, m.region,
                     m.zone.empty() ? "" : " ", m.zone, m.kind, m.before_per_hour,
                     m.after_per_hour, m.currency,
                     std::isfinite(change) ? fmt::format("{:+.1f} %", change * 100) : "new");
}

void PrintText(const db::RefreshOutcome& r, const Plan& plan, const std::string& observed_at,
               std::ostream& out) {
  out << "refreshed " << r.clouds.size() << " cloud(s) in one transaction; prices observed_at "
      << observed_at << "\n";
  for (const db::CloudRefresh& c : r.clouds) {
    out << fmt::format(
        "{} ({}): {} rows read ({} more without a GPU left out), {} skipped; prices: {} "
        "listed, {} added, {} changed, {} unchanged, {} not seen (kept: they age into "
        "stale); instance types added: {}\n",
        c.cloud, c.origin, c.rows_read, c.rows_without_gpu, c.rows_skipped, c.prices_listed, c.prices_added,
        c.prices_changed, c.prices_unchanged, c.prices_not_seen, c.instance_types_added);
    for (const std::string& id : c.instance_types_added_ids) out << "  added " << id << "\n";
    for (const db::PriceMove& m : c.largest_moves) out << "  moved " << MoveText(m) << "\n";
  }
  for (const NotRefreshed& n : plan.left_out) out << "not refreshed: " << n.cloud << ": " << n.reason << "\n";
}

}  // namespace

int RunCatalogRefresh(const CatalogRefreshCommand& c, std::ostream& out, std::ostream& err) {
  const std::string now = db::UtcNow();
  const std::string observed_at = c.observed_at.empty() ? now : c.observed_at;
  if (auto reason = db::rules::CheckTimestamp(observed_at, std::time(nullptr))) {
    return ReportError(Error::Invalid("observed-at", "observed-at " + *reason), err);
  }
  auto db = OpenPreparedDatabase(c.db, err);
  if (!db) return 1;
  db::CatalogStore store(*db);
  auto clouds = store.ListClouds();
  if (!clouds.ok()) return ReportError(clouds.error(), err);
  std::set<std::string> catalog_clouds;
  for (const db::CloudSummary& s : *clouds) catalog_clouds.insert(s.cloud.id);
  auto plan = Gather(c, catalog_clouds);
  if (!plan.ok()) return ReportError(plan.error(), err);
  const std::string stamp = db::rules::CanonicalOrSame(observed_at);
  auto attach = db::LoadGcpAttachRules();
  if (!attach.ok()) return ReportError(attach.error(), err);
  std::vector<db::CloudCatalog> catalogs;
  for (CatalogFile& file : plan->files) {
    auto parsed = Parse(file, stamp, now, *attach, store);
    if (!parsed.ok()) return ReportError(parsed.error(), err);
    catalogs.push_back(std::move(parsed).value());
  }
  auto refreshed = db::RefreshCatalog(*db, catalogs, "cli");
  if (!refreshed.ok()) return ReportError(refreshed.error(), err);
  if (c.json) {
    out << ReportJson(*refreshed, *plan, stamp).dump(2) << "\n";
  } else {
    PrintText(*refreshed, *plan, stamp, out);
  }
  return 0;
}

}  // namespace gpuplan::server
