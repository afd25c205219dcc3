#include "api/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <string_view>
#include <tuple>

#include "db/catalog_store.h"
#include "db/database.h"
#include "db/pg_connection.h"
#include "db/write_transaction.h"
#include "model/evaluations.h"

namespace gpuplan::api {

namespace {
// Seconds: from a cached catalog read (~0.2 ms) to a whole-catalog recommendation over a
// tenfold catalog (~50 ms) and slow imports.
const prometheus::Histogram::BucketBoundaries kLatencyBuckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}  // namespace

// Counters of other parts of the process (model evaluations, pool waits) are mirrored into
// Prometheus counters by adding what changed since the last scrape.
struct ServiceMetrics::Seen {
  std::mutex mutex;
  model::EvaluationCounts evaluations;
  db::ConnectionPool::WaitStats pool;
  std::array<unsigned long long, db::kSqlErrorKinds> db_errors{};
};

// The series a request adds to, found once: a family's Add builds and hashes its label map
// on every call. Series are never removed, so the pointers stay valid.
struct ServiceMetrics::PerRoute {
  using Key = std::tuple<std::string, std::string, int>;       // route, method, status
  using View = std::tuple<std::string_view, std::string_view, int>;
  // Orders keys and views alike (a tuple of strings does not compare with a tuple of views
  // under every standard library), so a lookup builds no string.
  struct Less {
    using is_transparent = void;
    static View Of(const Key& k) { return {std::get<0>(k), std::get<1>(k), std::get<2>(k)}; }
    static const View& Of(const View& v) { return v; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const { return Of(a) < Of(b); }
  };
  std::mutex mutex;
  std::map<Key, prometheus::Counter*, Less> requests;
  std::map<std::string, prometheus::Histogram*, std::less<>> latency;
};

ServiceMetrics::ServiceMetrics()
    : registry_(std::make_shared<prometheus::Registry>()), seen_(std::make_unique<Seen>()),
      per_route_(std::make_unique<PerRoute>()) {
  auto& r = *registry_;
  requests_ = &prometheus::BuildCounter().Name("gpuplan_http_requests_total")
                   .Help("HTTP requests answered, by route template, method and status").Register(r);
  latency_ = &prometheus::BuildHistogram().Name("gpuplan_http_request_duration_seconds")
                  .Help("Time from the request's routing to its answer, by route template").Register(r);
  in_flight_ = &prometheus::BuildGauge().Name("gpuplan_http_requests_in_flight")
                    .Help("Requests being answered now").Register(r).Add({});
  catalog_rows_ = &prometheus::BuildGauge().Name("gpuplan_catalog_rows")
                       .Help("Rows of the catalog, by table (read at scrape)").Register(r);
  generation_ = &prometheus::BuildGauge().Name("gpuplan_catalog_generation")
                     .Help("The catalog generation: every committed write adds one").Register(r).Add({});
  imports_ = &prometheus::BuildCounter().Name("gpuplan_imports_total")
                  .Help("Catalog imports, by format and outcome (written, dry_run, refused)").Register(r);
  evaluations_ = &prometheus::BuildCounter().Name("gpuplan_model_evaluations_total")
                      .Help("Performance-model evaluations, by kind (training, serving)").Register(r);
  auto& pool = prometheus::BuildCounter().Name("gpuplan_db_pool_waits_total")
                   .Help("Database connection requests that found none free and waited").Register(r);
  pool_waits_ = &pool.Add({});
  pool_wait_seconds_ = &prometheus::BuildCounter().Name("gpuplan_db_pool_wait_seconds_total")
                            .Help("Time spent waiting for a free database connection").Register(r).Add({});
  pool_exhausted_ = &prometheus::BuildCounter().Name("gpuplan_db_pool_exhausted_total")
                         .Help("Requests that found no database connection in time (answered 503)").Register(r).Add({});
  db_errors_ = &prometheus::BuildCounter().Name("gpuplan_db_errors_total")
                    .Help("Database failures that reached an answer, by backend and kind").Register(r);
}

ServiceMetrics::~ServiceMetrics() = default;

void ServiceMetrics::RequestStarted() { in_flight_->Increment(); }
void ServiceMetrics::RequestAbandoned() { in_flight_->Decrement(); }

void ServiceMetrics::RequestFinished(const std::string& route, const std::string& method,
                                     int status, double seconds) {
  in_flight_->Decrement();
  prometheus::Counter* requests = nullptr;
  prometheus::Histogram* latency = nullptr;
  {
    std::lock_guard lock(per_route_->mutex);
    const PerRoute::View key{route, method, status};
    if (auto it = per_route_->requests.find(key); it != per_route_->requests.end()) {
      requests = it->second;
    } else {
      requests = &requests_->Add(
          {{"route", route}, {"method", method}, {"status", std::to_string(status)}});
      per_route_->requests.emplace(std::make_tuple(route, method, status), requests);
    }
    if (auto it = per_route_->latency.find(std::string_view(route)); it != per_route_->latency.end()) {
      latency = it->second;
    } else {
      latency = &latency_->Add({{"route", route}}, kLatencyBuckets);
      per_route_->latency.emplace(route, latency);
    }
  }
  requests->Increment();
  latency->Observe(seconds);
}

void ServiceMetrics::ImportFinished(const std::string& format, const std::string& outcome) {
  imports_->Add({{"format", format}, {"outcome", outcome}}).Increment();
}

std::string ServiceMetrics::Scrape(db::ConnectionPool& pool) {
  {
    std::lock_guard lock(seen_->mutex);
    model::EvaluationCounts now = model::Evaluations();
    evaluations_->Add({{"kind", "training"}}).Increment(static_cast<double>(now.training - seen_->evaluations.training));
    evaluations_->Add({{"kind", "serving"}}).Increment(static_cast<double>(now.serving - seen_->evaluations.serving));
    seen_->evaluations = now;
    db::ConnectionPool::WaitStats waits = pool.wait_stats();
    pool_waits_->Increment(static_cast<double>(waits.waits - seen_->pool.waits));
    pool_exhausted_->Increment(static_cast<double>(waits.exhausted - seen_->pool.exhausted));
    pool_wait_seconds_->Increment(waits.wait_seconds - seen_->pool.wait_seconds);
    seen_->pool = waits;
    const char* backend = db::IsPostgresUrl(pool.path()) ? "postgresql" : "sqlite";
    auto errors = db::SqlErrorCounts();
    for (int kind = 0; kind < db::kSqlErrorKinds; ++kind) {
      db_errors_->Add({{"backend", backend}, {"kind", db::SqlErrorKindName(kind)}})
          .Increment(static_cast<double>(errors[kind] - seen_->db_errors[kind]));
    }
    seen_->db_errors = errors;
  }
  // The catalog gauges need a connection; a busy pool (or database) must not take the
  // rest of the answer with it: the gauges then keep their last values.
  try {
    auto lease = pool.Acquire(std::chrono::milliseconds(200));
    db::CatalogStore store(*lease);
    if (auto sizes = store.CountRows(); sizes.ok()) {
      catalog_rows_->Add({{"table", "gpus"}}).Set(static_cast<double>(sizes->gpus));
      catalog_rows_->Add({{"table", "clouds"}}).Set(static_cast<double>(sizes->clouds));
      catalog_rows_->Add({{"table", "regions"}}).Set(static_cast<double>(sizes->regions));
      catalog_rows_->Add({{"table", "instance_types"}}).Set(static_cast<double>(sizes->instance_types));
      catalog_rows_->Add({{"table", "prices"}}).Set(static_cast<double>(sizes->price_observations));
      generation_->Set(static_cast<double>(sizes->generation));
    }
  } catch (const db::PoolExhausted&) {
  }
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace gpuplan::api
