// Spot interruption bands (db::SpotBand): the AWS Spot Instance Advisor's monthly
// interruption frequency of an instance type in a region. Parsed from the seed's CSV copy
// (db/seed/aws_spot_advisor_gpu.csv) and from the public advisor feed
// (spot-advisor-data.json, read into rows by api/catalog_io.h), written with a catalog batch
// (WriteCatalogBatch calls WriteSpotBands in the caller's transaction), and read once per
// catalog generation onto the offers (AttachSpotBands: CatalogStore's offers, and so the
// snapshot of db/cached_catalog.h). Functions of their arguments and the connection given;
// writes and reads throw SqlError as the statements do.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/catalog_batch.h"
#include "db/catalog_reader.h"
#include "db/csv.h"
#include "db/sql.h"
#include "model/result.h"

namespace gpuplan::db {

// The highest band index the feed uses (">20%").
inline constexpr int kMaxSpotBandIndex = 4;
// The lowest saving a band may carry, %: SpotBand::savings_percent is negative where the
// advisor saw spot above on-demand (ca-central-1 p5.48xlarge at -62 in the seed).
inline constexpr double kMinSpotSavingsPercent = -1000;

// The monthly fractions a band label names: "<5%" -> [0, 0.05], "5-10%" -> [0.05, 0.10],
// ">20%" -> [0.20, open). Whitespace around the parts is allowed; nullopt for anything else
// (percentages must be in [0, 100), the low edge below the high one).
struct BandRange {
  double low_fraction = 0;
  std::optional<double> high_fraction;  // nullopt: open
};
std::optional<BandRange> ParseBandLabel(std::string_view label);

// The seed's CSV (columns region, instance_type, interruption_band, interruption_range_text,
// savings_percent, source_repo, source_path, commit) as bands of `cloud`, stamped with
// `observed_at` and `source` (the commit is appended). Bad rows are rejected rows of the
// report (line = the CSV line); kInvalidArgument naming the column when one is missing.
Result<CatalogBatch> ParseSpotAdvisorCsv(const CsvTable& table, const std::string& cloud,
                                         const std::string& observed_at,
                                         const std::string& source);

// The feed's `ranges` entries and its Linux entries, as the api layer reads them.
struct SpotAdvisorRange {
  std::optional<long long> index;
  std::string label;
  std::string pointer;  // JSON pointer of the entry, for errors
};
struct SpotAdvisorRow {
  std::string region, instance_type;
  std::optional<double> savings_percent;  // the entry's "s"
  std::optional<double> range_index;      // the entry's "r"
  std::string pointer;                    // JSON pointer of the entry
};
// The bands of `rows` for `cloud`: each "r" must name an entry of `ranges` (whose labels
// ParseBandLabel reads: a bad label is kInvalidArgument naming its pointer); an entry with a
// bad "r" or "s" is a rejected row (line = its position + 1; the reason names its pointer);
// instance types the catalog lacks are skipped (counted). Reads the catalog through
// `catalog` (one lookup per distinct type); kUnavailable when it fails.
Result<CatalogBatch> ParseSpotAdvisor(const std::vector<SpotAdvisorRange>& ranges,
                                      const std::vector<SpotAdvisorRow>& rows,
                                      const std::string& cloud, const std::string& observed_at,
                                      const std::string& source, CatalogReader& catalog);

// Replaces every band of each (cloud, region) that `bands` names by `bands`. Returns how
// many were written. In the caller's transaction.
int WriteSpotBands(Connection& db, const std::vector<SpotBand>& bands);

// Every band, by (cloud, region, instance type).
std::vector<SpotBand> ReadSpotBands(Connection& db);

// Sets each offer's spot_band from the table (null where none), in one read of the table.
void AttachSpotBands(Connection& db, std::vector<Offer>& offers);

}  // namespace gpuplan::db
