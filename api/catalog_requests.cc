#include "api/catalog_requests.h"

#include <tuple>

#include "api/cursor.h"
#include "db/field_rules.h"

namespace gpuplan::api {

Result<SpotHistoryQuery> ReadSpotHistoryQuery(QueryParams& q) {
  SpotHistoryQuery out;
  db::CatalogStore::SpotQuery& query = out.query;
  query.cloud = q.String("cloud");
  query.instance_type = q.String("instance_type");
  if (query.cloud.empty()) q.Fail("cloud", "cloud is required");
  if (query.instance_type.empty()) q.Fail("instance_type", "instance_type is required");
  query.region = q.String("region");
  query.zone = q.String("zone");
  query.since = q.String("since");
  query.until = q.String("until");
  for (auto [name, value] : {std::pair{"since", &query.since}, {"until", &query.until}}) {
    if (!value->empty() && !db::rules::ParseTimestamp(*value)) {
      q.Fail(name, std::string(name) + " must be an ISO 8601 date or date-time, e.g. 2026-11-01");
    }
    *value = db::rules::CanonicalOrSame(*value);  // stored stamps compare as instants
  }
  query.limit = static_cast<int>(q.Integer("limit", 1, 10000).value_or(1000));
  std::string cursor = q.String("cursor");
  if (!q.ok()) return q.error();
  out.fingerprint = Fingerprint(query.cloud + "|" + query.instance_type + "|" + query.region +
                                "|" + query.zone + "|" + query.since + "|" + query.until);
  if (!cursor.empty()) {
    auto position = DecodePosition(cursor, out.fingerprint, 3);  // observed_at, zone, region
    if (!position.ok()) return position.error();
    query.after = std::make_tuple(position->keys[0], position->keys[1], position->keys[2]);
  }
  return out;
}

nlohmann::json ImportReportJson(const db::ImportOutcome& out, const db::ImportOptions& o) {
  nlohmann::json rejected = nlohmann::json::array();
  for (const auto& r : out.report.rejected) rejected.push_back({{"line", r.line}, {"reason", r.reason}});
  const db::BatchCounts& c = out.counts;
  return {{"format", o.format},
          {"cloud", o.cloud},
          {"dry_run", o.dry_run},
          {"partial", o.partial},
          {"written", out.written},
          {"rows",
           {{"read", out.report.rows_read},
            {"accepted", out.report.rows_used},
            {"skipped", out.report.rows_skipped},
            {"rejected", out.report.rows_rejected}}},
          {"skipped_by_reason", out.report.skipped_by_reason},
          {"corrected_by_reason", out.report.corrected_by_reason},
          {"rejected", rejected},
          {"spot_above_ondemand", out.report.spot_above_ondemand},
          {"instance_types", {{"inserted", c.instance_types.inserted}, {"updated", c.instance_types.updated}}},
          {"prices", {{"inserted", c.prices.inserted}, {"updated", c.prices.updated}}},
          {"spot_bands", c.spot_bands},
          {"gpus", c.gpus},
          {"regions", c.regions}};
}

}  // namespace gpuplan::api
