// Catalog writes (API key), bulk import and export, spot price history.
#include <httplib.h>

#include <algorithm>
#include <ctime>
#include <set>

#include "api/auth.h"
#include "api/body.h"
#include "api/catalog_export_writer.h"
#include "api/catalog_io.h"
#include "api/catalog_requests.h"
#include "api/cursor.h"
#include "api/http_util.h"
#include "api/metrics.h"
#include "api/json_reader.h"
#include "api/query_params.h"
#include "api/route_table.h"
#include "api/routes.h"
#include "db/catalog_admin.h"
#include "db/catalog_export.h"
#include "db/catalog_import.h"
#include "db/catalog_store.h"
#include "db/catalog_writer.h"
#include "db/database.h"
#include "db/field_rules.h"

namespace gpuplan::api {

namespace {

inline constexpr size_t kMaxPricesPerRequest = 10000;

void Created(httplib::Response& res, const std::string& location, const nlohmann::json& body) {
  res.set_header("Location", location);
  WriteJson(res, body, 201);
}

void PostGpu(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorize(*ctx.pool, req, res, "admin")) return;
  auto body = ReadJsonBody(req, res);
  if (!body) return;
  auto gpu = DecodeGpu(*body, "");
  if (!gpu.ok()) return WriteError(req, res, gpu.error());
  auto lease = ctx.pool->Acquire();
  Status st = db::CatalogAdmin(*lease).CreateGpu(*gpu);
  if (!st.ok()) return WriteError(req, res, st.error());
  Created(res, "/api/v1/gpus/" + PercentEncode(gpu->id), {{"id", gpu->id}, {"created", true}});
}

void PutGpu(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorize(*ctx.pool, req, res, "admin")) return;
  auto body = ReadJsonBody(req, res);
  if (!body) return;
  auto gpu = DecodeGpu(*body, req.matches[1]);
  if (!gpu.ok()) return WriteError(req, res, gpu.error());
  auto lease = ctx.pool->Acquire();
  auto created = db::CatalogAdmin(*lease).PutGpu(*gpu);
  if (!created.ok()) return WriteError(req, res, created.error());
  if (*created) {
    return Created(res, "/api/v1/gpus/" + PercentEncode(gpu->id), {{"id", gpu->id}, {"created", true}});
  }
  WriteJson(res, {{"id", gpu->id}, {"created", false}});
}

void DeleteGpu(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorize(*ctx.pool, req, res, "admin")) return;
  auto lease = ctx.pool->Acquire();
  Status st = db::CatalogAdmin(*lease).DeleteGpu(req.matches[1]);
  if (!st.ok()) return WriteError(req, res, st.error());
  res.status = 204;
}

void PostInstance(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorize(*ctx.pool, req, res, "write")) return;
  auto body = ReadJsonBody(req, res);
  if (!body) return;
  auto type = DecodeInstanceType(*body, "", "");
  if (!type.ok()) return WriteError(req, res, type.error());
  auto lease = ctx.pool->Acquire();
  Status st = db::CatalogAdmin(*lease).CreateInstanceType(*type);
  if (!st.ok()) return WriteError(req, res, st.error());
  Created(res, "/api/v1/instances/" + PercentEncode(type->cloud) + "/" + PercentEncode(type->id),
          {{"cloud", type->cloud}, {"instance_type", type->id}, {"created", true}});
}

void PutInstance(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorize(*ctx.pool, req, res, "write")) return;
  auto body = ReadJsonBody(req, res);
  if (!body) return;
  auto type = DecodeInstanceType(*body, req.matches[1], req.matches[2]);
  if (!type.ok()) return WriteError(req, res, type.error());
  auto lease = ctx.pool->Acquire();
  auto created = db::CatalogAdmin(*lease).PutInstanceType(*type);
  if (!created.ok()) return WriteError(req, res, created.error());
  nlohmann::json out = {{"cloud", type->cloud}, {"instance_type", type->id}, {"created", *created}};
  if (*created) {
    return Created(res, "/api/v1/instances/" + PercentEncode(type->cloud) + "/" +
                            PercentEncode(type->id), out);
  }
  WriteJson(res, out);
}

