// Google Benchmark figures for docs/benchmarks.md: model evaluations, a recommendation
// over the whole seeded catalog, and a SkyPilot import at the row cap into SQLite.
// Run: build/bench/gpuplan_bench (Release build).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

#include "api/catalog_io.h"
#include "api/plan_request.h"
#include "api/plan_json.h"
#include "api/recommender.h"
#include "db/catalog_caps.h"
#include "db/catalog_import.h"
#include "db/cached_catalog.h"
#include "db/catalog_store.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "model/training.h"
#include "model/workload_presets.h"
#include "plan/planner.h"

namespace {

using namespace gpuplan;

model::Cluster A100Node(int gpus) {
  model::Cluster c;
  c.node.gpu.id = "A100-80GB-SXM4";
  c.node.gpu.memory_gb = 80;
  c.node.gpu.memory_bw_gbps = 2039;
  c.node.gpu.fp32_tflops = 19.5;
  c.node.gpu.bf16_tflops = c.node.gpu.fp16_tflops = 312;
  c.node.gpu.nvlink_bw_gbps = 600;
  c.node.gpu.form_factor = "SXM4";
  c.node.gpus_per_node = gpus;
  c.node.interconnect = gpus > 1 ? model::Interconnect::kNvswitch : model::Interconnect::kNone;
  return c;
}

void BM_EstimateTraining(benchmark::State& state, const char* preset, int gpus) {
  model::Workload w = *model::FindPreset(preset);
  model::TrainingJob job;
  job.samples = 1e6;
  job.global_batch = 256;
  job.framework = model::Framework::kOptimized;
  model::Cluster cluster = A100Node(gpus);
  for (auto _ : state) {
    auto e = model::EstimateTraining(w, job, cluster, model::DefaultConstants(), false);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_EstimateTraining, resnet50_1gpu, "resnet-50", 1);
BENCHMARK_CAPTURE(BM_EstimateTraining, bert_large_8gpu, "bert-large", 8);
BENCHMARK_CAPTURE(BM_EstimateTraining, llama2_70b_8gpu, "llama-2-70b", 8);

struct SeededDb {
  std::filesystem::path path;
  std::unique_ptr<db::Connection> db;
  SeededDb() {
    path = std::filesystem::temp_directory_path() / ("gpuplan-bench-" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(path);
    db = std::move(db::OpenDatabase(path.string())).value();
    (void)db::Migrate(*db);
    (void)db::SeedIfEmpty(*db);
    db::SetCatalogStateMaxAge(db::kDefaultCatalogRecheck);  // as `gpuplan serve` does
  }
  ~SeededDb() {
    db.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  }
};

// A new database file migrated and seeded with the embedded catalog: what every `gpuplan
// serve` on a new file, and every test server without the harness's seeded template
// (tests/testing/test_server.cc), pays once.
void BM_SeedFreshDatabase(benchmark::State& state) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpuplan-bench-seed-" + std::to_string(::getpid()) + ".db");
  for (auto _ : state) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
    auto db = std::move(db::OpenDatabase(path.string())).value();
    if (!db::Migrate(*db).ok() || !db::SeedIfEmpty(*db).ok()) state.SkipWithError("seed failed");
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}
BENCHMARK(BM_SeedFreshDatabase)->Unit(benchmark::kMillisecond);

// The seeded catalog ten times over, through the planner's catalog interface: each offer
// also as nine more instance types with their own vCPU count, so there are ten times the
// offers and ten times the distinct hardware configurations to estimate (the worst case).
class TenfoldCatalog : public db::CachedCatalog {
 public:
  using db::CachedCatalog::CachedCatalog;
  Result<std::vector<db::Offer>> ListOffers(const db::OfferFilter& filter) override {
    auto offers = db::CachedCatalog::ListOffers(filter);
    if (!offers.ok()) return offers;
    std::vector<db::Offer> out;
    out.reserve(offers->size() * 10);
    for (int k = 0; k < 10; ++k) {
      for (db::Offer o : *offers) {
        if (k > 0) {
          o.instance.id += "-x" + std::to_string(k);
          o.instance.vcpus = o.instance.vcpus.value_or(8) + k;
        }
        out.push_back(std::move(o));
      }
    }
    return out;
  }
  Result<std::shared_ptr<const std::vector<db::Offer>>> AllOffers() override {
    return db::CatalogReader::AllOffers();  // the tenfold list above, built per request
  }
};

constexpr const char* kTrainingEstimateBody =
    R"({"workload":"bert-large","dataset":{"samples":10000000,"epochs":3},"global_batch_size":256,)"
    R"("precision":"bf16","hardware":{"cloud":"aws","region":"us-east-1","instance_type":"p4d.24xlarge"},)"
    R"("pricing":{"kind":"both"}})";

// POST /api/v1/estimates/training without the HTTP server: body text -> parsed JSON ->
// typed request -> planner (catalog reads, model, cost, spot history) -> answer text.
// The three parts are also timed alone (BM_TrainingEstimateParts: 0 decoding, 1 planning
// over the cached catalog, 2 writing the answer).
void BM_TrainingEstimateRequest(benchmark::State& state) {
  SeededDb seeded;
  const std::string text = kTrainingEstimateBody;
  auto pool = std::move(db::ConnectionPool::Open(seeded.path.string(), 1)).value();
  for (auto _ : state) {
    auto lease = pool->Acquire();
    db::CachedCatalog store(lease);  // one per request, as the server does
    auto body = nlohmann::json::parse(text);
    auto request = api::DecodeTrainingRequest(body);
    auto answer = api::PlanAnswer(store, *request);
    benchmark::DoNotOptimize(answer);
  }
}
BENCHMARK(BM_TrainingEstimateRequest)->Unit(benchmark::kMicrosecond);

void BM_TrainingEstimateParts(benchmark::State& state) {
  SeededDb seeded;
  const std::string text = kTrainingEstimateBody;
  auto pool = std::move(db::ConnectionPool::Open(seeded.path.string(), 1)).value();
  auto request = api::DecodeTrainingRequest(nlohmann::json::parse(text));
  std::optional<plan::TrainingPlan> plan;
  {
    auto lease = pool->Acquire();
    db::CachedCatalog store(lease);
    plan = std::move(plan::Planner(store).Training(*request)).value();
  }
  for (auto _ : state) {
    if (state.range(0) == 0) {
      auto decoded = api::DecodeTrainingRequest(nlohmann::json::parse(text));
      benchmark::DoNotOptimize(decoded);
    } else if (state.range(0) == 1) {
      auto lease = pool->Acquire();
      db::CachedCatalog store(lease);
      auto planned = plan::Planner(store).Training(*request);
      benchmark::DoNotOptimize(planned);
    } else {
      auto answer = api::TrainingPlanJson(*plan);
      benchmark::DoNotOptimize(answer);
    }
  }
}
BENCHMARK(BM_TrainingEstimateParts)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

// POST /api/v1/recommendations of `body` without HTTP, over every offer of `Catalog`: the
// request decoded and the answer rendered each time.
template <typename Catalog>
void Recommendations(benchmark::State& state, const nlohmann::json& body) {
  SeededDb seeded;
  auto pool = std::move(db::ConnectionPool::Open(seeded.path.string(), 1)).value();
  for (auto _ : state) {
    auto lease = pool->Acquire();
    Catalog store(lease);  // one per request on a pooled connection, as the server does
    auto request = api::DecodeRecommendRequest(body);
    auto answer = api::PlanAnswer(store, *request);
    benchmark::DoNotOptimize(answer);
  }
}

// A training recommendation over every offer of `Catalog` (1, 2, 4 nodes, both price kinds).
template <typename Catalog>
void BM_RecommendTraining(benchmark::State& state) {
  Recommendations<Catalog>(
      state, {{"workload", "bert-large"}, {"dataset", {{"samples", 1e7}, {"epochs", 3}}},
              {"global_batch_size", 256}, {"constraints", {{"max_nodes", 4}}}});
}
BENCHMARK_TEMPLATE(BM_RecommendTraining, db::CachedCatalog)->Name("BM_RecommendTrainingWholeCatalog")->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_RecommendTraining, TenfoldCatalog)->Name("BM_RecommendTrainingTenfoldCatalog")->Unit(benchmark::kMillisecond);

// Issue 26's request: BERT-large in BF16 within a 24 h deadline over the seeded catalog (the
// deadline adds spot-with-fallback options, each costed with its on-demand fallback).
void BM_RecommendTrainingDeadline(benchmark::State& state) {
  Recommendations<db::CachedCatalog>(
      state, {{"workload", "bert-large"}, {"dataset", {{"samples", 1e7}, {"epochs", 3}}},
              {"global_batch_size", 256}, {"precision", "bf16"},
              {"constraints", {{"deadline_hours", 24}}}});
}
BENCHMARK(BM_RecommendTrainingDeadline)->Unit(benchmark::kMillisecond);

// POST /api/v1/estimates/inference without HTTP: Llama-3-8B at 50 req/s within a p95 of 2 s
// on p4d.24xlarge (the serving model: engine defaults, batch cap, curve, saturation, the
// largest rate per replica whose p95 meets the target, for each tensor-parallel degree).
void BM_InferenceEstimateRequest(benchmark::State& state) {
  SeededDb seeded;
  const std::string text =
      R"({"workload":"llama-3-8b","input_tokens":200,"output_tokens":300,"target_requests_per_s":50,)"
      R"("latency_slo_ms":2000,"hardware":{"cloud":"aws","region":"us-east-1","instance_type":"p4d.24xlarge"}})";
  auto pool = std::move(db::ConnectionPool::Open(seeded.path.string(), 1)).value();
  for (auto _ : state) {
    auto lease = pool->Acquire();
    db::CachedCatalog store(lease);
    auto body = nlohmann::json::parse(text);
    auto request = api::DecodeInferenceRequest(body);
    auto answer = api::PlanAnswer(store, *request);
    benchmark::DoNotOptimize(answer);
  }
}
BENCHMARK(BM_InferenceEstimateRequest)->Unit(benchmark::kMicrosecond);

// The same load as a recommendation over every offer of the seeded catalog.
void BM_RecommendInferenceWholeCatalog(benchmark::State& state) {
  Recommendations<db::CachedCatalog>(
      state, {{"task", "inference"}, {"workload", "llama-3-8b"}, {"input_tokens", 200},
              {"output_tokens", 300}, {"target_requests_per_s", 50}, {"latency_slo_ms", 2000}});
}
BENCHMARK(BM_RecommendInferenceWholeCatalog)->Unit(benchmark::kMillisecond);

std::string SyntheticSkypilot(int rows) {
  std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
      "AvailabilityZone\n";
  const char* gpus[] = {"A100", "H100", "L4", "T4", "A10G"};
  char line[256];
  for (int i = 0; i < rows; ++i) {
    int type = i / 20;  // twenty zones per instance type
    std::snprintf(line, sizeof(line), "bench.%d,%s,%d,%d,%d,,%.4f,%.4f,region-%d,zone-%d\n", type,
                  gpus[type % 5], 1 << (type % 4), 8 << (type % 4), 64 << (type % 4),
                  1.0 + type % 97, 0.4 + (i % 13) * 0.01, type % 20, i % 20);
    csv += line;
  }
  return csv;
}

// db::kMaxImportRows rows: 2 500 instance types in 20 zones.
void BM_ImportAtTheRowCap(benchmark::State& state) {
  const std::string csv = SyntheticSkypilot(static_cast<int>(db::kMaxImportRows));
  for (auto _ : state) {
    state.PauseTiming();
    auto seeded = std::make_unique<SeededDb>();
    db::CatalogStore store(*seeded->db);
    state.ResumeTiming();
    auto batch = api::ParseImport(api::ImportRequest{"skypilot", "benchcloud", "2026-11-22", "bench"}, csv, store);
    auto outcome = db::ImportCatalog(*seeded->db, *batch, db::ImportOptions{"bench", "skypilot", "benchcloud"});
    if (!outcome.ok()) state.SkipWithError(outcome.error().message.c_str());
    state.PauseTiming();
    seeded.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(db::kMaxImportRows));
}
BENCHMARK(BM_ImportAtTheRowCap)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
