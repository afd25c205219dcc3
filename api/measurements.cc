#include "api/measurements.h"

#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <memory>

#include "api/auth.h"
#include "api/plan_request.h"
#include "api/recommender.h"
#include "db/catalog_writer.h"
#include "db/field_rules.h"
#include "plan/context.h"

namespace gpuplan::api {

namespace {

constexpr size_t kMaxNoteBytes = 2000;

}  // namespace

Result<RecordedRun> DecodeMeasurement(const nlohmann::json& body) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  RecordedRun out;
  auto request = ReadTrainingRequest(r, true, TrainingFields::kMeasuredRun);
  auto measured = r.Object("measured", true);
  double samples_per_s = 0;
  if (measured) {
    std::optional<std::pair<plan::MeasuredUnit, double>> given;
    int count = 0;
    for (const auto& [name, unit] : plan::kMeasuredUnitNames) {
      if (auto v = measured->Number(std::string(name), plan::kMinMeasuredValue,
                                    plan::MaxMeasuredValue(unit))) {
        given = {unit, *v};
        ++count;
      }
    }
    if (count != 1) {
      measured->Fail("samples_per_s",
                     "give exactly one of samples_per_s, tokens_per_s and step_time_s");
    } else if (request) {
      auto [unit, value] = *given;
      out.row.measured_as = std::string(model::EnumName(plan::kMeasuredUnitNames, unit));
      out.row.measured_value = value;
      auto sps = plan::SamplesPerSecond(unit, value, request->workload, request->job.global_batch);
      if (sps.ok()) {
        samples_per_s = *sps;
      } else {
        measured->Fail(out.row.measured_as, sps.error().message);
      }
    }
    measured->Finish();
  }
  if (auto note = r.String("note")) {
    r.Check("note", db::rules::CheckText(*note, kMaxNoteBytes));
    out.row.note = *note;
  }
  out.row.measured_on = r.String("measured_on").value_or(db::FormatUtc(std::time(nullptr), "%Y-%m-%d"));
  if (auto reason = db::rules::CheckTimestamp(out.row.measured_on, std::time(nullptr))) {
    r.Fail("measured_on", "measured_on " + *reason);
  }
  out.row.measured_on = db::rules::CanonicalOrSame(out.row.measured_on);
  out.row.shared = r.Bool("shared").value_or(false);
  r.Finish();
  if (!errors.empty()) return BodyError(errors);
  out.run.workload = request->workload;
  out.run.job = request->job;
  out.run.hardware = request->hardware;
  out.run.samples_per_s = samples_per_s;
  out.row.family = std::string(model::FamilyName(request->workload.family));
  out.row.workload_id = request->workload.id;
  out.row.global_batch = request->job.global_batch;
  out.row.precision = std::string(model::PrecisionName(request->job.precision));
  out.row.framework = std::string(model::FrameworkName(request->job.framework));
  out.row.samples_per_s = samples_per_s;
  out.row.request = body.dump();
  if (request->hardware.from_catalog) {
    out.row.cloud = request->hardware.cloud;
    out.row.instance_type = request->hardware.instance_type;
  }
  return out;
}

Status CheckRun(db::CatalogReader& catalog, RecordedRun& run) {
  plan::PlanContext context(catalog, std::time(nullptr));
  auto p = plan::PredictRun(context.hardware, run.run);
  if (!p.ok()) return p.error();
  run.prediction = *p;
  run.row.gpu_id = p->gpu_id;
  run.row.gpus_per_node = p->gpus_per_node;
  run.row.nodes = p->nodes;
  return OkStatus();
}

bool MeasurementOwner(db::ConnectionPool& pool, const httplib::Request& req,
                      httplib::Response& res, std::optional<long long>& owner) {
  if (!req.has_header("Authorization")) return true;
  auto key = Authorize(pool, req, res, "write");
  if (!key) return false;
  owner = key->id;
  return true;
}

