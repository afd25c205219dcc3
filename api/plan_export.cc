#include "api/plan_export.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "db/text.h"

namespace gpuplan::api {

namespace {

constexpr int kServicePort = 8080;
constexpr const char* kReadinessPath = "/health";
constexpr const char* kPlaceholderImage = "your-registry/your-image:tag";

constexpr size_t kMaxCommentValueBytes = 80;
constexpr size_t kMaxCommentLineBytes = 1000;
constexpr const char* kOmitted = "<omitted>";

// A figure a launcher reads, with `decimals` after the point; "unknown" when it is not finite
// (CheckRunnable keeps such plans from the routes; the renderers never print inf or nan
// either way).
std::string Figure(int decimals, double value) {
  return std::isfinite(value) ? fmt::format("{:.{}f}", value, decimals) : "unknown";
}
std::string Minutes(double m) { return Figure(1, m); }
std::string Hours(double h) { return Figure(2, h); }
std::string Money(double amount) { return Figure(2, amount); }

bool InCommentAllowlist(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view(" ._:/()+,-").find(c) != std::string_view::npos;
}

// A value (name, id, vendor, currency) as comment text: itself when it is at most
// kMaxCommentValueBytes of [A-Za-z0-9 ._:/()+,-], else kOmitted (never echoed).
std::string CommentValue(const std::string& value) {
  bool allowed = value.size() <= kMaxCommentValueBytes &&
                 std::all_of(value.begin(), value.end(), InCommentAllowlist);
  return allowed ? value : kOmitted;
}

// A comment line of fixed text and CommentValues (or a note of the plan, whose values are
// catalog ids and numbers): printable ASCII, at most kMaxCommentLineBytes; nullopt for
// anything else, which is left out. No byte of a kept line ends a YAML 1.1 comment.
std::optional<std::string> CommentLine(const std::string& line) {
  if (line.size() > kMaxCommentLineBytes) return std::nullopt;
  for (char c : line) {
    if (c < 0x20 || c > 0x7E) return std::nullopt;
  }
  return line;
}

// Every string value double-quoted: YAML 1.1 reads a plain off, 012, 0x10 or true as a
// boolean or a number. With EscapeNonAscii (Emitter()) a quoted value is printable ASCII.
void Put(YAML::Emitter& out, const std::string& key, const std::string& value) {
  out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}

YAML::Emitter& Emitter(YAML::Emitter& out) {
  out.SetIndent(2);
  out.SetOutputCharset(YAML::EscapeNonAscii);
  return out;
}

// The Kubernetes object and SkyPilot task name: the plan's, when it is a DNS-1123 label
// (PlanName makes one), else one derived from it.
std::string ObjectName(const plan::RunnablePlan& p) {
  return plan::IsDns1123Label(p.name) ? p.name : plan::PlanName(p.name);
}

bool HasCheckpoints(const plan::RunnablePlan& p) {
  return p.checkpoint_interval_minutes > 0 && std::isfinite(p.checkpoint_interval_minutes);
}

// The plan's figures as environment variables, in a fixed order; only those that apply.
std::vector<std::pair<std::string, std::string>> PlanEnv(const plan::RunnablePlan& p) {
  std::vector<std::pair<std::string, std::string>> env;
  if (HasCheckpoints(p)) {
    env.emplace_back("GPUPLAN_CHECKPOINT_INTERVAL_MINUTES", Minutes(p.checkpoint_interval_minutes));
  }
  if (p.switch_to_ondemand_at_hours) {
    env.emplace_back("GPUPLAN_SWITCH_TO_ONDEMAND_AT_HOURS", Hours(*p.switch_to_ondemand_at_hours));
  }
  if (p.deadline_hours) env.emplace_back("GPUPLAN_DEADLINE_HOURS", Hours(*p.deadline_hours));
  if (!p.inference && p.expected_hours > 0 && std::isfinite(p.expected_hours)) {
    env.emplace_back("GPUPLAN_EXPECTED_HOURS", Hours(p.expected_hours));
  }
  env.emplace_back("GPUPLAN_PRICE_KIND", std::string(model::PriceKindName(p.price_kind)));
  if (!p.precision.empty()) env.emplace_back("GPUPLAN_PRECISION", p.precision);
  if (p.inference) {
    env.emplace_back("GPUPLAN_MODEL_REPLICAS", std::to_string(p.replicas));
    env.emplace_back("GPUPLAN_GPUS_PER_MODEL_REPLICA", std::to_string(p.gpus_per_replica));
  } else {
    env.emplace_back("GPUPLAN_NUM_NODES", std::to_string(p.nodes));
    env.emplace_back("GPUPLAN_GPUS_PER_NODE", std::to_string(p.gpus_per_node));
    if (p.global_batch > 0) env.emplace_back("GPUPLAN_GLOBAL_BATCH_SIZE", std::to_string(p.global_batch));
    if (p.micro_batch > 0) env.emplace_back("GPUPLAN_MICRO_BATCH_SIZE", std::to_string(p.micro_batch));
  }
  return env;
}

// The comment block at the top: what the plan is, what to replace, and its notes. Values
// pass CommentValue and lines CommentLine; what does not is left out and the block says so.
std::string Header(const plan::RunnablePlan& p, const std::vector<std::string>& extra) {
  std::vector<std::string> lines;
  lines.push_back("gpuplan runnable plan: " + std::string(p.inference ? "serving " : "training ") +
                  CommentValue(p.workload_name) + " (" + CommentValue(p.workload_id) + ")");
  std::string where = p.cloud.empty() ? "explicit hardware"
                                      : CommentValue(p.cloud) + " " + CommentValue(p.region) +
                                            " " + CommentValue(p.instance_type);
  lines.push_back(where + ": " + std::to_string(p.nodes) + " node(s) x " +
                  std::to_string(p.gpus_per_node) + " " + CommentValue(p.gpu_id) +
                  ", price kind " + CommentValue(std::string(model::PriceKindName(p.price_kind))));
  std::string cost = p.expected_cost && std::isfinite(*p.expected_cost)
                         ? ", expected cost " + Money(*p.expected_cost) + " " + CommentValue(p.currency)
                         : "";
  if (p.inference) {
    lines.push_back(std::to_string(p.replicas) + " model replica(s) of " +
                    std::to_string(p.gpus_per_replica) + " GPU(s)" +
                    (cost.empty() ? "" : cost + " per hour"));
  } else {
    std::string time = "expected " + Hours(p.expected_hours) + " h";
    if (p.p90_hours > 0 && std::isfinite(p.p90_hours)) time += " (P90 " + Hours(p.p90_hours) + " h)";
    lines.push_back(time + cost);
  }
  for (const auto& e : extra) lines.push_back(e);
  for (const auto& n : p.notes) lines.push_back("note: " + n);
  std::string out;
  bool omitted = false;
  for (const auto& l : lines) {
    auto line = CommentLine(l);
    omitted = omitted || !line || l.find(kOmitted) != std::string::npos;
    if (line) out += "# " + *line + "\n";
  }
  if (omitted) {
    out += std::string("# a value or note was left out of these comments (") + kOmitted +
           "): comments carry only [A-Za-z0-9 ._:/()+,-] values of at most " +
           std::to_string(kMaxCommentValueBytes) + " bytes\n";
  }
  return out;
}

std::string Document(const plan::RunnablePlan& p, const std::vector<std::string>& extra,
                     const YAML::Emitter& body) {
  return Header(p, extra) + body.c_str() + "\n";
}

// ---- SkyPilot ----

std::string RunScript(const plan::RunnablePlan& p) {
  std::string s;
  if (p.inference) {
    s += "# Placeholder: start your model server on port " + std::to_string(kServicePort) +
         ", answering GET " + kReadinessPath + " when ready,\n";
    s += "# with $GPUPLAN_GPUS_PER_MODEL_REPLICA GPU(s) per model replica.\n";
    s += "echo \"gpuplan placeholder: serve $GPUPLAN_MODEL_REPLICAS replica(s) in all, "
         "$GPUPLAN_GPUS_PER_MODEL_REPLICA GPU(s) each, precision $GPUPLAN_PRECISION\"\n";
    s += "exit 1";
    return s;
  }
  s += "# Placeholder: start your training script on each node ($SKYPILOT_NODE_RANK of "
       "$SKYPILOT_NUM_NODES,\n# head at the first of $SKYPILOT_NODE_IPS).\n";
  if (HasCheckpoints(p)) {
    s += "# It must write a checkpoint every $GPUPLAN_CHECKPOINT_INTERVAL_MINUTES minutes and "
         "resume from the latest one.\n";
  }
  if (p.switch_to_ondemand_at_hours) {
    s += "# Not finished $GPUPLAN_SWITCH_TO_ONDEMAND_AT_HOURS h after the start: checkpoint, "
         "relaunch with use_spot: false.\n";
  }
  s += "echo \"gpuplan placeholder: train on $GPUPLAN_NUM_NODES node(s) x $GPUPLAN_GPUS_PER_NODE "
       "GPU(s), precision $GPUPLAN_PRECISION";
  if (HasCheckpoints(p)) {
    s += ", checkpoint every $GPUPLAN_CHECKPOINT_INTERVAL_MINUTES min";
  }
  s += "\"\nexit 1";
  return s;
}

}  // namespace

std::optional<PlanExportFormat> ParseExportFormat(std::string_view name) {
  if (name == "json") return PlanExportFormat::kJson;
  if (name == "skypilot") return PlanExportFormat::kSkyPilot;
  if (name == "kubernetes") return PlanExportFormat::kKubernetes;
  return std::nullopt;
}

std::string SkyPilotYaml(const plan::RunnablePlan& p) {
  std::vector<std::string> extra;
  extra.push_back("placeholders: setup and run only echo and fail; replace them with your own "
                  "commands (the GPUPLAN_* envs carry the plan)");
  std::string accelerator = p.skypilot_accelerator;
  if (accelerator.empty()) {
    accelerator = p.gpu_id;
    extra.push_back("accelerators: the catalog has no SkyPilot name for " + CommentValue(p.gpu_id) +
                    "; its catalog id is used (check `sky show-gpus`)");
  }
  if (!p.cloud.empty()) {
    extra.push_back("resources.cloud and region pin the plan's offer (newer SkyPilot also "
                    "takes infra: " + CommentValue(p.cloud) + "/" + CommentValue(p.region) + ")");
  }
  if (p.use_spot && !p.inference) {
    extra.push_back("spot: launch with `sky jobs launch` so that SkyPilot relaunches the job "
                    "after a preemption");
  }
  YAML::Emitter out;
  Emitter(out) << YAML::BeginMap;
  Put(out, "name", ObjectName(p));
  if (p.inference) {
    out << YAML::Key << "service" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "readiness_probe" << YAML::Value << YAML::BeginMap;
    Put(out, "path", kReadinessPath);
    out << YAML::Key << "initial_delay_seconds" << YAML::Value << 1200;
    out << YAML::EndMap;
    // One SkyPilot replica is one instance, serving its share of the model replicas.
    out << YAML::Key << "replicas" << YAML::Value << p.nodes;
    out << YAML::EndMap;
  }
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  if (!p.cloud.empty()) {
    Put(out, "cloud", p.cloud);
    Put(out, "region", p.region);
    Put(out, "instance_type", p.instance_type);
  }
  Put(out, "accelerators", accelerator + ":" + std::to_string(p.gpus_per_node));
  out << YAML::Key << "use_spot" << YAML::Value << p.use_spot;
  if (p.inference) out << YAML::Key << "ports" << YAML::Value << kServicePort;
  out << YAML::EndMap;
  if (!p.inference) out << YAML::Key << "num_nodes" << YAML::Value << p.nodes;
  out << YAML::Key << "envs" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : PlanEnv(p)) Put(out, k, v);
  out << YAML::EndMap;
  out << YAML::Key << "setup" << YAML::Value << YAML::Literal
      << "# Placeholder: install your code's dependencies here.\necho \"gpuplan placeholder: no setup\"";
  out << YAML::Key << "run" << YAML::Value << YAML::Literal << RunScript(p);
  out << YAML::EndMap;
  return Document(p, extra, out);
}