void DeleteInstance(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorize(*ctx.pool, req, res, "write")) return;
  auto lease = ctx.pool->Acquire();
  Status st = db::CatalogAdmin(*lease).DeleteInstanceType(req.matches[1], req.matches[2]);
  if (!st.ok()) return WriteError(req, res, st.error());
  res.status = 204;
}

void PostPrices(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorize(*ctx.pool, req, res, "write")) return;
  auto body = ReadJsonBody(req, res, kLargeBodyLimit);
  if (!body) return;
  DecodedPrices prices = DecodeEveryPrice(*body, db::UtcNow(), kMaxPricesPerRequest);
  auto lease = ctx.pool->Acquire();
  db::CatalogAdmin admin(*lease);
  if (!prices.errors.empty()) {
    // Every problem at once: the items that decoded are checked against the catalog too.
    std::vector<FieldError> errors = prices.errors;
    for (FieldError& e : admin.PriceReferenceErrors(prices.items, prices.index)) {
      errors.push_back(std::move(e));
    }
    return WriteError(req, res, BodyError(errors));
  }
  auto counts = admin.AddPrices(prices.items);
  if (!counts.ok()) return WriteError(req, res, counts.error());
  WriteJson(res, {{"accepted", prices.items.size()}, {"inserted", counts->inserted},
                  {"updated", counts->updated}},
            201);
}

void PostImport(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  // Who asks comes before what is asked: anonymous callers learn nothing of the rules.
  auto key = Authorize(*ctx.pool, req, res, "write");
  if (!key) return;
  QueryParams q(req.params, {"format", "cloud", "dry_run", "partial", "observed_at"});
  ImportRequest import;
  import.format =
      q.Choice("format", {"skypilot", "aws-spot-history", "aws-spot-advisor", "gpuplan"}, "");
  if (import.format.empty() && q.ok()) {
    q.Fail("format", "format is required: skypilot, aws-spot-history, aws-spot-advisor or gpuplan");
  }
  import.cloud = q.String("cloud");
  bool dry_run = q.Choice("dry_run", {"true", "false"}, "false") == "true";
  bool partial = q.Choice("partial", {"true", "false"}, "false") == "true";
  import.observed_at = q.String("observed_at", db::UtcNow());
  if (auto reason = db::rules::CheckTimestamp(import.observed_at, std::time(nullptr))) {
    q.Fail("observed_at", "observed_at " + *reason);
  }
  import.observed_at = db::rules::CanonicalOrSame(import.observed_at);
  if (!q.ok()) return WriteError(req, res, q.error());
  if (import.format == "gpuplan" && key->scope != "admin") {
    return WriteProblem(req, res, 403, "API key '" + key->name + "' has scope " + key->scope +
                                           "; a gpuplan-format import needs admin");
  }
  if (req.body.size() > kImportBodyLimit) {
    return WriteProblem(req, res, 413, "import bodies are limited to 20 MiB");
  }
  import.source = "import by " + key->name + " at " + db::UtcNow();
  auto count = [&](const char* outcome) {
    ctx.metrics->ImportFinished(import.format, outcome);
  };
  auto lease = ctx.pool->Acquire();
  db::CatalogStore store(*lease);
  auto batch = ParseImport(import, req.body, store);
  if (!batch.ok()) {
    count("refused");
    return WriteError(req, res, batch.error());
  }
  db::ImportOptions options{key->name, import.format,
                            ImportCloud(import.format, import.cloud),
                            dry_run, partial};
  // The answer is rendered before the commit, so nothing that runs after it can fail.
  std::string answer;
  auto outcome = db::ImportCatalog(*lease, *batch, options, [&](const db::ImportOutcome& o) {
    answer = EncodeJson(ImportReportJson(o, options));
  });
  if (!outcome.ok()) {
    count("refused");
    return WriteError(req, res, outcome.error());
  }
  count(outcome->written ? "written" : dry_run ? "dry_run" : "refused");
  res.status = outcome->written ? 201 : 200;
  res.set_content(answer, "application/json");
}

