#include "api/ownership_json.h"

#include "api/json_reader.h"
#include "api/json_writer.h"
#include "api/plan_request.h"
#include "plan/planner.h"

namespace gpuplan::api {

Result<plan::OwnershipRequest> DecodeOwnershipRequest(const nlohmann::json& body) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  plan::OwnershipRequest q;
  q.gpu = r.String("gpu", true).value_or("");
  q.gpus = static_cast<int>(r.Integer("gpus", 1, model::kMaxGpusPerNode).value_or(1));
  q.purchase_price = r.Number("purchase_price", 0.01, plan::kMaxOwnershipMoney);
  q.host_cost = r.Number("host_cost", 0, plan::kMaxOwnershipMoney);
  q.power_watts = r.Number("power_watts", 0.1, plan::kMaxOwnershipWatts);
  q.host_power_watts = r.Number("host_power_watts", 0, plan::kMaxOwnershipWatts);
  q.electricity_price_per_kwh =
      r.Number("electricity_price_per_kwh", 0, plan::kMaxElectricityPerKwh);
  q.utilisation = r.Number("utilisation", 0.001, 1);
  q.years = r.Number("years", 0.01, plan::kMaxOwnershipYears);
  q.resale_fraction = r.Number("resale_fraction", 0, 1);
  q.maintenance_per_year = r.Number("maintenance_per_year", 0, plan::kMaxOwnershipMoney);
  if (auto v = r.String("currency")) q.currency = *v;
  if (auto training = r.Object("training")) {
    // The owned machine is the hardware and the top-level currency the currency.
    for (const char* key : {"hardware", "currency"}) {
      if (training->Has(key)) {
        training->Fail(key, std::string(key) + " does not apply here: the owned GPUs are the "
                            "hardware, and the request's currency is the currency");
      }
    }
    q.training = ReadTrainingRequest(*training, false);
    training->Finish();
  }
  r.Finish();
  if (!errors.empty()) return BodyError(errors);
  return q;
}

namespace {

double Money(double v) { return plan::RoundMoney(v); }

void WriteComparison(JsonWriter& out, const plan::RentComparison& c) {
  out.BeginObject();
  out.Field("basis", c.basis == plan::OwnershipBasis::kSameGpu ? "same_gpu" : "same_work");
  out.Field("price_kind", model::PriceKindName(c.kind));
  out.Field("found", c.found);
  out.Field("note", c.note);
  if (c.found) {
    out.Field("cloud", c.offer.instance.cloud);
    out.Field("region", c.offer.region);
    out.Field("instance_type", c.offer.instance.id);
    out.Field("gpu", c.gpu);
    out.Field("gpus_per_instance", c.offer.instance.gpu_count);
    out.Field("instances", c.nodes);
    out.Field("total_gpus", c.total_gpus);
    out.Field("price_per_hour", Money(c.price_per_hour));
    out.Field("price_per_gpu_hour", Money(c.price_per_gpu_hour));
    out.Field("hours_per_job", c.hours_per_job);
    out.Field("rent_per_month", Money(c.rent_per_month));
    out.Field("savings_per_month", Money(c.savings_per_month));
    out.Field("break_even_months", c.break_even_months);
  } else {
    for (JsonKey key : {JsonKey("cloud"), JsonKey("region"), JsonKey("instance_type"),
                        JsonKey("gpu"), JsonKey("gpus_per_instance"), JsonKey("instances"),
                        JsonKey("total_gpus"), JsonKey("price_per_hour"),
                        JsonKey("price_per_gpu_hour"), JsonKey("hours_per_job"),
                        JsonKey("rent_per_month"), JsonKey("savings_per_month"),
                        JsonKey("break_even_months")}) {
      out.Field(key, nullptr);
    }
  }
  out.EndObject();
}

}  // namespace

std::string OwnershipPlanJson(const plan::OwnershipPlan& p) {
  JsonWriter out;
  out.BeginObject();
  out.Field("gpu", p.gpu);
  out.Field("gpu_name", p.gpu_name);
  out.Field("gpus", p.gpus);
  out.Field("currency", p.currency);
  out.Object("inputs", [&] {
    out.Field("purchase_price", Money(p.purchase_price));
    out.Field("host_cost", Money(p.host_cost));
    out.Field("power_watts", p.power_watts);
    out.Field("host_power_watts", p.host_power_watts);
    out.Field("electricity_price_per_kwh", Money(p.electricity_price_per_kwh));
    out.Field("utilisation", p.utilisation);
    out.Field("years", p.years);
    out.Field("resale_fraction", p.resale_fraction);
    out.Field("maintenance_per_year", Money(p.maintenance_per_year));
  });
  out.Field("capital", Money(p.capital));
  out.Field("hours_used_per_month", p.hours_used_per_month);
  out.Object("per_month", [&] {
    out.Field("capital", Money(p.capital_per_month));
    out.Field("power", Money(p.power_per_month));
    out.Field("maintenance", Money(p.maintenance_per_month));
    out.Field("running", Money(p.running_per_month));
    out.Field("total", Money(p.total_per_month));
  });
  out.Field("cost_per_gpu_hour", Money(p.cost_per_gpu_hour));
  out.Object("cost_per_gpu_hour_parts", [&] {
    out.Field("capital", Money(p.capital_per_gpu_hour));
    out.Field("power", Money(p.power_per_gpu_hour));
    out.Field("maintenance", Money(p.maintenance_per_gpu_hour));
  });
  out.Key("training");
  if (p.training) {
    const plan::OwnedTraining& t = *p.training;
    out.BeginObject();
    out.Field("workload", t.workload);
    out.Field("precision", model::PrecisionName(t.precision));
    out.Field("samples_per_s", t.samples_per_s);
    out.Field("tokens_per_s", t.tokens_per_s > 0 ? std::optional(t.tokens_per_s) : std::nullopt);
    out.Field("hours_per_job", t.hours_per_job);
    out.Field("jobs_per_month", t.jobs_per_month);
    out.EndObject();
  } else {
    out.Null();
  }
  out.Key("comparisons");
  out.BeginArray();
  for (const plan::RentComparison& c : p.comparisons) WriteComparison(out, c);
  out.EndArray();
  out.Field("assumptions", p.assumptions);
  out.Field("warnings", p.warnings);
  out.EndObject();
  return out.Take();
}

}  // namespace gpuplan::api
