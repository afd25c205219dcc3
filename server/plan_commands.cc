#include "server/plan_commands.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "server/cli_errors.h"
#include "api/export_answer.h"
#include "api/json_writer.h"
#include "api/plan_json.h"
#include "api/plan_request.h"
#include "api/recommender.h"
#include "db/cached_catalog.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/text.h"
#include "plan/planner.h"
#include "server/app.h"

namespace gpuplan::server {

Result<std::unique_ptr<db::Connection>> OpenCatalog(const std::string& path) {
  if (!path.empty()) {
    Status prepared = PrepareDatabase(path);
    if (!prepared.ok()) return prepared.error();
    return db::OpenDatabase(path);
  }
  auto memory = db::OpenDatabase(":memory:");
  if (!memory.ok()) return memory.error();
  Status migrated = db::Migrate(**memory);
  if (!migrated.ok()) return migrated.error();
  auto seeded = db::SeedIfEmpty(**memory);
  if (!seeded.ok()) return seeded.error();
  return memory;
}

namespace {

// The request body: the --request file (the API's JSON) when given, else built from flags.
Result<nlohmann::json> RequestBody(const CommonPlanOptions& o, nlohmann::json from_flags) {
  if (o.request_file.empty()) return from_flags;
  std::stringstream text;
  if (o.request_file == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(o.request_file);
    if (!in) return Error::Invalid("--request", "cannot read " + o.request_file);
    text << in.rdbuf();
  }
  auto body = nlohmann::json::parse(text.str(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return Error::Invalid("--request", o.request_file + " is not a JSON object");
  }
  return body;
}

// Only what was given, as given: the API names what is missing or wrong (no --samples,
// --tokens or --hours; --hours with --epochs; a negative value), rather than the CLI
// planning a dataset nobody chose or dropping a value without a word.
nlohmann::json Dataset(const JobOptions& o) {
  nlohmann::json d = nlohmann::json::object();
  for (auto [key, value] : {std::pair{"samples", &o.samples}, {"epochs", &o.epochs},
                            {"tokens", &o.tokens}, {"hours", &o.hours}}) {
    if (*value) d[key] = **value;
  }
  return d;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The job part of a request body; training fields only when `training`.
nlohmann::json TrainingJobBody(const JobOptions& o, bool training = true) {
  nlohmann::json body = {{"workload", o.workload}, {"precision", o.precision},
                         {"currency", o.currency}};
  if (training) {
    body["dataset"] = Dataset(o);
    body["global_batch_size"] = o.global_batch;
  }
  return body;
}

nlohmann::json EstimateBody(const EstimateOptions& o) {
  nlohmann::json hardware = {{"nodes", o.nodes}};
  if (!o.instance_type.empty()) {
    hardware["cloud"] = o.cloud;
    hardware["instance_type"] = o.instance_type;
    if (!o.region.empty()) hardware["region"] = o.region;
  } else {
    hardware["gpu"] = o.gpu;
    hardware["gpus_per_node"] = o.gpus;
    if (!o.interconnect.empty()) hardware["interconnect"] = o.interconnect;
    if (o.network_gbps > 0) hardware["network_gbps"] = o.network_gbps;
    if (o.vcpus > 0) hardware["vcpus"] = o.vcpus;
    if (o.nvlink_domain_gpus != 0) hardware["nvlink_domain_gpus"] = o.nvlink_domain_gpus;
    if (o.price_per_hour > 0) hardware["price_per_hour"] = o.price_per_hour;
    if (o.spot_price_per_hour > 0) hardware["spot_price_per_hour"] = o.spot_price_per_hour;
    if (!o.price_currency.empty()) hardware["price_currency"] = o.price_currency;
  }
  nlohmann::json body = TrainingJobBody(o.job);
  body["hardware"] = hardware;
  body["optimizer"] = o.optimizer;
  body["activation_checkpointing"] = o.checkpointing;
  body["framework"] = o.framework;
  body["pricing"] = {{"kind", o.pricing}};
  if (o.micro_batch > 0) body["micro_batch_size"] = o.micro_batch;
  if (o.zero_stage >= 0) body["zero_stage"] = o.zero_stage;
  // Out-of-range values go to the API, whose 422 names the field.
  if (o.tensor_parallel != 0) body["tensor_parallel"] = o.tensor_parallel;
  if (o.pipeline_parallel != 0) body["pipeline_parallel"] = o.pipeline_parallel;
  if (o.context_parallel != 0) body["context_parallel"] = o.context_parallel;
  if (o.virtual_pipeline_stages != 0) body["virtual_pipeline_stages"] = o.virtual_pipeline_stages;
  if (!o.fp8_scaling.empty()) body["fp8_scaling"] = o.fp8_scaling;
  if (!o.sequence_parallel.empty()) body["sequence_parallel"] = o.sequence_parallel == "on";
  if (o.tensor_parallel_overlap) body["tensor_parallel_overlap"] = true;
  return body;
}

// An option that is not a plan: why, and what would make it one.
void PrintInfeasible(const plan::Feasibility& f, const char* indent, std::ostream& out) {
  for (const plan::InfeasibleReason& r : f.reasons) {
    out << indent << "NOT FEASIBLE (" << plan::InfeasibleName(r.code) << "): " << r.detail << "\n";
  }
  if (!f.nearest_change.empty()) out << indent << "nearest change: " << f.nearest_change << "\n";
}

void PrintTraining(const plan::TrainingPlan& plan, std::ostream& out) {
  const model::TrainingEstimate& e = plan.estimate;
  const model::Workload& w = plan.workload;
  const model::Cluster& cluster = plan.cluster;
  out << fmt::format("{} on {} x {} ({} node(s)), {}\n", w.name.c_str(), cluster.TotalGpus(),
                     cluster.node.gpu.id.c_str(), cluster.nodes,
                     std::string(model::PrecisionName(e.precision)).c_str());
  out << fmt::format(
      "  layout: tensor {} x pipeline {} x context {} x data {}, ZeRO {}; micro-batch {} x {} "
      "accumulation\n",
      e.layout.tensor, e.layout.pipeline, e.layout.context, e.layout.data, e.layout.zero_stage,
      e.micro_batch, e.grad_accumulation_steps);
  const bool runnable = !plan.feasibility.Has(plan::Infeasible::kDoesNotFit);
  PrintInfeasible(plan.feasibility, "  ", out);
  if (runnable) {
    out << fmt::format("  throughput: {:.1f} samples/s", e.samples_per_s);
    if (e.tokens_per_s > 0) out << fmt::format(", {:.0f} tokens/s", e.tokens_per_s);
    out << fmt::format("\n  step: {:.3g} s, bottleneck {} ({:.0f}%)\n", e.step.step_time_s,
                       e.step.bottleneck.c_str(), e.step.bottleneck_share * 100);
    const auto& b = e.step.breakdown;
    out << fmt::format(
        "    compute {:.3g} s  memory {:.3g} s  communication {:.3g} s  bubble {:.3g} s  optimizer "
        "{:.3g} s  "
        "input {:.3g} s  overhead {:.3g} s\n",
        b.compute_s, b.memory_s, b.communication_s, b.bubble_s, b.optimizer_s, b.input_s,
        b.overhead_s);
    out << fmt::format("  MFU {:.3f}, scaling efficiency {:.3f}\n", e.mfu, e.scaling_efficiency);
  }
  out << fmt::format(
      "  memory per GPU: {:.1f} of {:.0f} GB ({}); weights {:.1f}, gradients {:.1f}, optimizer "
      "{:.1f}, activations {:.1f}; max micro-batch {}\n",
      e.memory.total_gb, e.memory.capacity_gb,
      std::string(model::VerdictName(e.memory.verdict)).c_str(), e.memory.weights_gb,
      e.memory.gradients_gb, e.memory.optimizer_gb, e.memory.activations_gb, e.max_micro_batch);
  if (e.smallest_layout) {
    out << fmt::format(
        "  at micro-batch 1 it fits on as few as {} GPU(s) ({} node(s)): tensor {} x pipeline "
        "{} x context {} x data {}, ZeRO {}\n",
        e.smallest_layout->gpus, e.smallest_layout->nodes, e.smallest_layout->layout.tensor,
        e.smallest_layout->layout.pipeline, e.smallest_layout->layout.context,
        e.smallest_layout->layout.data, e.smallest_layout->layout.zero_stage);
  } else {
    out << fmt::format("  does not fit on up to 1024 GPUs of this node type\n");
  }
  if (!runnable) {
    out << "  no time or cost: the job does not fit as asked\n";
  } else if (plan.job.hours > 0) {
    out << fmt::format(
        "  fixed duration {}: {:.0f} steps, {:.4g} samples (P10 {:.4g}, P90 {:.4g})\n",
        db::FormatHours(e.total_hours).c_str(), e.steps, e.total_samples, e.work_p10_samples,
        e.work_p90_samples);
  } else {
    out << fmt::format("  total: {} (P10 {}, P90 {}) for {:.0f} steps\n",
                       db::FormatHours(e.total_hours).c_str(), db::FormatHours(e.p10_hours).c_str(),
                       db::FormatHours(e.p90_hours).c_str(), e.steps);
  }
  if (plan.cost.ondemand) {
    out << fmt::format(
        "  on-demand: {:.2f} {}/h x {} instance(s) = {:.2f} {} (P10 {:.2f}, P90 {:.2f})\n",
        plan.cost.ondemand->price_per_hour, plan.cost.currency.c_str(),
        plan.cost.ondemand->instances, plan.cost.ondemand->total, plan.cost.currency.c_str(),
        plan.cost.ondemand->p10_total, plan.cost.ondemand->p90_total);
  }
  if (plan.cost.spot && plan.cost.spot->run.viable) {
    const plan::SpotTrainingCost& s = *plan.cost.spot;
    out << fmt::format(
        "  spot: {:.2f} {}/h, expected {:.2f} {} over {} wall time (P10 {}, P90 {}; {:.1f} "
        "interruptions)\n",
        s.price_per_hour, plan.cost.currency.c_str(), s.expected_total, plan.cost.currency.c_str(),
        db::FormatHours(s.run.wall_hours).c_str(), db::FormatHours(s.p10_wall_hours).c_str(),
        db::FormatHours(s.p90_wall_hours).c_str(), s.run.expected_interruptions);
  }

  for (const auto& wmsg : e.warnings) out << "  warning: " << wmsg << "\n";
  for (const auto& wmsg : plan.warnings) out << "  warning: " << wmsg << "\n";
  for (const auto& a : e.assumptions) out << "  assumption: " << a << "\n";
  for (const auto& a : plan.assumptions) out << "  assumption: " << a << "\n";
}

void PrintRecommendation(const plan::Recommendation& r, std::ostream& out) {
  std::string line = fmt::format(
      "{:>4}  {:<8} {:<14} {:<28} {:<16} {:>5} {:<18} {:>10} {:>10} {:>12}\n", "rank", "cloud",
      "region", "instance type", "GPU", "nodes", "price kind", r.inference ? "p95 latency" : "time",
      r.inference ? "" : "P90", r.inference ? "cost/h" : "cost");
  out << line;
  for (size_t i = 0; i < r.items.size(); ++i) {
    const plan::RecommendedOption& c = r.items[i];
    const std::string kind(model::PriceKindName(c.price_kind));
    std::string time = r.inference ? fmt::format("{:.2f} s", c.hours) : db::FormatHours(c.hours);
    std::string p90 = r.inference ? "" : db::FormatHours(c.p90_hours);
    line = fmt::format("{:4}  {:<8} {:<14} {:<28} {:<16} {:5} {:<18} {:>10} {:>10} {:12.2f}\n",
                       i + 1, c.offer.instance.cloud.c_str(), c.offer.region.c_str(),
                       c.offer.instance.id.c_str(), c.offer.instance.gpu_id.c_str(), c.nodes,
                       kind.c_str(), time.c_str(), p90.c_str(), c.cost);
    out << line;
    for (const auto& w : c.warnings) out << "      warning: " << w << "\n";
  }
  out << "currency " << r.currency << "; " << r.considered << " options considered, " << r.feasible
      << " feasible; rejected:";
  for (const auto& [reason, n] : r.rejected) {
    if (n > 0) out << " " << reason << " " << n;
  }
  out << "\n";
  for (const auto& w : r.warnings) out << "warning: " << w << "\n";
  for (const auto& a : r.assumptions) out << "assumption: " << a << "\n";
}

void PrintComparison(const plan::Comparison& c, std::ostream& out) {
  std::string line =
      fmt::format("{:<18} {:<5} {:>12} {:>10} {:<18} {:>12} {:>12}  {}\n", "GPU", "prec",
                  "samples/s", "time", "bottleneck", "per GPU-h", "cost", "price from");
  out << line;
  for (const plan::ComparisonRow& r : c.rows) {
    if (r.error) {
      out << r.gpu << ": not estimated: " << *r.error << "\n";
      continue;
    }
    const bool fits = !r.feasibility.Has(plan::Infeasible::kDoesNotFit);
    const bool costed = r.feasibility.feasible() && r.price_per_gpu_hour;
    std::string rate = fits ? fmt::format("{:.1f}", r.estimate.samples_per_s) : "-";
    std::string time = fits ? db::FormatHours(r.estimate.total_hours) : "does not fit";
    std::string per_gpu = r.price_per_gpu_hour ? fmt::format("{:.4f}", *r.price_per_gpu_hour) : "-";
    std::string cost = costed ? fmt::format("{:.2f}", r.cost) : "-";
    std::string from = r.price_source
                           ? r.price_source->instance.id + " (" +
                                 std::to_string(r.price_source->instance.gpu_count) + " GPUs)"
                           : "";
    line = fmt::format("{:<18} {:<5} {:>12} {:>10} {:<18} {:>12} {:>12}  {}\n", r.gpu.c_str(),
                       std::string(model::PrecisionName(r.precision)).c_str(), rate.c_str(),
                       time.c_str(), fits ? r.estimate.step.bottleneck.c_str() : "-",
                       per_gpu.c_str(), cost.c_str(), from.c_str());
    out << line;
    PrintInfeasible(r.feasibility, "  ", out);
    for (const auto& w : r.warnings) out << "  warning: " << w << "\n";
  }
  out << "currency " << c.currency << ", " << c.gpus_per_node << " GPU(s) per node\n";
  for (const auto& w : c.warnings) out << "warning: " << w << "\n";
  for (const auto& a : c.assumptions) out << "assumption: " << a << "\n";
}

// What --export asks for: kJson when not given.
Result<api::ExportQuery> ExportQueryOf(const CommonPlanOptions& o, int item = 1) {
  api::ExportQuery query;
  query.item = item;
  if (o.export_format.empty()) return query;
  auto format = api::ParseExportFormat(o.export_format);
  if (!format || *format == api::PlanExportFormat::kJson) {
    return Error::Invalid("--export", "--export must be skypilot or kubernetes, got '" +
                                          o.export_format + "'");
  }
  query.format = *format;
  return query;
}

template <typename Request>
using Exporter = Result<std::string> (*)(db::CatalogReader&, const Request&, const api::ExportQuery&);

// Body -> typed request -> planner -> table, the API's JSON, or (with `exporter` and a YAML
// format in `query`) the API's YAML: one path for every command.
template <typename Request, typename Answer>
int RunPlan(const CommonPlanOptions& o, nlohmann::json flags,
            Result<Request> (*decode)(const nlohmann::json&),
            Result<Answer> (plan::Planner::*ask)(const Request&),
            std::string (*render)(const Answer&), void (*print)(const Answer&, std::ostream&),
            std::ostream& out, std::ostream& err, Exporter<Request> exporter = nullptr,
            const Result<api::ExportQuery>& query = api::ExportQuery{}) {
  if (!query.ok()) return ReportError(query.error(), err);
  auto body = RequestBody(o, std::move(flags));
  if (!body.ok()) return ReportError(body.error(), err);
  auto request = decode(*body);
  if (!request.ok()) return ReportError(request.error(), err);
  auto db = OpenCatalog(o.db);
  if (!db.ok()) return ReportError(db.error(), err);
  plan::SetStalePriceDays(o.stale_price_days);
  db::CachedCatalog catalog(**db);
  if (exporter && query->format != api::PlanExportFormat::kJson) {
    auto yaml = exporter(catalog, *request, *query);
    if (!yaml.ok()) return ReportError(yaml.error(), err);
    out << *yaml;
    return 0;
  }
  plan::Planner planner(catalog);
  auto answer = (planner.*ask)(*request);
  if (!answer.ok()) return ReportError(answer.error(), err);
  if (o.json) {
    // The API's text, indented for a terminal (keys, strings and numbers as the API
    // writes them).
    out << api::IndentJson(render(*answer)) << "\n";
  } else {
    print(*answer, out);
  }
  return 0;
}

void AddExportOption(CLI::App& app, CommonPlanOptions& o) {
  app.add_option("--export", o.export_format,
                 "print the plan as a SkyPilot task YAML or a Kubernetes manifest: "
                 "skypilot|kubernetes (what the API answers with ?format=)");
}

void AddCommonPlanOptions(CLI::App& app, CommonPlanOptions& o) {
  app.add_option("--db", o.db, "catalog: a SQLite file or a postgresql:// URL (default: the embedded seed, in memory)")
      ->envname("GPUPLAN_DB");
  app.add_option("--request", o.request_file,
                 "the request as the API takes it (JSON file, - = stdin); other flags ignored");
  app.add_flag("--json", o.json, "print exactly what the API answers");
  app.add_option("--stale-price-days", o.stale_price_days,
                 "days after which a price is flagged stale (as serve --stale-price-days)")
      ->envname("GPUPLAN_STALE_PRICE_DAYS")->check(CLI::Range(1, plan::kMaxStalePriceDays))
      ->capture_default_str();
}

void AddJobOptions(CLI::App& app, JobOptions& o) {
  app.add_option("--workload", o.workload, "workload preset id (see `gpuplan workloads`)")
      ->capture_default_str();
  app.add_option("--samples", o.samples, "training: dataset samples per epoch (or --tokens)");
  app.add_option("--epochs", o.epochs, "training: epochs (default 1)");
  app.add_option("--tokens", o.tokens, "training: total tokens (instead of samples x epochs)");
  app.add_option("--hours", o.hours, "training: a fixed duration (instead of a dataset size)");
  app.add_option("--global-batch", o.global_batch, "training: samples per optimizer step")
      ->capture_default_str();
  app.add_option("--precision", o.precision,
                 "auto|fp32|tf32|fp16|bf16|fp8|nvfp4 (auto: fp8 for a transformer on an "
                 "optimized stack where the GPU has FP8 and it is faster, else bf16, else fp16; "
                 "nvfp4: training on Blackwell, never auto)")
      ->capture_default_str();
  app.add_option("--currency", o.currency, "currency of the answer")->capture_default_str();
}

}  // namespace

void AddEstimateOptions(CLI::App& app, EstimateOptions& o) {
  AddCommonPlanOptions(app, o.common);
  AddJobOptions(app, o.job);
  app.add_option("--gpu", o.gpu, "GPU id (explicit hardware)")->capture_default_str();
  app.add_option("--gpus", o.gpus, "GPUs per node (explicit hardware)")->capture_default_str();
  app.add_option("--cloud", o.cloud, "cloud of a catalog instance type");
  app.add_option("--instance-type", o.instance_type, "catalog instance type (instead of --gpu)");
  app.add_option("--region", o.region, "region (default: the cheapest)");
  app.add_option("--nodes", o.nodes, "nodes")->capture_default_str();
  app.add_option("--interconnect", o.interconnect, "none|pcie|nvlink|nvswitch (default: from GPU)");
  app.add_option("--network-gbps", o.network_gbps, "network Gbit/s per node");
  app.add_option("--vcpus", o.vcpus, "vCPUs per node (input pipeline)");
  app.add_option("--price-per-hour", o.price_per_hour, "on-demand price per node (explicit hardware)");
  app.add_option("--spot-price-per-hour", o.spot_price_per_hour, "spot price per node");
  app.add_option("--price-currency", o.price_currency, "currency of the prices given");
  app.add_option("--pricing", o.pricing, "ondemand|spot|both")->capture_default_str();
  app.add_option("--micro-batch", o.micro_batch, "samples per GPU per pass (0 = chosen)");
  app.add_option("--optimizer", o.optimizer, "adamw|adam|lamb|sgd")->capture_default_str();
  app.add_option("--checkpointing", o.checkpointing, "none|selective|full")->capture_default_str();
  app.add_option("--framework", o.framework,
                 "auto|eager|optimized (auto: optimized for transformers, else eager)")
      ->capture_default_str();
  app.add_option("--zero-stage", o.zero_stage, "0-3 (default: choose)");
  app.add_option("--tensor-parallel", o.tensor_parallel, "tensor-parallel degree (default: choose)");
  app.add_option("--pipeline-parallel", o.pipeline_parallel, "pipeline stages (default: choose)");
  app.add_option("--context-parallel", o.context_parallel,
                 "GPUs each sequence is split over (default: searched for 16K+ tokens)");
  app.add_option("--virtual-pipeline-stages", o.virtual_pipeline_stages,
                 "interleaved 1F1B chunks per GPU (default 1)");
  app.add_option("--fp8-scaling", o.fp8_scaling, "delayed|current|mxfp8 (precision fp8; mxfp8 on Blackwell)");
  app.add_option("--sequence-parallel", o.sequence_parallel,
                 "on|off (default: on with tensor parallelism in optimized stacks)")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_flag("--tensor-parallel-overlap", o.tensor_parallel_overlap,
               "async tensor-parallel overlap (Megatron tp_comm_overlap)");
  app.add_option("--nvlink-domain-gpus", o.nvlink_domain_gpus,
                 "GPUs joined by NVLink across nodes (default: 72 for GB200/GB300)");
  AddExportOption(app, o.common);
}

void AddRecommendOptions(CLI::App& app, RecommendOptions& o) {
  AddCommonPlanOptions(app, o.common);
  AddJobOptions(app, o.job);
  app.add_option("--task", o.task, "training|inference")->capture_default_str();
  app.add_option("--input-tokens", o.input_tokens, "inference: prompt tokens per request");
  app.add_option("--output-tokens", o.output_tokens, "inference: generated tokens per request");
  app.add_option("--requests-per-s", o.requests_per_s, "inference: load to serve");
  app.add_option("--latency-slo-ms", o.latency_slo_ms, "inference: end-to-end latency target (p95)");
  app.add_option("--ttft-slo-ms", o.ttft_slo_ms, "inference: time-to-first-token target (p95)");
  app.add_option("--tpot-slo-ms", o.tpot_slo_ms, "inference: time-per-output-token target (p95)");
  app.add_option("--engine-version", o.engine_version, "inference: vLLM engine v1 (default) or v0");
  app.add_option("--max-num-seqs", o.max_num_seqs, "inference: the engine's max_num_seqs (default: its own)");
  app.add_option("--max-concurrency", o.max_concurrency, "inference: the client's concurrency cap per replica");
  app.add_option("--weight-quantization", o.weight_quantization,
                 "inference: weight storage (none|fp8|int8|int4_awq|int4_gptq|mxfp4)");
  app.add_option("--kv-cache-dtype", o.kv_cache_dtype, "inference: auto|fp8");
  app.add_option("--gpus", o.gpus, "GPU names, comma-separated (ids or prefixes: A100,H100)");
  app.add_option("--clouds", o.clouds, "clouds, comma-separated");
  app.add_option("--regions", o.regions, "regions, comma-separated");
  app.add_option("--price-kinds", o.price_kinds, "ondemand,spot");
  app.add_option("--max-nodes", o.max_nodes, "most instances per option")->capture_default_str();
  app.add_option("--deadline-hours", o.deadline_hours, "training: finish within");
  app.add_option("--budget", o.budget, "training: total; inference: per month");
  app.add_option("--deadline-confidence", o.deadline_confidence,
                 "p90|p50: the time the deadline is held to (default p90)");
  app.add_option("--distinct", o.distinct,
                 "none|instance_type|region: at most one item per instance type or region");
  app.add_flag("--include-doubtful-prices", o.include_doubtful_prices,
               "rank options whose price is flagged (spot above on-demand), with the flag");
  app.add_option("--objective", o.objective, "cost|time|balanced")->capture_default_str();
  app.add_option("--limit", o.limit, "items")->capture_default_str();
  AddExportOption(app, o.common);
  app.add_option("--item", o.item, "with --export: the item's rank (1 = the top one)")
      ->capture_default_str();
}

void AddCompareOptions(CLI::App& app, CompareOptions& o) {
  AddCommonPlanOptions(app, o.common);
  AddJobOptions(app, o.job);
  app.add_option("--gpus", o.gpus, "GPU ids, comma-separated (default: every GPU with a price)");
  app.add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node")->capture_default_str();
}

int RunEstimate(const EstimateOptions& o, std::ostream& out, std::ostream& err) {
  Exporter<plan::TrainingRequest> exporter = &api::ExportAnswer;
  return RunPlan(o.common, EstimateBody(o), &api::DecodeTrainingRequest, &plan::Planner::Training,
                 &api::TrainingPlanJson, &PrintTraining, out, err, exporter,
                 ExportQueryOf(o.common));
}

int RunRecommend(const RecommendOptions& o, std::ostream& out, std::ostream& err) {
  nlohmann::json constraints = {{"max_nodes", o.max_nodes}};
  for (auto [key, text] : {std::pair{"gpus", &o.gpus}, {"clouds", &o.clouds}, {"regions", &o.regions},
                           {"price_kinds", &o.price_kinds}}) {
    if (!text->empty()) constraints[key] = SplitList(*text);
  }
  if (o.deadline_hours > 0) constraints["deadline_hours"] = o.deadline_hours;
  if (o.budget > 0) constraints["budget"] = o.budget;
  if (!o.deadline_confidence.empty()) constraints["deadline_confidence"] = o.deadline_confidence;
  if (!o.distinct.empty()) constraints["distinct"] = o.distinct;
  if (o.include_doubtful_prices) constraints["include_doubtful_prices"] = true;
  nlohmann::json flags = TrainingJobBody(o.job, o.task != "inference");
  flags["task"] = o.task;
  flags["objective"] = o.objective;
  flags["limit"] = o.limit;
  flags["constraints"] = constraints;
  if (o.task == "inference") {
    flags["input_tokens"] = o.input_tokens;
    flags["output_tokens"] = o.output_tokens;
    flags["target_requests_per_s"] = o.requests_per_s;
    if (o.latency_slo_ms > 0) flags["latency_slo_ms"] = o.latency_slo_ms;
    if (o.ttft_slo_ms > 0) flags["ttft_slo_ms"] = o.ttft_slo_ms;
    if (o.tpot_slo_ms > 0) flags["tpot_slo_ms"] = o.tpot_slo_ms;
    nlohmann::json engine = nlohmann::json::object();
    if (!o.engine_version.empty()) engine["version"] = o.engine_version;
    if (o.max_num_seqs) engine["max_num_seqs"] = *o.max_num_seqs;  // out of range: the API's 422
    if (!engine.empty()) flags["engine"] = engine;
    if (o.max_concurrency) flags["max_concurrency"] = *o.max_concurrency;
    if (!o.weight_quantization.empty()) flags["weight_quantization"] = o.weight_quantization;
    if (!o.kv_cache_dtype.empty()) flags["kv_cache_dtype"] = o.kv_cache_dtype;
  }
  Exporter<plan::RecommendRequest> exporter = &api::ExportAnswer;
  return RunPlan(o.common, std::move(flags), &api::DecodeRecommendRequest,
                 &plan::Planner::Recommend, &api::RecommendationJson, &PrintRecommendation, out,
                 err, exporter, ExportQueryOf(o.common, o.item));
}

int RunCompare(const CompareOptions& o, std::ostream& out, std::ostream& err) {
  nlohmann::json flags = TrainingJobBody(o.job);
  flags["gpus_per_node"] = o.gpus_per_node;
  if (!o.gpus.empty()) flags["gpus"] = SplitList(o.gpus);
  return RunPlan(o.common, std::move(flags), &api::DecodeCompareRequest, &plan::Planner::Compare,
                 &api::ComparisonJson, &PrintComparison, out, err);
}

}  // namespace gpuplan::server