void GetExport(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {"format"});
  std::string format = q.Choice("format", {"json", "csv"}, "json");
  if (!q.ok()) return WriteError(req, res, q.error());
  // One slot of the export limit, given back when the transfer ends (or never starts).
  struct Slot {
    std::shared_ptr<std::atomic<int>> counter;
    ~Slot() {
      if (counter) --*counter;
    }
  };
  Slot slot;
  if (++*ctx.exports_in_flight > ctx.max_concurrent_exports) {
    --*ctx.exports_in_flight;
    return WriteError(req, res,
                      Error::Unavailable("too many exports are running; try again shortly"));
  }
  slot.counter = ctx.exports_in_flight;
  // The stream owns the connection and the snapshot until the response is destroyed.
  struct Stream {
    explicit Stream(db::ConnectionPool::Lease l) : lease(std::move(l)) {}
    Slot slot;
    db::ConnectionPool::Lease lease;
    std::unique_ptr<ExportWriter> writer;  // destroyed first: it reads through `lease`
  };
  auto stream = std::make_shared<Stream>(ctx.pool->Acquire());
  std::swap(stream->slot.counter, slot.counter);
  auto snapshot = db::CatalogSnapshot::Open(*stream->lease);
  if (!snapshot.ok()) return WriteError(req, res, snapshot.error());
  bool csv = format == "csv";
  auto writer = ExportWriter::Start(std::move(snapshot).value(),
                                    csv ? CatalogExportFormat::kCsv : CatalogExportFormat::kJson,
                                    db::UtcNow());
  if (!writer.ok()) return WriteError(req, res, writer.error());
  stream->writer = std::move(writer).value();
  if (csv) res.set_header("Content-Disposition", "attachment; filename=\"gpuplan-prices.csv\"");
  res.set_chunked_content_provider(
      csv ? "text/csv; charset=utf-8" : "application/json",
      [stream](size_t, httplib::DataSink& sink) {
        try {
          std::string piece;
          if (stream->writer->Next(piece)) return sink.write(piece.data(), piece.size());
          sink.done();
          return true;
        } catch (...) {
          return false;  // the transfer is cut short; the client sees an incomplete body
        }
      },
      [stream](bool) mutable { stream.reset(); });
}

void ListFxRates(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {});
  if (!q.ok()) return WriteError(req, res, q.error());
  auto lease = ctx.pool->Acquire();
  auto rates = db::CatalogStore(*lease).FxRates();
  if (!rates.ok()) return WriteError(req, res, rates.error());
  nlohmann::json items = nlohmann::json::array();
  for (const auto& [currency, r] : *rates) {
    items.push_back({{"currency", currency}, {"units_per_usd", r.units_per_usd},
                     {"as_of", r.as_of}, {"source", r.source}});
  }
  WriteJson(res, ListJson(std::move(items)));
}

// PUT /api/v1/fx-rates/{currency} {"units_per_usd": 7.1, "as_of": "2026-11-01", "source": ...}
void PutFxRate(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorize(*ctx.pool, req, res, "admin")) return;
  auto body = ReadJsonBody(req, res);
  if (!body) return;
  std::vector<FieldError> errors;
  JsonReader r(*body, "", &errors);
  db::FxRate rate;
  rate.currency = req.matches[1];
  rate.units_per_usd = r.Number("units_per_usd", 1e-9, 1e9, true).value_or(0);
  rate.as_of = r.String("as_of", true).value_or("");
  rate.source = r.String("source").value_or("");
  r.Finish();
  if (auto why = db::rules::CheckCurrency(rate.currency)) {
    errors.push_back({"currency", "the currency in the URL " + *why});
  }
  if (rate.currency == "USD" && rate.units_per_usd != 1) {
    errors.push_back({"/units_per_usd", "USD is the base: its rate is 1"});
  }
  if (body->contains("as_of")) {
    if (auto why = db::rules::CheckTimestamp(rate.as_of, std::time(nullptr))) {
      errors.push_back({"/as_of", "as_of " + *why});
    }
    rate.as_of = db::rules::CanonicalOrSame(rate.as_of);
  }
  if (!errors.empty()) return WriteError(req, res, BodyError(errors));
  auto lease = ctx.pool->Acquire();
  auto rates = db::CatalogStore(*lease).FxRates();
  if (!rates.ok()) return WriteError(req, res, rates.error());
  bool created = !rates->count(rate.currency);
  Status st = db::CatalogAdmin(*lease).PutFxRate(rate);
  if (!st.ok()) return WriteError(req, res, st.error());
  nlohmann::json out = {{"currency", rate.currency}, {"units_per_usd", rate.units_per_usd},
                        {"as_of", rate.as_of}, {"created", created}};
  if (created) return Created(res, "/api/v1/fx-rates/" + rate.currency, out);
  WriteJson(res, out);
}

