#include "db/aws_spot_history.h"

#include <ctime>
#include <set>

#include "db/field_rules.h"
#include "db/import_references.h"
#include "db/offer_query.h"
#include "db/text.h"

namespace gpuplan::db {

Result<CatalogBatch> ParseAwsSpotHistory(const std::vector<AwsSpotRow>& rows,
                                         const std::string& cloud, const std::string& source,
                                         CatalogReader& catalog) {
  CatalogBatch b;
  KnownInstanceTypes types(catalog, cloud);
  for (size_t i = 0; i < rows.size(); ++i) {
    ++b.report.rows_read;
    const int line = static_cast<int>(i + 1);
    const AwsSpotRow& row = rows[i];
    const std::string& zone = row.availability_zone;
    const std::string& type = row.instance_type;
    const std::string& product = row.product_description;
    const std::string& price_text = row.spot_price;
    const std::string& timestamp = row.timestamp;
    if (!row.is_object || zone.empty() || type.empty() || price_text.empty() ||
        timestamp.empty()) {
      b.report.Reject(line, "needs AvailabilityZone, InstanceType, SpotPrice and Timestamp strings");
      continue;
    }
    if (product.find("Linux") == std::string::npos) {
      b.report.Skip("not a Linux price: " + Printable(product, 60));
      continue;
    }
    auto price = ParseDouble(price_text);
    if (!price) {
      b.report.Reject(line, "SpotPrice '" + Printable(price_text, 40) + "' is not a number");
      continue;
    }
    if (auto reason = rules::CheckPrice(*price)) {
      b.report.Reject(line, "SpotPrice " + *reason);
      continue;
    }
    std::string region = rules::CheckName(zone) ? "" : AwsRegionOfZone(zone);
    if (region.empty()) {
      b.report.Reject(line, "AvailabilityZone '" + Printable(zone, 40) + "' is not an AWS zone name");
      continue;
    }
    if (auto reason = rules::CheckTimestamp(timestamp, std::time(nullptr))) {
      b.report.Reject(line, "Timestamp " + *reason);
      continue;
    }
    if (auto reason = rules::CheckCatalogId(type)) {
      b.report.Reject(line, "InstanceType " + *reason);
      continue;
    }
    auto known = types.Has(type);
    if (!known.ok()) return known.error();
    if (!*known) {
      b.report.Skip("instance type not in the catalog: " + type);
      continue;
    }
    ++b.report.rows_used;
    b.prices.push_back({cloud, type, region, zone, "spot", *price, "USD",
                        rules::CanonicalOrSame(timestamp), source});
  }
  return b;
}

}  // namespace gpuplan::db
