#include "api/plan_export.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <utility>
#include <vector>

#include "api/gpu_product_labels.h"
#include "db/text.h"

namespace gpuplan::api {

namespace {

constexpr int kServicePort = 8080;
constexpr const char* kReadinessPath = "/health";
constexpr const char* kPlaceholderImage = "your-registry/your-image:tag";

std::string Minutes(double m) { return db::FormatNumber("%.1f", m); }
std::string Hours(double h) { return db::FormatNumber("%.2f", h); }

// One line of a comment: no line breaks inside.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// The plan's figures as environment variables, in a fixed order; only those that apply.
std::vector<std::pair<std::string, std::string>> PlanEnv(const plan::RunnablePlan& p) {
  std::vector<std::pair<std::string, std::string>> env;
  if (p.checkpoint_interval_minutes > 0) {
    env.emplace_back("GPUPLAN_CHECKPOINT_INTERVAL_MINUTES", Minutes(p.checkpoint_interval_minutes));
  }
  if (p.switch_to_ondemand_at_hours) {
    env.emplace_back("GPUPLAN_SWITCH_TO_ONDEMAND_AT_HOURS", Hours(*p.switch_to_ondemand_at_hours));
  }
  if (p.deadline_hours) env.emplace_back("GPUPLAN_DEADLINE_HOURS", Hours(*p.deadline_hours));
  if (!p.inference && p.expected_hours > 0) {
    env.emplace_back("GPUPLAN_EXPECTED_HOURS", Hours(p.expected_hours));
  }
  env.emplace_back("GPUPLAN_PRICE_KIND", p.price_kind);
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

// The comment block at the top: what the plan is, what to replace, and its notes.
std::string Header(const plan::RunnablePlan& p, const std::vector<std::string>& extra) {
  std::vector<std::string> lines;
  lines.push_back("gpuplan runnable plan: " + std::string(p.inference ? "serving " : "training ") +
                  p.workload_name + " (" + p.workload_id + ")");
  std::string where = p.cloud.empty() ? "explicit hardware"
                                      : p.cloud + " " + p.region + " " + p.instance_type;
  lines.push_back(where + ": " + std::to_string(p.nodes) + " node(s) x " +
                  std::to_string(p.gpus_per_node) + " " + p.gpu_id + ", price kind " + p.price_kind);
  if (p.inference) {
    lines.push_back(std::to_string(p.replicas) + " model replica(s) of " +
                    std::to_string(p.gpus_per_replica) + " GPU(s)" +
                    (p.expected_cost ? ", expected cost " + db::FormatNumber("%.2f", *p.expected_cost) + " " +
                                           p.currency + " per hour"
                                     : ""));
  } else {
    std::string time = "expected " + Hours(p.expected_hours) + " h";
    if (p.p90_hours > 0) time += " (P90 " + Hours(p.p90_hours) + " h)";
    if (p.expected_cost) time += ", expected cost " + db::FormatNumber("%.2f", *p.expected_cost) + " " + p.currency;
    lines.push_back(time);
  }
  for (const auto& e : extra) lines.push_back(e);
  for (const auto& n : p.notes) lines.push_back("note: " + n);
  std::string out;
  for (const auto& l : lines) out += "# " + OneLine(l) + "\n";
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
  if (p.checkpoint_interval_minutes > 0) {
    s += "# It must write a checkpoint every $GPUPLAN_CHECKPOINT_INTERVAL_MINUTES minutes and "
         "resume from the latest one.\n";
  }
  if (p.switch_to_ondemand_at_hours) {
    s += "# Not finished $GPUPLAN_SWITCH_TO_ONDEMAND_AT_HOURS h after the start: checkpoint, "
         "relaunch with use_spot: false.\n";
  }
  s += "echo \"gpuplan placeholder: train on $GPUPLAN_NUM_NODES node(s) x $GPUPLAN_GPUS_PER_NODE "
       "GPU(s), precision $GPUPLAN_PRECISION";
  if (p.checkpoint_interval_minutes > 0) {
    s += ", checkpoint every $GPUPLAN_CHECKPOINT_INTERVAL_MINUTES min";
  }
  s += "\"\nexit 1";
  return s;
}

}  // namespace

std::optional<ExportFormat> ParseExportFormat(std::string_view name) {
  if (name == "json") return ExportFormat::kJson;
  if (name == "skypilot") return ExportFormat::kSkyPilot;
  if (name == "kubernetes") return ExportFormat::kKubernetes;
  return std::nullopt;
}

std::string SkyPilotYaml(const plan::RunnablePlan& p) {
  std::vector<std::string> extra;
  extra.push_back("placeholders: setup and run only echo and fail; replace them with your own "
                  "commands (the GPUPLAN_* envs carry the plan)");
  std::string accelerator = p.skypilot_accelerator;
  if (accelerator.empty()) {
    accelerator = p.gpu_id;
    extra.push_back("accelerators: the catalog has no SkyPilot name for " + p.gpu_id +
                    "; its catalog id is used (check `sky show-gpus`)");
  }
  if (!p.cloud.empty()) {
    extra.push_back("resources.cloud and region pin the plan's offer (newer SkyPilot also "
                    "takes infra: " + p.cloud + "/" + p.region + ")");
  }
  if (p.use_spot && !p.inference) {
    extra.push_back("spot: launch with `sky jobs launch` so that SkyPilot relaunches the job "
                    "after a preemption");
  }
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << p.name;
  if (p.inference) {
    out << YAML::Key << "service" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "readiness_probe" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "path" << YAML::Value << kReadinessPath;
    out << YAML::Key << "initial_delay_seconds" << YAML::Value << 1200;
    out << YAML::EndMap;
    // One SkyPilot replica is one instance, serving its share of the model replicas.
    out << YAML::Key << "replicas" << YAML::Value << p.nodes;
    out << YAML::EndMap;
  }
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  if (!p.cloud.empty()) {
    out << YAML::Key << "cloud" << YAML::Value << p.cloud;
    out << YAML::Key << "region" << YAML::Value << p.region;
    out << YAML::Key << "instance_type" << YAML::Value << p.instance_type;
  }
  out << YAML::Key << "accelerators" << YAML::Value
      << accelerator + ":" + std::to_string(p.gpus_per_node);
  out << YAML::Key << "use_spot" << YAML::Value << p.use_spot;
  if (p.inference) out << YAML::Key << "ports" << YAML::Value << kServicePort;
  out << YAML::EndMap;
  if (!p.inference) out << YAML::Key << "num_nodes" << YAML::Value << p.nodes;
  out << YAML::Key << "envs" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : PlanEnv(p)) out << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
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
  out << YAML::Key << "name" << YAML::Value << p.name;
  out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "app.kubernetes.io/name" << YAML::Value << p.name;
  out << YAML::Key << "app.kubernetes.io/managed-by" << YAML::Value << "gpuplan";
  out << YAML::EndMap;
  out << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "gpuplan/workload" << YAML::Value << p.workload_id;
  if (!p.cloud.empty()) {
    out << YAML::Key << "gpuplan/cloud" << YAML::Value << p.cloud;
    out << YAML::Key << "gpuplan/region" << YAML::Value << p.region;
    out << YAML::Key << "gpuplan/instance-type" << YAML::Value << p.instance_type;
  }
  out << YAML::Key << "gpuplan/gpu" << YAML::Value << p.gpu_id;
  out << YAML::Key << "gpuplan/price-kind" << YAML::Value << p.price_kind;
  if (p.expected_cost) {
    out << YAML::Key << "gpuplan/expected-cost" << YAML::Value << YAML::DoubleQuoted
        << db::FormatNumber("%.2f", *p.expected_cost) + " " + p.currency + (p.inference ? "/h" : "");
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
}

// nodeSelector: the GPU product label (and the cloud's spot capacity label); `extra` gets
// the comments the selector needs.
void NodeSelector(YAML::Emitter& out, const plan::RunnablePlan& p, std::vector<std::string>& extra) {
  std::vector<std::pair<std::string, std::string>> labels;
  auto product = GfdProductLabel(p.gpu_id, p.gpu_vendor);
  if (product) {
    labels.emplace_back(kGpuProductLabel, product->value);
    if (!product->sourced) {
      extra.push_back(std::string("derived label: ") + kGpuProductLabel + "=" + product->value +
                      " follows GPU Feature Discovery's naming but was not seen on a node; check "
                      "`kubectl get nodes -L " + kGpuProductLabel + "`");
    }
  } else {
    extra.push_back("no GPU Feature Discovery label for " + p.gpu_vendor + " GPU " + p.gpu_id +
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
  for (const auto& [k, v] : labels) out << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
  out << YAML::EndMap;
}

void Container(YAML::Emitter& out, const plan::RunnablePlan& p, int gpus) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << (p.inference ? "serve" : "train");
  out << YAML::Key << "image" << YAML::Value << kPlaceholderImage;
  out << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq << "/bin/sh"
      << "-c" << YAML::EndSeq;
  std::string script =
      p.inference
          ? "echo \"gpuplan placeholder: serve on port " + std::to_string(kServicePort) +
                " with $GPUPLAN_GPUS_PER_MODEL_REPLICA GPU(s), precision $GPUPLAN_PRECISION\"; exit 1"
          : "echo \"gpuplan placeholder: train, rank $JOB_COMPLETION_INDEX of $GPUPLAN_NUM_NODES" +
                std::string(p.checkpoint_interval_minutes > 0
                                 ? ", checkpoint every $GPUPLAN_CHECKPOINT_INTERVAL_MINUTES min"
                                 : "") +
                "\"; exit 1";
  out << YAML::Key << "args" << YAML::Value << YAML::BeginSeq << YAML::DoubleQuoted << script
      << YAML::EndSeq;
  out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
  for (const auto& [k, v] : PlanEnv(p)) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << k << YAML::Key << "value"
        << YAML::Value << YAML::DoubleQuoted << v << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (p.inference) {
    out << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
        << "containerPort" << YAML::Value << kServicePort << YAML::EndMap << YAML::EndSeq;
    out << YAML::Key << "readinessProbe" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "httpGet" << YAML::Value << YAML::BeginMap << YAML::Key << "path"
        << YAML::Value << kReadinessPath << YAML::Key << "port" << YAML::Value << kServicePort
        << YAML::EndMap;
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
  out.SetIndent(2);
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << (p.inference ? "apps/v1" : "batch/v1");
  out << YAML::Key << "kind" << YAML::Value << (p.inference ? "Deployment" : "Job");
  Metadata(out, p);
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  if (p.inference) {
    out << YAML::Key << "replicas" << YAML::Value << p.replicas;
    out << YAML::Key << "selector" << YAML::Value << YAML::BeginMap << YAML::Key << "matchLabels"
        << YAML::Value << YAML::BeginMap << YAML::Key << "app.kubernetes.io/name" << YAML::Value
        << p.name << YAML::EndMap << YAML::EndMap;
    extra.push_back("one pod per model replica (" + std::to_string(p.gpus_per_replica) +
                    " GPU(s)); the plan packs them on " + std::to_string(p.nodes) + " node(s)");
  } else {
    out << YAML::Key << "completions" << YAML::Value << p.nodes;
    out << YAML::Key << "parallelism" << YAML::Value << p.nodes;
    if (p.nodes > 1) {
      out << YAML::Key << "completionMode" << YAML::Value << "Indexed";
      extra.push_back("multi-node: one pod per node, rank in JOB_COMPLETION_INDEX; pods reach "
                      "each other through a headless Service named " + p.name +
                      " (not included) and spec.template.spec.subdomain");
    }
    if (p.use_spot) {
      out << YAML::Key << "backoffLimit" << YAML::Value << 10;
      extra.push_back("spot: backoffLimit 10 lets the Job start again after preemptions; each "
                      "restart must resume from the latest checkpoint");
    }
    if (p.deadline_hours) {
      out << YAML::Key << "activeDeadlineSeconds" << YAML::Value
          << static_cast<long long>(std::ceil(*p.deadline_hours * 3600));
    }
  }
  out << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "labels"
      << YAML::Value << YAML::BeginMap << YAML::Key << "app.kubernetes.io/name" << YAML::Value
      << p.name << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  if (!p.inference) {
    out << YAML::Key << "restartPolicy" << YAML::Value << "Never";
    if (p.nodes > 1) out << YAML::Key << "subdomain" << YAML::Value << p.name;
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

std::string ExportYaml(const plan::RunnablePlan& plan, ExportFormat format) {
  return format == ExportFormat::kKubernetes ? KubernetesYaml(plan) : SkyPilotYaml(plan);
}

}  // namespace gpuplan::api