namespace {

// Stored runs read per query while the index is brought up to date.
constexpr int kIndexPageRuns = 1000;

// Adds stored run `m` to `index` as the model predicts it today; a run whose request no
// longer decodes, or whose hardware the catalog or model no longer takes, is left out.
Status AddPredicted(const plan::HardwareResolver& hardware, const db::Measurement& m,
                    plan::MeasuredRunIndex& index) {
  auto body = nlohmann::json::parse(m.request, nullptr, false);
  if (body.is_discarded()) return OkStatus();
  auto decoded = DecodeMeasurement(body);
  if (!decoded.ok()) return OkStatus();
  auto p = plan::PredictRun(hardware, decoded->run);
  if (!p.ok()) return p.error().code == ErrorCode::kUnavailable ? Status(p.error()) : OkStatus();
  double ratio = m.samples_per_s / p->predicted_samples_per_s;
  if (!(ratio > 0) || !std::isfinite(ratio)) return OkStatus();
  index.Add(decoded->run.workload.family, p->gpu_id,
            plan::PredictedRun{m.id, m.owner_key_id, m.shared, ratio});
  return OkStatus();
}

// The planner's index of measured runs, with the stored runs it has read (added or skipped),
// which db::kMaxIndexedRuns bounds.
struct RunIndex {
  plan::MeasuredRunIndex index;
  long long runs_read = 0;
};

// `kept` when it covers the newest run; else a copy with the runs recorded since, or, when
// there is none or it would pass db::kMaxIndexedRuns, one of the newest runs only.
Result<std::shared_ptr<const RunIndex>> UpdatedIndex(db::CachedCatalog& catalog,
                                                     db::Connection& db,
                                                     std::shared_ptr<const RunIndex> kept) {
  auto newest = catalog.NewestMeasurementId();
  if (!newest.ok()) return newest.error();
  if (kept && kept->index.covered_id() >= *newest) return kept;
  db::MeasurementStore store(db);
  std::shared_ptr<RunIndex> index;
  if (kept && kept->runs_read + (*newest - kept->index.covered_id()) <= db::kMaxIndexedRuns) {
    index = std::make_shared<RunIndex>(*kept);
  } else {
    index = std::make_shared<RunIndex>();
    auto after = store.AfterNewest(db::kRunsIndexedAtRebuild);
    if (!after.ok()) return after.error();
    index->index.set_covered_id(*after);
  }
  plan::PlanContext context(catalog, std::time(nullptr));
  db::MeasurementQuery q;
  q.every_owner = true;
  q.after_id = index->index.covered_id();
  q.limit = kIndexPageRuns;
  for (bool more = true; more;) {
    auto rows = store.List(q);
    if (!rows.ok()) return rows.error();
    more = static_cast<int>(rows->size()) == q.limit;
    for (const db::Measurement& m : *rows) {
      if (m.id > *newest) {  // recorded since this request read the catalog: the next update's
        more = false;
        break;
      }
      Status added = AddPredicted(context.hardware, m, index->index);
      if (!added.ok()) return added.error();
      ++index->runs_read;
      q.after_id = m.id;
    }
  }
  index->index.set_covered_id(std::max(*newest, q.after_id));
  return std::shared_ptr<const RunIndex>(std::move(index));
}

}  // namespace

Status AttachMeasurements(db::CachedCatalog& catalog, db::Connection& db,
                          std::optional<long long> owner, plan::TrainingRequest& request) {
  auto state = catalog.Derived<RunIndex>([&](std::shared_ptr<const RunIndex> kept) {
    return UpdatedIndex(catalog, db, std::move(kept));
  });
  if (!state.ok()) return state.error();
  // Shares ownership of the state it points into.
  std::shared_ptr<const plan::MeasuredRunIndex> index(*state, &(*state)->index);
  request.measurements = plan::MeasuredRuns{std::move(index), owner};
  return OkStatus();
}

void WriteMeasurement(JsonWriter& out, const db::Measurement& m,
                      const std::optional<plan::RunPrediction>& prediction) {
  auto text = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional(s); };
  out.BeginObject();
  out.Field("id", m.id);
  out.Field("owner", text(m.owner));
  out.Field("shared", m.shared);
  out.Field("workload", m.workload_id);
  out.Field("family", m.family);
  out.Field("gpu", m.gpu_id);
  out.Field("gpus_per_node", m.gpus_per_node);
  out.Field("nodes", m.nodes);
  out.Field("cloud", text(m.cloud));
  out.Field("instance_type", text(m.instance_type));
  out.Field("global_batch_size", m.global_batch);
  out.Field("precision", m.precision);
  out.Field("framework", m.framework);
  out.Object("measured", [&] { out.Field(m.measured_as, m.measured_value); });
  out.Field("samples_per_s", m.samples_per_s);
  if (prediction) {
    out.Field("predicted_samples_per_s", prediction->predicted_samples_per_s);
    out.Field("measured_over_predicted",
              m.samples_per_s / prediction->predicted_samples_per_s);
  }
  out.Field("note", m.note);
  out.Field("measured_on", m.measured_on);
  out.Field("created_at", m.created_at);
  out.EndObject();
}

}  // namespace gpuplan::api