void GetSpotHistory(const ApiContext& ctx, const httplib::Request& req, httplib::Response& res) {
  QueryParams q(req.params, {"cloud", "instance_type", "region", "zone", "since", "until", "limit", "cursor"});
  auto read = ReadSpotHistoryQuery(q);
  if (!read.ok()) return WriteError(req, res, read.error());
  db::CatalogStore::SpotQuery& query = read->query;
  auto lease = ctx.pool->Acquire();
  db::CatalogStore store(*lease);
  ++query.limit;  // one more tells whether a next page exists
  auto rows = store.SpotHistory(query);
  if (!rows.ok()) return WriteError(req, res, rows.error());
  bool more = static_cast<int>(rows->size()) == query.limit;
  if (more) rows->pop_back();
  nlohmann::json items = nlohmann::json::array();
  std::set<std::string> zone_kinds;
  for (const auto& p : *rows) {
    std::string kind = db::AwsZoneKind(p.zone);
    if (query.cloud == "aws" && !kind.empty()) zone_kinds.insert(kind);
    items.push_back({{"region", p.region}, {"zone", p.zone.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.zone)},
                     {"zone_kind", query.cloud == "aws" && !kind.empty() ? nlohmann::json(kind) : nlohmann::json(nullptr)},
                     {"price_per_hour", p.price_per_hour}, {"currency", p.currency},
                     {"observed_at", p.observed_at}, {"source", p.source}});
  }
  nlohmann::json next = nullptr;
  if (more && !rows->empty()) {
    const auto& last = rows->back();
    next = EncodePosition({std::nullopt, {last.observed_at, last.zone, last.region}},
                          read->fingerprint);
  }
  nlohmann::json answer = {{"cloud", query.cloud}, {"instance_type", query.instance_type},
                           {"items", std::move(items)}, {"next_cursor", next}};
  if (zone_kinds.size() > 1) {
    answer["warnings"] = {"this series mixes AWS zone ids (use1-az1, from SkyPilot catalogs) and "
                          "zone names (us-east-1a, from describe-spot-price-history): each "
                          "account maps names to ids differently, so the two cannot be matched"};
  }
  WriteJson(res, answer);
}

}  // namespace

void RegisterCatalogWriteRoutes(RouteTable& routes, const ApiContext& context) {
  routes.Post("/api/v1/gpus", Bind(context, PostGpu));
  routes.Put("/api/v1/gpus/{id}", Bind(context, PutGpu));
  routes.Delete("/api/v1/gpus/{id}", Bind(context, DeleteGpu));
  routes.Post("/api/v1/instances", Bind(context, PostInstance));
  routes.Put("/api/v1/instances/{cloud}/{instance_type}", Bind(context, PutInstance));
  routes.Delete("/api/v1/instances/{cloud}/{instance_type}", Bind(context, DeleteInstance));
  routes.Post("/api/v1/prices", Bind(context, PostPrices));
  routes.Post("/api/v1/catalog/import", Bind(context, PostImport));
  routes.Get("/api/v1/catalog/export", Bind(context, GetExport));
  routes.Get("/api/v1/prices/spot-history", Bind(context, GetSpotHistory));
  routes.Get("/api/v1/fx-rates", Bind(context, ListFxRates));
  routes.Put("/api/v1/fx-rates/{currency}", Bind(context, PutFxRate));
}

}  // namespace gpuplan::api
