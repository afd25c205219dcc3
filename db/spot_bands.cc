#include "db/spot_bands.h"

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "db/field_rules.h"
#include "db/import_references.h"
#include "db/sql.h"
#include "db/sql_bind.h"
#include "db/text.h"

namespace gpuplan::db {

namespace {

// "12.5" of "12.5%" (the % already removed) as a fraction in [0, 1).
std::optional<double> Percent(std::string_view text) {
  auto v = ParseDouble(Trim(text));
  if (!v || !std::isfinite(*v) || *v < 0 || *v >= 100) return std::nullopt;
  return *v / 100;
}

constexpr const char* kInsertSql = R"SQL(
INSERT INTO spot_interruption_bands (cloud, region, instance_type, band, label, low_fraction,
  high_fraction, savings_percent, observed_at, source)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10))SQL";

}  // namespace

std::optional<BandRange> ParseBandLabel(std::string_view label) {
  std::string_view t = Trim(label);
  if (t.size() < 3 || t.back() != '%') return std::nullopt;
  t.remove_suffix(1);
  if (t.front() == '<') {
    auto high = Percent(t.substr(1));
    if (!high || *high <= 0) return std::nullopt;
    return BandRange{0, *high};
  }
  if (t.front() == '>') {
    auto low = Percent(t.substr(1));
    if (!low) return std::nullopt;
    return BandRange{*low, std::nullopt};
  }
  size_t dash = t.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto low = Percent(t.substr(0, dash));
  auto high = Percent(t.substr(dash + 1));
  if (!low || !high || *low >= *high) return std::nullopt;
  return BandRange{*low, *high};
}

namespace {

SpotBand MakeBand(const std::string& cloud, std::string region, std::string type, int index,
                  std::string label, const BandRange& range, std::optional<double> savings,
                  const std::string& observed_at, std::string source) {
  return SpotBand{cloud,         std::move(region),    std::move(type),
                  index,         std::move(label),     range.low_fraction,
                  range.high_fraction, savings, rules::CanonicalOrSame(observed_at),
                  std::move(source)};
}

}  // namespace

Result<CatalogBatch> ParseSpotAdvisorCsv(const CsvTable& table, const std::string& cloud,
                                         const std::string& observed_at,
                                         const std::string& source) {
  CatalogBatch b;
  std::map<std::string, std::optional<size_t>> col;
  for (const char* name : {"region", "instance_type", "interruption_band",
                           "interruption_range_text", "savings_percent", "commit"}) {
    col[name] = table.Column(name);
    if (!col[name]) return Error::Invalid(name, std::string("missing column ") + name);
  }
  for (const CsvRow& row : table.rows()) {
    ++b.report.rows_read;
    auto field = [&](const char* name) { return std::string(Trim(CsvTable::Field(row, col[name]))); };
    auto index = ParseInteger(field("interruption_band"));
    auto range = ParseBandLabel(field("interruption_range_text"));
    auto savings = ParseDouble(field("savings_percent"));
    if (!index || *index < 0 || *index > kMaxSpotBandIndex) {
      b.report.Reject(row.line, "interruption_band must be an integer from 0 to 4");
      continue;
    }
    if (!range) {
      b.report.Reject(row.line, "interruption_range_text '" +
                                    Printable(field("interruption_range_text"), 40) +
                                    "' is not a band such as <5%, 5-10% or >20%");
      continue;
    }
    std::string commit = field("commit");
    b.spot_bands.push_back(MakeBand(cloud, field("region"), field("instance_type"),
                                    static_cast<int>(*index), field("interruption_range_text"),
                                    *range, savings, observed_at,
                                    commit.empty() ? source : source + " at commit " + commit));
    ++b.report.rows_used;
  }
  return b;
}

