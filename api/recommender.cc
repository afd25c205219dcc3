#include "api/recommender.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "api/catalog_json.h"
#include "api/deadline.h"
#include "api/model_json.h"
#include "api/plan_service.h"
#include "model/inference.h"
#include "model/training.h"

namespace gpuplan::api {

namespace {

struct Constraints {
  std::set<std::string> clouds, regions, gpus;
  // As sent, in order: what CheckConstraintNames points at.
  std::vector<std::string> cloud_names, region_names, gpu_names;
  int max_nodes = 4;
  std::optional<double> deadline_hours, budget;
  bool ondemand = true, spot = true;
  bool price_kinds_given = false;
  double min_gpu_memory_gb = 0;
};

struct Candidate {
  const db::Offer* offer = nullptr;
  int nodes = 1;
  bool spot = false;
  double price_per_hour = 0;  // per instance, request currency
  double hours = 0;           // wall hours (training) or latency in s (inference)
  double cost = 0;            // total (training) or per hour (inference)
  double score = 0;
  nlohmann::json detail;
  std::string why;
};

std::optional<Constraints> ReadConstraints(JsonReader& parent, bool training) {
  Constraints c;
  auto r = parent.Object("constraints");
  if (!r) return c;
  if (!training && r->Has("deadline_hours")) {
    r->Fail("deadline_hours", "deadline_hours applies to training; an inference "
                              "recommendation takes latency_slo_ms and budget (per month)");
  }
  auto set = [&](const char* key, std::set<std::string>& out, std::vector<std::string>& names) {
    if (auto v = r->Strings(key, 200)) {
      out.insert(v->begin(), v->end());
      names = *v;
    }
  };
  set("clouds", c.clouds, c.cloud_names);
  set("regions", c.regions, c.region_names);
  set("gpus", c.gpus, c.gpu_names);
  if (auto v = r->Integer("max_nodes", 1, 64)) c.max_nodes = static_cast<int>(*v);
  c.deadline_hours = r->Number("deadline_hours", 0.001, 1e7);
  c.budget = r->Number("budget", 0, 1e12);
  if (auto v = r->Number("min_gpu_memory_gb", 0, 1e4)) c.min_gpu_memory_gb = *v;
  if (auto kinds = r->Strings("price_kinds", 2)) {
    c.price_kinds_given = true;
    c.ondemand = c.spot = false;
    for (const auto& k : *kinds) {
      if (k == "ondemand") {
        c.ondemand = true;
      } else if (k == "spot") {
        c.spot = true;
      } else {
        r->Fail("price_kinds", "price_kinds items must be ondemand or spot, got '" + k + "'");
      }
    }
  }
  r->Finish();
  return c;
}

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return text;
}

// `gpu` is one of `wanted`: the id itself or a family prefix ("A100" matches
// "A100-80GB-SXM4"), case-insensitive.
bool GpuMatches(const std::set<std::string>& wanted, const std::string& gpu) {
  if (wanted.empty()) return true;
  std::string id = Lower(gpu);
  for (const std::string& w : wanted) {
    std::string want = Lower(w);
    if (id == want || id.rfind(want + "-", 0) == 0) return true;
  }
  return false;
}

// Every cloud, region and GPU a constraint names must exist in the catalog: a typo
// ("H10O", "AWS") is a 422 naming the item, not an empty answer. Clouds and regions are ids
// (lower case); GPUs match as GpuMatches does.
Status CheckConstraintNames(db::CatalogStore& store, const Constraints& c) {
  const std::vector<std::string>& clouds_in_order = c.cloud_names;
  const std::vector<std::string>& regions_in_order = c.region_names;
  const std::vector<std::string>& gpus_in_order = c.gpu_names;
  std::vector<FieldError> errors;
  auto clouds = store.ListClouds();
  if (!clouds.ok()) return clouds.error();
  std::set<std::string> known_clouds;
  for (const auto& cloud : *clouds) known_clouds.insert(cloud.cloud.id);
  for (size_t i = 0; i < clouds_in_order.size(); ++i) {
    if (!known_clouds.count(clouds_in_order[i])) {
      errors.push_back({"/constraints/clouds/" + std::to_string(i),
                        "unknown cloud (ids are lower case; see GET /api/v1/clouds)"});
    }
  }
  auto regions = store.ListRegions("");
  if (!regions.ok()) return regions.error();
  std::set<std::string> known_regions;
  for (const auto& region : *regions) known_regions.insert(region.id);
  for (size_t i = 0; i < regions_in_order.size(); ++i) {
    if (!known_regions.count(regions_in_order[i])) {
      errors.push_back({"/constraints/regions/" + std::to_string(i),
                        "unknown region (see GET /api/v1/regions)"});
    }
  }
  auto gpus = store.ListGpus();
  if (!gpus.ok()) return gpus.error();
  for (size_t i = 0; i < gpus_in_order.size(); ++i) {
    bool known = false;
    for (const auto& g : *gpus) known = known || GpuMatches({gpus_in_order[i]}, g.id);
    if (!known) {
      errors.push_back({"/constraints/gpus/" + std::to_string(i),
                        "no catalog GPU is or starts with this name (see GET /api/v1/gpus)"});
    }
  }
  if (!errors.empty()) return BodyError(errors);
  return OkStatus();
}

// Ranks feasible candidates and builds the answer.
nlohmann::json Answer(std::vector<Candidate> feasible, const std::string& objective, int limit,
                      int considered, const std::map<std::string, int>& rejected,
                      const std::string& currency, const char* hours_name,
                      const char* cost_name) {
  double min_cost = INFINITY, min_hours = INFINITY;
  for (const auto& c : feasible) {
    min_cost = std::min(min_cost, c.cost);
    min_hours = std::min(min_hours, c.hours);
  }
  for (auto& c : feasible) {
    if (objective == "cost") {
      c.score = c.cost + c.hours * 1e-9;
    } else if (objective == "time") {
      c.score = c.hours + c.cost * 1e-12;
    } else {  // balanced: product of the ratios to the best of each
      c.score = (c.cost / std::max(min_cost, 1e-12)) * (c.hours / std::max(min_hours, 1e-12));
    }
  }
  std::stable_sort(feasible.begin(), feasible.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  // Pareto front: by time, keep each option that is cheaper than every faster one.
  std::vector<const Candidate*> by_time;
  for (const auto& c : feasible) by_time.push_back(&c);
  std::stable_sort(by_time.begin(), by_time.end(), [](const Candidate* a, const Candidate* b) {
    return a->hours < b->hours || (a->hours == b->hours && a->cost < b->cost);
  });
  auto item = [&](const Candidate& c, int rank) {
    nlohmann::json j = {{"rank", rank},
                        {"cloud", c.offer->instance.cloud},
                        {"region", c.offer->region},
                        {"instance_type", c.offer->instance.id},
                        {"gpu", c.offer->instance.gpu_id},
                        {"gpus_per_instance", c.offer->instance.gpu_count},
                        {"nodes", c.nodes},
                        {"total_gpus", c.nodes * c.offer->instance.gpu_count},
                        {"price_kind", c.spot ? "spot" : "ondemand"},
                        {"price_per_hour", RoundMoney(c.price_per_hour)},
                        {hours_name, c.hours},
                        {cost_name, RoundMoney(c.cost)},
                        {"currency", currency},
                        {"why", c.why}};
    j.update(c.detail);
    return j;
  };
  nlohmann::json items = nlohmann::json::array(), front = nlohmann::json::array();
  for (int i = 0; i < static_cast<int>(feasible.size()) && i < limit; ++i) {
    items.push_back(item(feasible[i], i + 1));
  }
  double best_cost = INFINITY;
  for (const Candidate* c : by_time) {
    if (c->cost < best_cost) {
      best_cost = c->cost;
      nlohmann::json p = item(*c, 0);
      p.erase("rank");
      front.push_back(std::move(p));
    }
  }
  return {{"objective", objective},
          {"currency", currency},
          {"items", std::move(items)},
          {"pareto_front", std::move(front)},
          {"considered", considered},
          {"feasible", feasible.size()},
          {"rejected", rejected},
          {"model_version", kModelVersion}};
}

std::string Fmt(const char* format, double v) {
  char b[64];
  std::snprintf(b, sizeof(b), format, v);
  return b;
}

// The price of one option (offer x price kind): nullopt when the kind is not allowed, or
// when it is not offered (then counted as considered and rejected for no_price).
std::optional<double> OptionPrice(bool spot, const PriceQuote& quote, const Constraints& cons,
                                  int& considered, std::map<std::string, int>& rejected) {
  if (spot ? !cons.spot : !cons.ondemand) return std::nullopt;
  ++considered;
  const auto& price = spot ? quote.spot : quote.ondemand;
  if (!price) ++rejected["no_price"];
  return price;
}

struct CandidateStats {
  int matched = 0;      // offers that match the constraints
  int unsupported = 0;  // of those, skipped: more GPUs per node than the model covers
};

Result<std::vector<db::Offer>> CandidateOffers(db::CatalogStore& store, const Constraints& c,
                                               CandidateStats& stats) {
  db::OfferFilter filter;
  filter.min_gpu_memory_gb = c.min_gpu_memory_gb > 0 ? std::optional(c.min_gpu_memory_gb)
                                                     : std::nullopt;
  auto offers = store.ListOffers(filter);
  if (!offers.ok()) return offers.error();
  std::vector<db::Offer> out;
  for (auto& o : *offers) {
    if (!c.clouds.empty() && !c.clouds.count(o.instance.cloud)) continue;
    if (!c.regions.empty() && !c.regions.count(o.region)) continue;
    if (!GpuMatches(c.gpus, o.instance.gpu_id)) continue;
    ++stats.matched;
    // Nodes larger than the model covers (catalog counts go to 1024) are skipped, not errors.
    if (o.instance.gpu_count < 1 || o.instance.gpu_count > model::kMaxGpusPerNode) {
      ++stats.unsupported;
      continue;
    }
    out.push_back(std::move(o));
  }
  return out;
}

Result<nlohmann::json> RecommendTraining(db::CatalogStore& store, PlanService& plan,
                                         const TrainingRequest& request, const Constraints& cons,
                                         const std::string& objective, int limit) {
  CandidateStats stats;
  auto offers = CandidateOffers(store, cons, stats);
  if (!offers.ok()) return offers.error();
  std::map<std::string, model::GpuSpec> gpus;
  std::map<std::pair<std::string, int>, Result<model::TrainingEstimate>> cache;
  std::map<std::string, int> rejected = {{"does_not_fit", 0},
                                         {"precision_unsupported", 0},
                                         {"batch_too_small", 0},
                                         {"node_too_large", stats.unsupported},
                                         {"over_deadline", 0},
                                         {"over_budget", 0},
                                         {"no_price", 0}};
  std::vector<Candidate> feasible;
  int considered = 0;
  for (const db::Offer& offer : *offers) {
    CheckDeadline();
    if (!gpus.count(offer.instance.gpu_id)) {
      auto g = store.GetGpu(offer.instance.gpu_id);
      if (!g.ok()) return g.error();
      gpus.emplace(offer.instance.gpu_id, *g);
    }
    auto quote = plan.Quote(offer);
    if (!quote.ok()) return quote.error();
    for (int nodes = 1; nodes <= cons.max_nodes; nodes *= 2) {
      std::string key = offer.instance.cloud + "/" + offer.instance.id;
      auto it = cache.find({key, nodes});
      if (it == cache.end()) {
        model::Cluster cluster;
        cluster.node = NodeFromInstance(offer.instance, gpus.at(offer.instance.gpu_id));
        cluster.nodes = nodes;
        it = cache.emplace(std::make_pair(key, nodes),
                           model::EstimateTraining(request.workload, request.job, cluster,
                                                   model::DefaultConstants(), false))
                 .first;
      }
      for (bool spot : {false, true}) {
        auto price = OptionPrice(spot, *quote, cons, considered, rejected);
        if (!price) continue;
        const auto& estimate = it->second;
        if (!estimate.ok()) {
          if (estimate.error().code == ErrorCode::kInvalidArgument &&
              !estimate.error().fields.empty() &&
              estimate.error().fields[0].field == "/precision") {
            ++rejected["precision_unsupported"];
            continue;
          }
          if (estimate.error().fields.empty() ||
              estimate.error().fields[0].field != "/global_batch_size") {
            return estimate.error();
          }
          ++rejected["batch_too_small"];  // fewer samples per step than GPUs
          continue;
        }
        if (estimate->memory.verdict == model::FitVerdict::kDoesNotFit) {
          ++rejected["does_not_fit"];
          continue;
        }
        Candidate c;
        c.offer = &offer;
        c.nodes = nodes;
        c.spot = spot;
        c.price_per_hour = *price;
        nlohmann::json cost = plan.TrainingCost(*estimate, request.workload, nodes, *quote,
                                                request.pricing);
        if (spot) {
          const auto& s = cost["spot"];
          if (s.is_null() || !s["viable"].get<bool>()) {
            ++rejected["no_price"];
            continue;
          }
          c.hours = s["wall_hours"].get<double>();
          c.cost = s["expected_total"].get<double>();
        } else {
          c.hours = estimate->total_hours;
          c.cost = *price * nodes * estimate->total_hours;
        }
        if (cons.deadline_hours && c.hours > *cons.deadline_hours) {
          ++rejected["over_deadline"];
          continue;
        }
        if (cons.budget && c.cost > *cons.budget) {
          ++rejected["over_budget"];
          continue;
        }
        c.detail = {{"throughput", {{"samples_per_s", estimate->samples_per_s},
                                    {"tokens_per_s", estimate->tokens_per_s > 0
                                                         ? nlohmann::json(estimate->tokens_per_s)
                                                         : nullptr}}},
                    {"mfu", estimate->mfu},
                    {"bottleneck", estimate->step.bottleneck},
                    {"memory_verdict", model::VerdictName(estimate->memory.verdict)},
                    {"layout", LayoutJson(estimate->layout)},
                    {"p90_hours", spot ? nlohmann::json(nullptr)
                                       : nlohmann::json(estimate->p90_hours)}};
        c.why = std::to_string(nodes * offer.instance.gpu_count) + "x " + offer.instance.gpu_id +
                (spot ? " on spot" : " on demand") + ", " + Fmt("%.1f h", c.hours) +
                ", bottleneck " + estimate->step.bottleneck + ", MFU " +
                Fmt("%.2f", estimate->mfu);
        feasible.push_back(std::move(c));
      }
    }
  }
  return Answer(std::move(feasible), objective, limit, considered, rejected,
                request.currency, "hours", "cost");
}

Result<nlohmann::json> RecommendInference(db::CatalogStore& store, PlanService& plan,
                                          const InferenceRequest& request,
                                          Constraints cons, const std::string& objective,
                                          int limit) {
  std::vector<std::string> assumptions;
  if (!cons.price_kinds_given) {
    cons.spot = false;
    assumptions.push_back("on-demand prices only: a serving fleet runs around the clock and "
                          "spot capacity can be reclaimed; ask price_kinds [\"spot\"] to see "
                          "spot options");
  }
  CandidateStats stats;
  auto offers = CandidateOffers(store, cons, stats);
  if (!offers.ok()) return offers.error();
  std::map<std::string, int> rejected = {{"does_not_fit", 0},
                                         {"precision_unsupported", 0},
                                         {"node_too_large", stats.unsupported},
                                         {"slo_not_met", 0},
                                         {"over_budget", 0},
                                         {"no_price", 0}};
  std::map<std::string, Result<model::ServingEstimate>> cache;
  std::vector<Candidate> feasible;
  int considered = 0;
  for (const db::Offer& offer : *offers) {
    CheckDeadline();
    std::string key = offer.instance.cloud + "/" + offer.instance.id;
    auto it = cache.find(key);
    if (it == cache.end()) {
      auto g = store.GetGpu(offer.instance.gpu_id);
      if (!g.ok()) return g.error();
      it = cache.emplace(key, model::EstimateServing(request.workload,
                                                     NodeFromInstance(offer.instance, *g),
                                                     request.serving))
               .first;
    }
    auto quote = plan.Quote(offer);
    if (!quote.ok()) return quote.error();
    for (bool spot : {false, true}) {
      auto price = OptionPrice(spot, *quote, cons, considered, rejected);
      if (!price) continue;
      if (!it->second.ok()) {
        if (!it->second.error().fields.empty() &&
            it->second.error().fields[0].field == "/precision") {
          ++rejected["precision_unsupported"];
          continue;
        }
        return it->second.error();
      }
      const model::ServingEstimate& e = *it->second;
      if (e.verdict == model::FitVerdict::kDoesNotFit) {
        ++rejected["does_not_fit"];
        continue;
      }
      if (!e.slo_met) {
        ++rejected["slo_not_met"];
        continue;
      }
      int per_instance = std::max(1, offer.instance.gpu_count / e.gpus_per_replica);
      int instances = (e.replicas + per_instance - 1) / per_instance;
      Candidate c;
      c.offer = &offer;
      c.nodes = instances;
      c.spot = spot;
      c.price_per_hour = *price;
      c.cost = *price * instances;  // per hour
      c.hours = e.chosen.latency_s;
      if (cons.budget && c.cost * 730 > *cons.budget) {
        ++rejected["over_budget"];
        continue;
      }
      c.detail = {{"replicas", e.replicas},
                  {"gpus_per_replica", e.gpus_per_replica},
                  {"batch", e.chosen.batch},
                  {"cost_per_month", RoundMoney(c.cost * 730)}};
      c.why = std::to_string(e.replicas) + " replica(s) of " + std::to_string(e.gpus_per_replica) +
              "x " + offer.instance.gpu_id + " at batch " + std::to_string(e.chosen.batch) +
              ", " + Fmt("%.2f s", e.chosen.latency_s) + " per request" +
              (spot ? " (spot: can be reclaimed)" : "");
      if (spot) c.detail["warnings"] = {kSpotServingCaveat};
      feasible.push_back(std::move(c));
    }
  }
  nlohmann::json out = Answer(std::move(feasible), objective, limit, considered, rejected,
                              request.currency, "latency_s", "cost_per_hour");
  out["assumptions"] = assumptions;
  return out;
}

}  // namespace

Result<nlohmann::json> Recommend(db::CatalogStore& store, const nlohmann::json& body) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  std::string task = r.Choice("task", {"training", "inference"}).value_or("training");
  std::string objective = r.Choice("objective", {"cost", "time", "balanced"}).value_or("cost");
  int limit = static_cast<int>(r.Integer("limit", 1, kMaxRecommendationLimit).value_or(10));
  auto constraints = ReadConstraints(r, task == "training");
  std::optional<TrainingRequest> training;
  std::optional<InferenceRequest> inference;
  if (task == "inference") {
    inference = ReadInferenceRequest(r, false);
  } else {
    training = ReadTrainingRequest(r, false);
  }
  r.Finish();
  if (!errors.empty()) return BodyError(errors);
  Status names = CheckConstraintNames(store, *constraints);
  if (!names.ok()) return names.error();
  PlanService plan(store);
  Status currency = plan.UseCurrency(training ? training->currency : inference->currency);
  if (!currency.ok()) return currency.error();
  if (training) return RecommendTraining(store, plan, *training, *constraints, objective, limit);
  return RecommendInference(store, plan, *inference, *constraints, objective, limit);
}

