// A runnable plan (plan/runnable.h) as a manifest a scheduler takes:
//   SkyPilot: a task YAML for training (name, resources {cloud, region, instance_type,
//     accelerators "<SkyPilot name>:<GPUs per node>", use_spot}, num_nodes, envs, setup,
//     run), a service YAML for inference (the same plus service {readiness_probe,
//     replicas} and resources.ports);
//   Kubernetes: a batch/v1 Job for training (parallelism = completions = nodes, Indexed
//     completion for several nodes, nvidia.com/gpu requests = GPUs per node, nodeSelector on
//     the GPU Feature Discovery product label the plan carries (gpu_product_label, filled by
//     plan::AddCatalogNames), activeDeadlineSeconds from the deadline), an
//     apps/v1 Deployment for inference (replicas = model replicas, GPUs per replica).
// The plan's figures travel as environment variables (GPUPLAN_CHECKPOINT_INTERVAL_MINUTES,
// GPUPLAN_SWITCH_TO_ONDEMAND_AT_HOURS, GPUPLAN_DEADLINE_HOURS, GPUPLAN_EXPECTED_HOURS, ...);
// the container image, setup and run command are placeholders the user replaces, and
// comments at the top state them, every note of the plan and every derived label.
// Data, never code: every document is one YAML document built by yaml-cpp's emitter, every
// string value double-quoted with non-ASCII escaped (YAML 1.1 reads a plain off, 012, 0x10
// or true as a boolean or a number), object names DNS-1123 labels and label values
// Kubernetes label values (plan::IsDns1123Label, IsLabelValue); the comments are fixed text
// plus values of at most 80 bytes of [A-Za-z0-9 ._:/()+,-] and notes of printable ASCII,
// anything else left out (and the comments say so), never echoed. Figures that are not
// finite are never printed ("unknown"); the routes refuse such plans first
// (plan::CheckRunnable). Deterministic: the same plan renders the same text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "plan/runnable.h"

namespace gpuplan::api {

enum class PlanExportFormat { kJson, kSkyPilot, kKubernetes };

inline constexpr const char* kYamlContentType = "application/yaml";

// "json", "skypilot", "kubernetes"; nullopt for anything else.
std::optional<PlanExportFormat> ParseExportFormat(std::string_view name);

std::string SkyPilotYaml(const plan::RunnablePlan& plan);
std::string KubernetesYaml(const plan::RunnablePlan& plan);
// One of the two above; `format` is kSkyPilot or kKubernetes.
std::string ExportYaml(const plan::RunnablePlan& plan, PlanExportFormat format);

}  // namespace gpuplan::api
