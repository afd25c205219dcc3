// The planning subcommands: `gpuplan estimate`, `gpuplan recommend`, `gpuplan compare`.
// Each builds the same request the API takes (from flags, or the API's JSON with
// --request), asks plan::Planner over the catalog (--db, or the embedded seed in memory),
// and prints a table, or with --json exactly what the API answers; estimate and recommend
// print with --export skypilot|kubernetes the YAML the API answers with ?format= (the
// recommendation's item --item, 1 = the top one).
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "db/sql.h"
#include "model/result.h"
#include "plan/price_quality.h"  // kDefaultStalePriceDays

namespace CLI {
class App;
}  // namespace CLI

namespace gpuplan::server {

// The catalog the commands read: the `path` file (created, migrated and seeded if new), or
// the embedded seed in memory when `path` is empty.
Result<std::unique_ptr<db::Connection>> OpenCatalog(const std::string& path);

struct CommonPlanOptions {
  std::string db;            // "" = the embedded seed, in memory
  std::string request_file;  // the API's JSON body; "-" = stdin
  bool json = false;
  std::string export_format;  // "" = none; skypilot | kubernetes (estimate, recommend)
  int stale_price_days = plan::kDefaultStalePriceDays;  // --stale-price-days
};

// What is trained (or served) and how much: shared by the three commands.
struct JobOptions {
  std::string workload = "resnet-50";
  // The dataset, each only if given (the API decides what is missing or conflicting):
  // samples x epochs (epochs default to 1), tokens, or hours (a fixed duration).
  std::optional<double> samples, epochs, tokens, hours;
  int global_batch = 256;
  std::string precision = "auto";
  std::string currency = "USD";
};

struct EstimateOptions {
  CommonPlanOptions common;
  JobOptions job;
  std::string gpu = "A100-80GB-SXM4";
  int gpus = 1;  // per node
  std::string cloud = "aws", instance_type, region;
  int nodes = 1;
  std::string interconnect;  // "" = from the GPU
  double network_gbps = 0;
  double vcpus = 0;
  double price_per_hour = 0, spot_price_per_hour = 0;
  std::string price_currency;
  std::string pricing = "both";
  int micro_batch = 0;
  std::string optimizer = "adamw";
  std::string checkpointing = "none";
  std::string framework = "auto";
  int zero_stage = -1;
  // Layout degrees (0 = chosen), as the API's fields of the same names.
  int tensor_parallel = 0, pipeline_parallel = 0, context_parallel = 0;
  int virtual_pipeline_stages = 0;
  std::string fp8_scaling;  // "" = delayed
  std::string sequence_parallel;  // "" = the stack's default, "on" | "off"
  bool tensor_parallel_overlap = false;
  int nvlink_domain_gpus = 0;
};

struct RecommendOptions {
  CommonPlanOptions common;
  JobOptions job;
  std::string task = "training";
  int input_tokens = 512, output_tokens = 128;
  double requests_per_s = 1, latency_slo_ms = 0;
  // Inference: p95 targets, engine and quantisation ("" / 0 = the engine's default, none).
  double ttft_slo_ms = 0, tpot_slo_ms = 0;
  std::string engine_version, weight_quantization, kv_cache_dtype;
  std::optional<int> max_num_seqs, max_concurrency;  // unset: the engine's default, none
  std::string gpus, clouds, regions, price_kinds;  // comma-separated
  int max_nodes = 4;
  double deadline_hours = 0, budget = 0;
  std::string deadline_confidence;  // "" = the API's default (p90)
  std::string distinct;             // "" = the API's default (none)
  bool include_doubtful_prices = false;
  std::string objective = "cost";
  int limit = 10;
  int item = 1;  // with --export: the item's rank
};

struct CompareOptions {
  CommonPlanOptions common;
  JobOptions job;
  std::string gpus;  // comma-separated; "" = every GPU with a price
  int gpus_per_node = 1;
};

// Add each subcommand's options to `app`, bound to `options`.
void AddEstimateOptions(CLI::App& app, EstimateOptions& options);
void AddRecommendOptions(CLI::App& app, RecommendOptions& options);
void AddCompareOptions(CLI::App& app, CompareOptions& options);

// Each returns the process exit code (2 for invalid input, naming the field on `err`).
int RunEstimate(const EstimateOptions& options, std::ostream& out, std::ostream& err);
int RunRecommend(const RecommendOptions& options, std::ostream& out, std::ostream& err);
int RunCompare(const CompareOptions& options, std::ostream& out, std::ostream& err);

}  // namespace gpuplan::server