Result<nlohmann::json> Compare(db::CatalogStore& store, const nlohmann::json& body) {
  std::vector<FieldError> errors;
  JsonReader r(body, "", &errors);
  auto request = ReadTrainingRequest(r, false);
  auto wanted = r.Strings("gpus", 64);
  int per_node = static_cast<int>(r.Integer("gpus_per_node", 1, 64).value_or(1));
  r.Finish();
  if (!errors.empty()) return BodyError(errors);
  PlanService plan(store);
  Status currency = plan.UseCurrency(request->currency);
  if (!currency.ok()) return currency.error();
  auto offers = store.ListOffers(db::OfferFilter{});
  if (!offers.ok()) return offers.error();
  // The cheapest on-demand price per GPU-hour of each GPU in the catalog.
  std::map<std::string, std::pair<double, const db::Offer*>> cheapest;
  for (const db::Offer& o : *offers) {
    if (!o.price_ondemand_per_hour) continue;
    auto p = plan.Convert(*o.price_ondemand_per_hour / o.instance.gpu_count, o.currency);
    if (!p.ok()) return p.error();
    auto it = cheapest.find(o.instance.gpu_id);
    if (it == cheapest.end() || *p < it->second.first) cheapest[o.instance.gpu_id] = {*p, &o};
  }
  std::vector<std::string> ids;
  if (wanted) {
    ids = *wanted;
  } else {
    for (const auto& [id, v] : cheapest) ids.push_back(id);
  }
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < ids.size(); ++i) {
    auto gpu = store.GetGpu(ids[i]);
    if (!gpu.ok()) {
      if (gpu.error().code != ErrorCode::kNotFound) return gpu.error();
      return Error::Invalid("/gpus/" + std::to_string(i), "unknown GPU '" + ids[i] + "'");
    }
    model::Cluster cluster;
    cluster.node.gpu = *gpu;
    cluster.node.gpus_per_node = per_node;
    cluster.node.interconnect = model::DefaultInterconnect(*gpu, per_node);
    const model::TrainingJob& job = request->job;
    auto e = model::EstimateTraining(request->workload, job, cluster);
    model::Precision precision =
        e.ok() ? e->precision : (job.precision_auto ? model::AutoPrecision(*gpu) : job.precision);
    nlohmann::json row = {{"gpu", ids[i]}, {"precision", model::PrecisionName(precision)}};
    if (!e.ok()) {
      row["error"] = e.error().message;
      rows.push_back(row);
      continue;
    }
    row["samples_per_s"] = e->samples_per_s;
    row["tokens_per_s"] = e->tokens_per_s > 0 ? nlohmann::json(e->tokens_per_s) : nullptr;
    row["hours"] = e->total_hours;
    row["bottleneck"] = e->step.bottleneck;
    row["mfu"] = e->mfu;
    row["memory_verdict"] = model::VerdictName(e->memory.verdict);
    row["memory_per_gpu_gb"] = e->memory.total_gb;
    row["layout"] = LayoutJson(e->layout);
    row["smallest_fitting_gpus"] =
        e->smallest_layout ? nlohmann::json(e->smallest_layout->gpus) : nlohmann::json(nullptr);
    auto price = cheapest.find(ids[i]);
    if (price != cheapest.end()) {
      double per_hour = price->second.first * per_node;
      row["price_per_gpu_hour"] = RoundMoney(price->second.first);
      row["price_source"] = {{"cloud", price->second.second->instance.cloud},
                             {"region", price->second.second->region},
                             {"instance_type", price->second.second->instance.id}};
      row["cost"] = RoundMoney(per_hour * e->total_hours);
      row["samples_per_currency_unit"] = e->samples_per_s * 3600 / per_hour;
      row["tokens_per_currency_unit"] =
          e->tokens_per_s > 0 ? nlohmann::json(e->tokens_per_s * 3600 / per_hour) : nullptr;
      const db::Offer& offer = *price->second.second;
      if (offer.price_spot_per_hour && offer.price_ondemand_per_hour &&
          *offer.price_spot_per_hour > *offer.price_ondemand_per_hour) {
        // A spot price above its own on-demand price usually means a stale or wrong
        // on-demand row: the cheapest price is then not to be trusted blindly.
        row["warnings"] = {"the cheapest on-demand price (" + offer.instance.id + " in " +
                           offer.region + ") is below that offer's own spot price: the catalog "
                           "on-demand price may be stale or wrong"};
      }
    } else {
      row["price_per_gpu_hour"] = nullptr;
      row["cost"] = nullptr;
      row["samples_per_currency_unit"] = nullptr;
    }
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    auto value = [](const nlohmann::json& j) {
      return j.contains("samples_per_currency_unit") && j["samples_per_currency_unit"].is_number()
                 ? j["samples_per_currency_unit"].get<double>()
                 : -1.0;
    };
    bool fits_a = a.value("memory_verdict", "") != "does_not_fit";
    bool fits_b = b.value("memory_verdict", "") != "does_not_fit";
    if (fits_a != fits_b) return fits_a;
    return value(a) > value(b);
  });
  return nlohmann::json{{"workload", WorkloadJson(request->workload)},
                        {"currency", request->currency},
                        {"gpus_per_node", per_node},
                        {"items", std::move(rows)},
                        {"model_version", kModelVersion}};
}

}  // namespace gpuplan::api
