#include "api/catalog_io.h"

#include <algorithm>
#include <ctime>
#include <sstream>

#include "api/json_limits.h"
#include "api/json_reader.h"
#include "api/request_admission.h"
#include "db/aws_spot_history.h"
#include "db/csv.h"
#include "db/import_references.h"
#include "db/field_rules.h"
#include "db/text.h"
#include "db/seeder.h"
#include "db/skypilot_parser.h"
#include "db/spot_bands.h"

namespace gpuplan::api {

namespace {

namespace rules = db::rules;

std::optional<model::GpuSpec> ReadGpu(JsonReader& r, const std::string& path_id) {
  model::GpuSpec g;
  auto id = r.String("id", path_id.empty());
  g.id = path_id.empty() ? id.value_or("") : path_id;
  if (id && !path_id.empty() && *id != path_id) r.Fail("id", "id must match the URL's id '" + path_id + "'");
  if (!g.id.empty()) r.Check("id", rules::CheckCatalogId(g.id));
  g.name = r.String("name").value_or(g.id);
  g.vendor = r.String("vendor", true).value_or("");
  g.architecture = r.String("architecture").value_or("");
  g.release_year = static_cast<int>(r.Integer("release_year", 0, 3000).value_or(0));
  g.memory_gb = r.Number("memory_gb", 0.001, 1e5, true).value_or(0);
  g.memory_type = r.String("memory_type").value_or("");
  for (const model::GpuRateField& rate : model::kGpuRateFields) {
    g.*rate.field = r.Number(rate.name, 0, 1e7).value_or(0);
  }
  g.pcie_gen = static_cast<int>(r.Integer("pcie_gen", 0, 10).value_or(0));
  g.launch_price_usd = r.Number("launch_price_usd", 0.01, 1e9);  // null: none published
  g.form_factor = r.String("form_factor").value_or("");
  g.source = r.String("source").value_or("");
  for (auto [key, text] : {std::pair{"name", &g.name}, {"vendor", &g.vendor},
                           {"architecture", &g.architecture}, {"memory_type", &g.memory_type},
                           {"form_factor", &g.form_factor}, {"source", &g.source}}) {
    r.Check(key, rules::CheckText(*text));
  }
  r.Finish();
  if (r.ok()) {
    Status valid = model::ValidateGpuSpec(g);
    if (!valid.ok()) {
      r.Fail(valid.error().fields.empty() ? "" : valid.error().fields[0].id.name,
             valid.error().message);
    }
  }
  if (!r.ok()) return std::nullopt;
  return g;
}

std::optional<db::InstanceType> ReadType(JsonReader& r, const std::string& path_cloud,
                                         const std::string& path_id) {
  db::InstanceType t;
  auto cloud = r.String("cloud", path_cloud.empty());
  auto id = r.String("instance_type", path_id.empty());
  t.cloud = path_cloud.empty() ? cloud.value_or("") : path_cloud;
  t.id = path_id.empty() ? id.value_or("") : path_id;
  if (cloud && !path_cloud.empty() && *cloud != path_cloud) r.Fail("cloud", "cloud must match the URL");
  if (id && !path_id.empty() && *id != path_id) r.Fail("instance_type", "instance_type must match the URL");
  if (!t.cloud.empty()) r.Check("cloud", rules::CheckName(t.cloud));
  if (!t.id.empty()) r.Check("instance_type", rules::CheckCatalogId(t.id));
  t.gpu_id = r.String("gpu", true).value_or("");
  if (r.Has("gpu")) r.Check("gpu", rules::CheckCatalogId(t.gpu_id));
  t.gpu_count = static_cast<int>(r.Integer("gpu_count", 1, rules::kMaxGpuCount, true).value_or(1));
  t.vcpus = r.Number("vcpus", 0.01, 1e5);
  t.memory_gib = r.Number("memory_gib", 0.01, 1e6);
  t.interconnect = r.Choice("interconnect", {"none", "pcie", "nvlink", "nvswitch"})
                       .value_or(t.gpu_count > 1 ? "pcie" : "none");
  t.interconnect_bw_gbps = r.Number("interconnect_bw_gbps", 0, 1e5).value_or(0);
  t.network_gbps = r.Number("network_gbps", 0.001, 1e6);
  t.arch = r.String("arch").value_or("x86_64");
  t.host_instance_type = r.String("host_instance_type").value_or("");
  t.accelerator_name = r.String("accelerator_name").value_or("");
  t.source = r.String("source").value_or("");
  r.Check("arch", rules::CheckText(t.arch, 32));
  if (!t.host_instance_type.empty()) r.Check("host_instance_type", rules::CheckCatalogId(t.host_instance_type));
  r.Check("accelerator_name", rules::CheckText(t.accelerator_name, rules::kMaxIdBytes));
  r.Check("source", rules::CheckText(t.source));
  r.Finish();
  if (!r.ok()) return std::nullopt;
  return t;
}

std::optional<db::PriceObservation> ReadPrice(JsonReader& r, const std::string& now) {
  db::PriceObservation p;
  p.cloud = r.String("cloud", true).value_or("");
  p.instance_type = r.String("instance_type", true).value_or("");
  p.region = r.String("region", true).value_or("");
  p.zone = r.String("zone").value_or("");
  p.kind = r.Choice("kind", {"ondemand", "spot", "reserved_1y", "reserved_3y"}, true).value_or("");
  auto price = r.Number("price_per_hour", 0, rules::kMaxPricePerHour, true);
  p.price_per_hour = price.value_or(0);
  if (price) r.Check("price_per_hour", rules::CheckPrice(*price));
  p.currency = r.String("currency", true).value_or("");
  if (r.Has("currency")) r.Check("currency", rules::CheckCurrency(p.currency));
  p.observed_at = r.String("observed_at").value_or(now);
  r.Check("observed_at", rules::CheckTimestamp(p.observed_at, std::time(nullptr)));
  p.observed_at = rules::CanonicalOrSame(p.observed_at);
  p.source = r.String("source").value_or("");
  if (r.Has("cloud")) r.Check("cloud", rules::CheckName(p.cloud));
  if (r.Has("instance_type")) r.Check("instance_type", rules::CheckCatalogId(p.instance_type));
  if (r.Has("region")) r.Check("region", rules::CheckName(p.region));
  r.Check("zone", rules::CheckZone(p.zone));
  r.Check("source", rules::CheckText(p.source));
  r.Finish();
  if (!r.ok()) return std::nullopt;
  return p;
}

// Reads items of array `key` with `read`; invalid items become rejected rows (line =
// item index + 1) named by their pointer.
template <typename T, typename Fn>
void ReadItems(const nlohmann::json& doc, const char* key, db::ImportReport& report,
               std::vector<T>& out, Fn read) {
  if (!doc.contains(key)) return;
  const nlohmann::json& items = doc[key];
  if (!items.is_array()) {
    report.Reject(0, std::string("/") + key + " must be an array");
    return;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    ++report.rows_read;
    std::vector<FieldError> errors;
    JsonReader r(items[i], std::string("/") + key + "/" + std::to_string(i), &errors);
    std::optional<T> value = items[i].is_object() ? read(r) : std::nullopt;
    if (!items[i].is_object()) errors.push_back({r.Pointer(""), "must be an object"});
    if (value) {
      ++report.rows_used;
      out.push_back(std::move(*value));
    } else {
      std::string reason;
      for (const auto& e : errors) reason += (reason.empty() ? "" : "; ") + e.field + ": " + e.detail;
      report.Reject(static_cast<int>(i + 1), reason);
    }
  }
}

Result<db::CatalogBatch> ParseNative(const std::string& body, const std::string& now) {
  ParsedJson parsed = ParseBoundedJson(body, LimitsForBody(kImportBodyLimit));
  if (!parsed.value) return Error::Invalid("body", parsed.error);
  nlohmann::json& doc = *parsed.value;
  if (!doc.is_object()) {
    return Error::Invalid("body", "the gpuplan format is a JSON object (see GET /api/v1/catalog/export)");
  }
  if (!doc.contains("format") || !doc["format"].is_string() || doc["format"] != "gpuplan") {
    return Error::Invalid("/format", "a gpuplan export has \"format\": \"gpuplan\"");
  }
  db::CatalogBatch b;
  ReadItems(doc, "gpus", b.report, b.gpus, [](JsonReader& r) { return ReadGpu(r, ""); });
  ReadItems(doc, "clouds", b.report, b.clouds, [](JsonReader& r) -> std::optional<db::Cloud> {
    db::Cloud c{r.String("id", true).value_or(""), r.String("name").value_or(""),
                r.String("default_currency").value_or("USD"),
                r.String("price_scope").value_or("region")};
    if (c.name.empty()) c.name = c.id;
    if (r.Has("id")) r.Check("id", rules::CheckName(c.id));
    if (c.price_scope != "region" && c.price_scope != "cloud") {
      r.Check("price_scope", rules::Reason("must be region or cloud"));
    }
    r.Check("name", rules::CheckText(c.name, rules::kMaxNameBytes));
    r.Check("default_currency", rules::CheckCurrency(c.default_currency));
    r.Finish();
    return r.ok() ? std::optional(c) : std::nullopt;
  });
  ReadItems(doc, "regions", b.report, b.regions, [](JsonReader& r) -> std::optional<db::Region> {
    db::Region g{r.String("cloud", true).value_or(""), r.String("id", true).value_or(""),
                 r.String("display_name").value_or(""), r.String("country").value_or(""),
                 r.String("continent").value_or("")};
    if (g.display_name.empty()) g.display_name = g.id;
    if (r.Has("cloud")) r.Check("cloud", rules::CheckName(g.cloud));
    if (r.Has("id")) r.Check("id", rules::CheckName(g.id));
    r.Check("display_name", rules::CheckText(g.display_name, 200));
    r.Check("country", rules::CheckText(g.country, 8));
    r.Check("continent", rules::CheckText(g.continent, 64));
    r.Finish();
    return r.ok() ? std::optional(g) : std::nullopt;
  });
  ReadItems(doc, "fx_rates", b.report, b.fx_rates, [](JsonReader& r) -> std::optional<db::FxRate> {
    db::FxRate f{r.String("currency", true).value_or(""),
                 r.Number("units_per_usd", 1e-9, 1e9, true).value_or(1),
                 r.String("as_of", true).value_or(""), r.String("source").value_or("")};
    if (r.Has("currency")) r.Check("currency", rules::CheckCurrency(f.currency));
    if (r.Has("as_of")) r.Check("as_of", rules::CheckTimestamp(f.as_of, std::time(nullptr)));
    f.as_of = rules::CanonicalOrSame(f.as_of);
    r.Check("source", rules::CheckText(f.source));
    r.Finish();
    return r.ok() ? std::optional(f) : std::nullopt;
  });
  ReadItems(doc, "instance_types", b.report, b.instance_types,
            [](JsonReader& r) { return ReadType(r, "", ""); });
  ReadItems(doc, "prices", b.report, b.prices, [&](JsonReader& r) { return ReadPrice(r, now); });
  ReadItems(doc, "spot_bands", b.report, b.spot_bands, [](JsonReader& r) -> std::optional<db::SpotBand> {
    db::SpotBand s;
    s.cloud = r.String("cloud", true).value_or("");
    s.region = r.String("region", true).value_or("");
    s.instance_type = r.String("instance_type", true).value_or("");
    s.band = static_cast<int>(r.Integer("band", 0, db::kMaxSpotBandIndex, true).value_or(0));
    s.label = r.String("label", true).value_or("");
    s.low_fraction = r.Number("low_fraction", 0, 1, true).value_or(0);
    s.high_fraction = r.Number("high_fraction", 0, 1);  // null: an open band
    s.savings_percent = r.Number("savings_percent", db::kMinSpotSavingsPercent, 100);
    s.observed_at = rules::CanonicalOrSame(r.String("observed_at", true).value_or(""));
    s.source = r.String("source").value_or("");
    r.Finish();
    return r.ok() ? std::optional(s) : std::nullopt;
  });
  // Instance types must name known GPUs (in the catalog or in this document): checked by
  // the caller against the store, see ParseImport.
  return b;
}

// The document of `aws ec2 describe-spot-price-history` as rows (db::ParseAwsSpotHistory
// reads them).
Result<std::vector<db::AwsSpotRow>> ReadAwsSpotRows(const std::string& body) {
  ParsedJson parsed = ParseBoundedJson(body, LimitsForBody(kImportBodyLimit));
  if (!parsed.value) return Error::Invalid("body", parsed.error);
  const nlohmann::json& doc = *parsed.value;
  if (!doc.is_object() || !doc.contains("SpotPriceHistory") ||
      !doc["SpotPriceHistory"].is_array()) {
    return Error::Invalid("/SpotPriceHistory",
                          "expected the JSON of `aws ec2 describe-spot-price-history`: "
                          "{\"SpotPriceHistory\": [...]}");
  }
  std::vector<db::AwsSpotRow> rows;
  for (const nlohmann::json& row : doc["SpotPriceHistory"]) {
    auto text = [&](const char* key) {
      return row.is_object() && row.contains(key) && row[key].is_string()
                 ? row[key].get<std::string>()
                 : std::string();
    };
    rows.push_back({row.is_object(), text("AvailabilityZone"), text("InstanceType"),
                    text("ProductDescription"), text("SpotPrice"), text("Timestamp")});
  }
  return rows;
}

// The public AWS Spot Instance Advisor document (spot-advisor-data.json): its `ranges` and
// the Linux entries of `spot_advisor` (db::ParseSpotAdvisor reads them). Windows entries and
// `instance_types` are not read.
struct SpotAdvisorDocument {
  std::vector<db::SpotAdvisorRange> ranges;
  std::vector<db::SpotAdvisorRow> rows;
};
Result<SpotAdvisorDocument> ReadSpotAdvisor(const std::string& body) {
  ParsedJson parsed = ParseBoundedJson(body, LimitsForBody(kImportBodyLimit));
  if (!parsed.value) return Error::Invalid("body", parsed.error);
  const nlohmann::json& doc = *parsed.value;
  if (!doc.is_object()) {
    return Error::Invalid("body", "expected the AWS Spot Instance Advisor document "
                                  "(spot-advisor-data.json): {\"ranges\": [...], "
                                  "\"spot_advisor\": {...}}");
  }
  if (!doc.contains("ranges") || !doc["ranges"].is_array() || doc["ranges"].empty()) {
    return Error::Invalid("/ranges", "ranges must be a non-empty array of "
                                     "{\"index\", \"label\"} (e.g. {\"index\": 0, "
                                     "\"label\": \"<5%\"})");
  }
  if (!doc.contains("spot_advisor") || !doc["spot_advisor"].is_object()) {
    return Error::Invalid("/spot_advisor",
                          "spot_advisor must be an object: region -> {\"Linux\": {type: "
                          "{\"s\": savings %, \"r\": range index}}}");
  }
  SpotAdvisorDocument out;
  for (size_t i = 0; i < doc["ranges"].size(); ++i) {
    const nlohmann::json& r = doc["ranges"][i];
    std::string pointer = "/ranges/" + std::to_string(i);
    if (!r.is_object()) return Error::Invalid(pointer, "must be an object {index, label}");
    db::SpotAdvisorRange range;
    range.pointer = pointer;
    if (r.contains("index") && r["index"].is_number_integer()) range.index = r["index"].get<long long>();
    if (r.contains("label") && r["label"].is_string()) range.label = r["label"].get<std::string>();
    out.ranges.push_back(std::move(range));
  }
  for (auto region = doc["spot_advisor"].begin(); region != doc["spot_advisor"].end(); ++region) {
    std::string pointer = "/spot_advisor/" + PointerEscape(region.key());
    if (!region.value().is_object()) {
      return Error::Invalid(pointer, "must be an object of operating systems (\"Linux\")");
    }
    if (!region.value().contains("Linux")) continue;  // Linux entries only
    const nlohmann::json& linux_types = region.value()["Linux"];
    if (!linux_types.is_object()) {
      return Error::Invalid(pointer + "/Linux", "must be an object: instance type -> {s, r}");
    }
    for (auto type = linux_types.begin(); type != linux_types.end(); ++type) {
      db::SpotAdvisorRow row;
      row.region = region.key();
      row.instance_type = type.key();
      row.pointer = pointer + "/Linux/" + PointerEscape(type.key());
      const nlohmann::json& entry = type.value();
      if (entry.is_object()) {
        if (entry.contains("s") && entry["s"].is_number()) row.savings_percent = entry["s"].get<double>();
        if (entry.contains("r") && entry["r"].is_number()) row.range_index = entry["r"].get<double>();
      }
      out.rows.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace

Result<model::GpuSpec> DecodeGpu(const nlohmann::json& body, const std::string& path_id) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  auto g = ReadGpu(r, path_id);
  if (!g) return BodyError(errors);
  return *g;
}

Result<db::InstanceType> DecodeInstanceType(const nlohmann::json& body, const std::string& path_cloud,
                                            const std::string& path_id) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  auto t = ReadType(r, path_cloud, path_id);
  if (!t) return BodyError(errors);
  return *t;
}

DecodedPrices DecodeEveryPrice(const nlohmann::json& body, const std::string& now,
                               size_t max_items) {
  DecodedPrices out;
  if (!body.contains("prices") || !body["prices"].is_array() || body["prices"].empty() ||
      body["prices"].size() > max_items) {
    out.errors.push_back({"/prices", "prices must be an array of 1 to " +
                                         std::to_string(max_items) + " observations"});
    return out;
  }
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (it.key() != "prices") {
      out.errors.push_back({"/" + PointerEscape(it.key()), "unknown field '" + it.key() + "'"});
    }
  }
  for (size_t i = 0; i < body["prices"].size(); ++i) {
    const nlohmann::json& item = body["prices"][i];
    JsonReader r(item, "/prices/" + std::to_string(i), &out.errors);
    if (!item.is_object()) {
      out.errors.push_back({"/prices/" + std::to_string(i), "must be an object"});
      continue;
    }
    if (auto p = ReadPrice(r, now)) {
      out.items.push_back(std::move(*p));
      out.index.push_back(i);
    }
  }
  return out;
}

Result<std::vector<db::PriceObservation>> DecodePrices(const nlohmann::json& body,
                                                       const std::string& now, size_t max_items) {
  DecodedPrices decoded = DecodeEveryPrice(body, now, max_items);
  if (!decoded.errors.empty()) return BodyError(decoded.errors);
  return std::move(decoded.items);
}

namespace {

Status CheckSkypilotCloud(const std::string& cloud) {
  if (cloud.empty()) return Error::Invalid("cloud", "cloud is required for format=skypilot (e.g. azure)");
  if (auto reason = rules::CheckName(cloud)) return Error::Invalid("cloud", "cloud " + *reason);
  return OkStatus();
}

}  // namespace

Result<db::CatalogBatch> ParseSkypilotTable(const ImportRequest& request,
                                            const db::CsvTable& table, db::CatalogStore& store) {
  Status cloud = CheckSkypilotCloud(request.cloud);
  if (!cloud.ok()) return cloud.error();
  auto resolver = store.LoadGpuResolver();
  if (!resolver.ok()) return resolver.error();
  auto rules = db::LoadGcpAttachRules();
  if (!rules.ok()) return rules.error();
  auto sizes = db::LoadPublishedSizes();
  if (!sizes.ok()) return sizes.error();
  db::SkypilotOptions options;
  options.cloud = request.cloud;
  options.sizes = &*sizes;
  options.observed_at = request.observed_at;
  options.source = request.source;
  if (request.cloud == "gcp") options.attach = &*rules;
  return db::ParseSkypilotCatalog(table, options, *resolver);
}

std::string ImportCloud(const std::string& format, const std::string& cloud) {
  return cloud.empty() && format.rfind("aws-", 0) == 0 ? "aws" : cloud;
}

Result<db::CatalogBatch> ParseImport(const ImportRequest& request, const std::string& body,
                                     db::CatalogStore& store) {
  if (request.format == "skypilot") {
    Status cloud = CheckSkypilotCloud(request.cloud);  // before the body, as it always was
    if (!cloud.ok()) return cloud.error();
    auto table = db::ParseCsv(body);
    if (!table.ok()) return table.error();
    return ParseSkypilotTable(request, *table, store);
  }
  if (request.format == "aws-spot-history") {
    auto rows = ReadAwsSpotRows(body);
    if (!rows.ok()) return rows.error();
    return db::ParseAwsSpotHistory(*rows, ImportCloud(request.format, request.cloud),
                                   request.source, store);
  }
  if (request.format == "aws-spot-advisor") {
    auto doc = ReadSpotAdvisor(body);
    if (!doc.ok()) return doc.error();
    return db::ParseSpotAdvisor(doc->ranges, doc->rows, ImportCloud(request.format, request.cloud),
                                request.observed_at,
                                "AWS Spot Instance Advisor data (spot-advisor-data.json), " +
                                    request.source,
                                store);
  }
  if (request.format == "gpuplan") {
    auto batch = ParseNative(body, request.observed_at);
    if (!batch.ok()) return batch.error();
    Status gpus = db::RejectUnknownGpus(*batch, store);
    if (!gpus.ok()) return gpus.error();
    Status currencies = db::RejectUnknownCurrencies(*batch, store);
    if (!currencies.ok()) return currencies.error();
    return batch;
  }
  return Error::Invalid("format",
                        "format must be skypilot, aws-spot-history, aws-spot-advisor or gpuplan");
}

}  // namespace gpuplan::api
