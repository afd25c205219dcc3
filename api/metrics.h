// The service's Prometheus metrics (prometheus-cpp), served at GET /metrics in the text
// exposition format. Names and labels (docs/operations.md):
//   gpuplan_http_requests_total{route,method,status}       counter
//   gpuplan_http_request_duration_seconds{route}           histogram
//   gpuplan_http_requests_in_flight                        gauge
//   gpuplan_catalog_rows{table}, gpuplan_catalog_generation  gauges, read at scrape time
//   gpuplan_imports_total{format,outcome}                  counter (written|dry_run|refused)
//   gpuplan_model_evaluations_total{kind}                  counter (training|serving)
//   gpuplan_db_pool_waits_total, gpuplan_db_pool_wait_seconds_total,
//   gpuplan_db_pool_exhausted_total                        counters
//   gpuplan_db_errors_total{backend,kind}                  counter: database failures that
//                                                          reached an answer (db::SqlErrorCounts;
//                                                          backend sqlite|postgresql)
// `route` is the route template ("/api/v1/gpus/{id}"); requests no route took are
// "static" (dashboard files) or "unmatched". Thread-safe.
#pragma once

#include <memory>
#include <string>

namespace prometheus {
class Registry;
class Gauge;
class Histogram;
class Counter;
template <typename T>
class Family;
}  // namespace prometheus

namespace gpuplan::db {
class ConnectionPool;
}  // namespace gpuplan::db

namespace gpuplan::api {

class ServiceMetrics {
 public:
  ServiceMetrics();
  ~ServiceMetrics();

  void RequestStarted();
  // A request that started but was never logged (its handler or the logger threw): only the
  // in-flight gauge goes down.
  void RequestAbandoned();
  void RequestFinished(const std::string& route, const std::string& method, int status,
                       double seconds);
  void ImportFinished(const std::string& format, const std::string& outcome);

  // The exposition text, with the catalog sizes, model evaluations and pool waits read now.
  // When no database connection comes free within 200 ms or the database cannot be read,
  // the catalog gauges keep their last values and the rest still answers.
  std::string Scrape(db::ConnectionPool& pool);

  static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Family<prometheus::Histogram>* latency_;
  prometheus::Gauge* in_flight_;
  prometheus::Family<prometheus::Gauge>* catalog_rows_;
  prometheus::Gauge* generation_;
  prometheus::Family<prometheus::Counter>* imports_;
  prometheus::Family<prometheus::Counter>* evaluations_;
  prometheus::Counter* pool_waits_;
  prometheus::Counter* pool_wait_seconds_;
  prometheus::Counter* pool_exhausted_;
  prometheus::Family<prometheus::Counter>* db_errors_;
  struct Seen;  // last values of the process counters mirrored at scrape
  std::unique_ptr<Seen> seen_;
  struct PerRoute;  // each (route, method, status)'s counter and each route's histogram
  std::unique_ptr<PerRoute> per_route_;
};

}  // namespace gpuplan::api