// ---- Kubernetes ----

namespace {

// The extended resource a container asks for the plan's GPUs by.
std::string GpuResource(const plan::RunnablePlan& p) {
  if (p.gpu_vendor == "AMD") return "amd.com/gpu";
  if (p.gpu_vendor == "Google") return "google.com/tpu";
  return "nvidia.com/gpu";
}

void Metadata(YAML::Emitter& out, const plan::RunnablePlan& p) {
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  Put(out, "name", ObjectName(p));
  out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  Put(out, "app.kubernetes.io/name", ObjectName(p));
  Put(out, "app.kubernetes.io/managed-by", "gpuplan");
  out << YAML::EndMap;
  // Annotation values are any string; quoted like every value.
  out << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
  Put(out, "gpuplan/workload", p.workload_id);
  if (!p.cloud.empty()) {
    Put(out, "gpuplan/cloud", p.cloud);
    Put(out, "gpuplan/region", p.region);
    Put(out, "gpuplan/instance-type", p.instance_type);
  }
  Put(out, "gpuplan/gpu", p.gpu_id);
  Put(out, "gpuplan/price-kind", std::string(model::PriceKindName(p.price_kind)));
  if (p.expected_cost && std::isfinite(*p.expected_cost)) {
    Put(out, "gpuplan/expected-cost",
        Money(*p.expected_cost) + " " + p.currency + (p.inference ? "/h" : ""));
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
}

// nodeSelector: the plan's GPU product label (and the cloud's spot capacity label); `extra`
// gets the comments the selector needs. A label that is not a label value (a plan not
// built by plan::AddCatalogNames) is rendered as none.
void NodeSelector(YAML::Emitter& out, const plan::RunnablePlan& p, std::vector<std::string>& extra) {
  using plan::kGpuProductLabel;
  std::vector<std::pair<std::string, std::string>> labels;
  const auto& product = p.gpu_product_label;
  if (product && plan::IsLabelValue(product->value)) {
    labels.emplace_back(kGpuProductLabel, product->value);
    if (!product->sourced) {
      extra.push_back(std::string("derived label: ") + kGpuProductLabel + "=" + product->value +
                      " follows GPU Feature Discovery's naming but was not seen on a node; check "
                      "`kubectl get nodes -L " + kGpuProductLabel + "`");
    }
  } else {
    extra.push_back("no GPU Feature Discovery label for " + CommentValue(p.gpu_vendor) + " GPU " +
                    CommentValue(p.gpu_id) +
                    ": add a nodeSelector for your cluster's label of it");
  }
  if (p.use_spot) {
    if (p.cloud == "aws") {
      labels.emplace_back("eks.amazonaws.com/capacityType", "SPOT");
      extra.push_back("spot: eks.amazonaws.com/capacityType=SPOT is the label of EKS managed node "
                      "groups; Karpenter uses karpenter.sh/capacity-type=spot");
    } else if (p.cloud == "gcp") {
      labels.emplace_back("cloud.google.com/gke-spot", "true");
      extra.push_back("spot: cloud.google.com/gke-spot=true is GKE's label of Spot VM nodes");
    } else {
      extra.push_back("spot: select your cluster's spot (preemptible) nodes; no label is set here");
    }
  }
  if (labels.empty()) return;
  out << YAML::Key << "nodeSelector" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : labels) Put(out, k, v);
  out << YAML::EndMap;
}

void Container(YAML::Emitter& out, const plan::RunnablePlan& p, int gpus) {
  out << YAML::BeginMap;
  Put(out, "name", p.inference ? "serve" : "train");
  Put(out, "image", kPlaceholderImage);
  out << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq
      << YAML::DoubleQuoted << "/bin/sh" << YAML::DoubleQuoted << "-c" << YAML::EndSeq;
  std::string script =
      p.inference
          ? "echo \"gpuplan placeholder: serve on port " + std::to_string(kServicePort) +
                " with $GPUPLAN_GPUS_PER_MODEL_REPLICA GPU(s), precision $GPUPLAN_PRECISION\"; exit 1"
          : "echo \"gpuplan placeholder: train, rank $JOB_COMPLETION_INDEX of $GPUPLAN_NUM_NODES" +
                std::string(HasCheckpoints(p)
                                 ? ", checkpoint every $GPUPLAN_CHECKPOINT_INTERVAL_MINUTES min"
                                 : "") +
                "\"; exit 1";
  out << YAML::Key << "args" << YAML::Value << YAML::BeginSeq << YAML::DoubleQuoted << script
      << YAML::EndSeq;
  out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
  for (const auto& [k, v] : PlanEnv(p)) {
    out << YAML::BeginMap;
    Put(out, "name", k);
    Put(out, "value", v);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (p.inference) {
    out << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
        << "containerPort" << YAML::Value << kServicePort << YAML::EndMap << YAML::EndSeq;
    out << YAML::Key << "readinessProbe" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "httpGet" << YAML::Value << YAML::BeginMap;
    Put(out, "path", kReadinessPath);
    out << YAML::Key << "port" << YAML::Value << kServicePort << YAML::EndMap;
    out << YAML::EndMap;
  }
  std::string resource = GpuResource(p);
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  for (const char* side : {"limits", "requests"}) {
    out << YAML::Key << side << YAML::Value << YAML::BeginMap << YAML::Key << resource
        << YAML::Value << gpus << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
}

}  // namespace

std::string KubernetesYaml(const plan::RunnablePlan& p) {
  std::vector<std::string> extra;
  extra.push_back(std::string("placeholders: image ") + kPlaceholderImage +
                  " and the container's command only echo and fail; replace them (the GPUPLAN_* "
                  "env carries the plan)");
  YAML::Emitter out;
  Emitter(out) << YAML::BeginMap;
  Put(out, "apiVersion", p.inference ? "apps/v1" : "batch/v1");
  Put(out, "kind", p.inference ? "Deployment" : "Job");
  Metadata(out, p);
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  if (p.inference) {
    out << YAML::Key << "replicas" << YAML::Value << p.replicas;
    out << YAML::Key << "selector" << YAML::Value << YAML::BeginMap << YAML::Key << "matchLabels"
        << YAML::Value << YAML::BeginMap;
    Put(out, "app.kubernetes.io/name", ObjectName(p));
    out << YAML::EndMap << YAML::EndMap;
    extra.push_back("one pod per model replica (" + std::to_string(p.gpus_per_replica) +
                    " GPU(s)); the plan packs them on " + std::to_string(p.nodes) + " node(s)");
  } else {
    out << YAML::Key << "completions" << YAML::Value << p.nodes;
    out << YAML::Key << "parallelism" << YAML::Value << p.nodes;
    if (p.nodes > 1) {
      Put(out, "completionMode", "Indexed");
      extra.push_back("multi-node: one pod per node, rank in JOB_COMPLETION_INDEX; pods reach "
                      "each other through a headless Service named " + ObjectName(p) +
                      " (not included) and spec.template.spec.subdomain");
    }
    if (p.use_spot) {
      out << YAML::Key << "backoffLimit" << YAML::Value << 10;
      extra.push_back("spot: backoffLimit 10 lets the Job start again after preemptions; each "
                      "restart must resume from the latest checkpoint");
    }
    if (auto seconds = plan::DeadlineSeconds(p)) {
      out << YAML::Key << "activeDeadlineSeconds" << YAML::Value << *seconds;
    }
  }
  out << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "labels"
      << YAML::Value << YAML::BeginMap;
  Put(out, "app.kubernetes.io/name", ObjectName(p));
  out << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  if (!p.inference) {
    Put(out, "restartPolicy", "Never");
    if (p.nodes > 1) Put(out, "subdomain", ObjectName(p));
  }
  NodeSelector(out, p, extra);
  out << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq;
  Container(out, p, p.inference ? p.gpus_per_replica : p.gpus_per_node);
  out << YAML::EndSeq;
  out << YAML::EndMap;  // pod spec
  out << YAML::EndMap;  // template
  out << YAML::EndMap;  // spec
  out << YAML::EndMap;
  return Document(p, extra, out);
}

std::string ExportYaml(const plan::RunnablePlan& plan, PlanExportFormat format) {
  return format == PlanExportFormat::kKubernetes ? KubernetesYaml(plan) : SkyPilotYaml(plan);
}

}  // namespace gpuplan::api