Result<CatalogBatch> ParseSpotAdvisor(const std::vector<SpotAdvisorRange>& ranges,
                                      const std::vector<SpotAdvisorRow>& rows,
                                      const std::string& cloud, const std::string& observed_at,
                                      const std::string& source, CatalogReader& catalog) {
  std::map<long long, std::pair<std::string, BandRange>> by_index;
  for (const SpotAdvisorRange& r : ranges) {
    if (!r.index || *r.index < 0 || *r.index > kMaxSpotBandIndex) {
      return Error::Invalid(r.pointer + "/index", "index must be an integer from 0 to 4");
    }
    auto range = ParseBandLabel(r.label);
    if (!range) {
      return Error::Invalid(r.pointer + "/label", "label '" + Printable(r.label, 40) +
                                                      "' is not a band such as <5%, 5-10% or >20%");
    }
    if (!by_index.emplace(*r.index, std::make_pair(r.label, *range)).second) {
      return Error::Invalid(r.pointer + "/index",
                            "index " + std::to_string(*r.index) + " is listed twice");
    }
  }
  CatalogBatch b;
  KnownInstanceTypes types(catalog, cloud);
  for (size_t i = 0; i < rows.size(); ++i) {
    ++b.report.rows_read;
    const int line = static_cast<int>(i + 1);
    const SpotAdvisorRow& row = rows[i];
    const std::optional<double>& r = row.range_index;
    if (!r || *r != std::floor(*r) || !by_index.count(static_cast<long long>(*r))) {
      b.report.Reject(line, row.pointer + "/r must be the index of an entry of /ranges");
      continue;
    }
    const std::optional<double>& s = row.savings_percent;
    if (s && (!std::isfinite(*s) || *s < kMinSpotSavingsPercent || *s > 100)) {
      b.report.Reject(line, row.pointer + "/s must be a saving from -1000 to 100 (%)");
      continue;
    }
    if (auto reason = rules::CheckName(row.region)) {
      b.report.Reject(line, row.pointer + ": region " + *reason);
      continue;
    }
    if (auto reason = rules::CheckCatalogId(row.instance_type)) {
      b.report.Reject(line, row.pointer + ": instance type " + *reason);
      continue;
    }
    auto known = types.Has(row.instance_type);
    if (!known.ok()) return known.error();
    if (!*known) {
      b.report.Skip("instance type not in the catalog");
      continue;
    }
    const auto& [label, range] = by_index.at(static_cast<long long>(*r));
    b.spot_bands.push_back(MakeBand(cloud, row.region, row.instance_type,
                                    static_cast<int>(*r), label, range, s, observed_at, source));
    ++b.report.rows_used;
  }
  return b;
}

int WriteSpotBands(Connection& db, const std::vector<SpotBand>& bands) {
  if (bands.empty()) return 0;
  Statement clear(db, "DELETE FROM spot_interruption_bands WHERE cloud = ? AND region = ?");
  std::set<std::pair<std::string, std::string>> regions;
  for (const SpotBand& band : bands) {
    if (!regions.insert({band.cloud, band.region}).second) continue;
    clear.bind(1, band.cloud);
    clear.bind(2, band.region);
    clear.exec();
    clear.reset();
  }
  // A key listed twice keeps its last entry.
  Statement insert(db, std::string(kInsertSql) +
                                   " ON CONFLICT (cloud, region, instance_type) DO UPDATE SET "
                                   "band = excluded.band, label = excluded.label, "
                                   "low_fraction = excluded.low_fraction, "
                                   "high_fraction = excluded.high_fraction, "
                                   "savings_percent = excluded.savings_percent, "
                                   "observed_at = excluded.observed_at, source = excluded.source");
  for (const SpotBand& band : bands) {
    insert.bind(1, band.cloud);
    insert.bind(2, band.region);
    insert.bind(3, band.instance_type);
    insert.bind(4, band.band);
    insert.bind(5, band.label);
    insert.bind(6, band.low_fraction);
    BindOptional(insert, 7, band.high_fraction);
    BindOptional(insert, 8, band.savings_percent);
    insert.bind(9, band.observed_at);
    insert.bind(10, band.source);
    insert.exec();
    insert.reset();
  }
  return static_cast<int>(bands.size());
}

std::vector<SpotBand> ReadSpotBands(Connection& db) {
  std::vector<SpotBand> bands;
  Statement s(db,
                      "SELECT cloud, region, instance_type, band, label, low_fraction, "
                      "high_fraction, savings_percent, observed_at, source "
                      "FROM spot_interruption_bands ORDER BY cloud, region, instance_type");
  while (s.executeStep()) {
    SpotBand& band = bands.emplace_back();
    band.cloud = s.getColumn(0).getString();
    band.region = s.getColumn(1).getString();
    band.instance_type = s.getColumn(2).getString();
    band.band = s.getColumn(3).getInt();
    band.label = s.getColumn(4).getString();
    band.low_fraction = s.getColumn(5).getDouble();
    if (!s.getColumn(6).isNull()) band.high_fraction = s.getColumn(6).getDouble();
    if (!s.getColumn(7).isNull()) band.savings_percent = s.getColumn(7).getDouble();
    band.observed_at = s.getColumn(8).getString();
    band.source = s.getColumn(9).getString();
  }
  return bands;
}

void AttachSpotBands(Connection& db, std::vector<Offer>& offers) {
  if (offers.empty()) return;
  std::map<std::tuple<std::string, std::string, std::string>, std::shared_ptr<const SpotBand>>
      bands;
  for (SpotBand& band : ReadSpotBands(db)) {
    auto key = std::make_tuple(band.cloud, band.region, band.instance_type);
    bands.emplace(std::move(key), std::make_shared<const SpotBand>(std::move(band)));
  }
  if (bands.empty()) return;
  for (Offer& o : offers) {
    auto it = bands.find({o.instance.cloud, o.region, o.instance.id});
    o.spot_band = it == bands.end() ? nullptr : it->second;
  }
}

}  // namespace gpuplan::db
