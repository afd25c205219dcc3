#include "tests/testing/yaml11.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/testing/temp_dir.h"

namespace gpuplan::testing {

namespace {

// tests/support/yaml_shape.py of this source tree (STATIC_DIR is <source>/static).
std::string ShapeScript() { return std::string(STATIC_DIR) + "/../tests/support/yaml_shape.py"; }

std::string Quoted(const std::string& path) { return "'" + path + "'"; }

Yaml11 FromLine(const std::string& line) {
  Yaml11 out;
  auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    out.error = "yaml_shape.py printed: " + line;
  } else if (parsed.contains("error")) {
    out.error = parsed["error"].get<std::string>();
  } else {
    out.documents = parsed.value("documents", 0);
    out.document = parsed["document"];
  }
  return out;
}

}  // namespace

std::vector<Yaml11> ParseYaml11(const std::vector<std::string>& texts) {
  TempDir dir;
  std::string command = "python3 " + Quoted(ShapeScript());
  for (size_t i = 0; i < texts.size(); ++i) {
    std::string input = dir.File("in" + std::to_string(i) + ".yaml");
    std::ofstream(input, std::ios::binary) << texts[i];
    command += " " + Quoted(input);
  }
  command += " 2>&1";
  std::string printed;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n = 0;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) printed.append(buffer, n);
    pclose(pipe);
  }
  std::vector<Yaml11> out;
  std::istringstream lines(printed);
  std::string line;
  while (out.size() < texts.size() && std::getline(lines, line)) out.push_back(FromLine(line));
  while (out.size() < texts.size()) out.push_back(Yaml11{0, nullptr, "python3 failed: " + printed});
  return out;
}

Yaml11 ParseYaml11(const std::string& text) { return ParseYaml11(std::vector<std::string>{text})[0]; }

}  // namespace gpuplan::testing

namespace gpuplan::testing {

namespace {

using nlohmann::json;

class ShapeCheck {
 public:
  explicit ShapeCheck(std::vector<std::string>& problems) : problems_(problems) {}

  // `value` at `path` has `type` ("string", "number_integer", "boolean", "object", "array").
  bool Is(const json* value, const std::string& path, const std::string& type) {
    if (!value) {
      problems_.push_back(path + " is missing");
      return false;
    }
    bool ok = type == "string"    ? value->is_string()
              : type == "integer" ? value->is_number_integer()
              : type == "boolean" ? value->is_boolean()
              : type == "object"  ? value->is_object()
                                  : value->is_array();
    if (!ok) problems_.push_back(path + " is not a " + type + ": " + value->dump());
    return ok;
  }
  // The object's keys are exactly `keys` (the optional ones may be absent).
  void Keys(const json& object, const std::string& path, const std::vector<std::string>& keys,
            const std::vector<std::string>& optional = {}) {
    for (const auto& [k, v] : object.items()) {
      bool known = std::find(keys.begin(), keys.end(), k) != keys.end() ||
                   std::find(optional.begin(), optional.end(), k) != optional.end();
      if (!known) problems_.push_back(path + " has an unexpected key " + json(k).dump());
    }
    for (const auto& k : keys) {
      if (!object.contains(k)) problems_.push_back(path + "." + k + " is missing");
    }
  }
  void Equals(const json* value, const std::string& path, const std::string& expected) {
    if (Is(value, path, "string") && *value != expected) {
      problems_.push_back(path + " is " + value->dump() + ", not " + expected);
    }
  }
  void StringMap(const json* value, const std::string& path) {
    if (!Is(value, path, "object")) return;
    for (const auto& [k, v] : value->items()) Is(&v, path + "." + k, "string");
  }

 private:
  std::vector<std::string>& problems_;
};

const json* At(const json& object, const std::string& key) {
  if (!object.is_object() || !object.contains(key)) return nullptr;
  return &object[key];
}

void SkyPilot(ShapeCheck& c, const json& d, bool service) {
  if (service) {
    c.Keys(d, "", {"name", "service", "resources", "envs", "setup", "run"});
    if (c.Is(At(d, "service"), "service", "object")) {
      c.Is(At(d["service"], "replicas"), "service.replicas", "integer");
      c.Is(At(d["service"], "readiness_probe"), "service.readiness_probe", "object");
    }
  } else {
    c.Keys(d, "", {"name", "resources", "num_nodes", "envs", "setup", "run"});
    c.Is(At(d, "num_nodes"), "num_nodes", "integer");
  }
  c.Is(At(d, "name"), "name", "string");
  if (c.Is(At(d, "resources"), "resources", "object")) {
    const json& r = d["resources"];
    c.Keys(r, "resources", {"accelerators", "use_spot"},
           {"cloud", "region", "instance_type", "ports"});
    for (const char* key : {"cloud", "region", "instance_type"}) {
      if (r.contains(key)) c.Is(At(r, key), std::string("resources.") + key, "string");
    }
    c.Is(At(r, "accelerators"), "resources.accelerators", "string");
    c.Is(At(r, "use_spot"), "resources.use_spot", "boolean");
  }
  c.StringMap(At(d, "envs"), "envs");
  c.Is(At(d, "setup"), "setup", "string");
  c.Is(At(d, "run"), "run", "string");
}

void Kubernetes(ShapeCheck& c, const json& d, bool deployment) {
  c.Keys(d, "", {"apiVersion", "kind", "metadata", "spec"});
  c.Equals(At(d, "apiVersion"), "apiVersion", deployment ? "apps/v1" : "batch/v1");
  c.Equals(At(d, "kind"), "kind", deployment ? "Deployment" : "Job");
  if (c.Is(At(d, "metadata"), "metadata", "object")) {
    c.Is(At(d["metadata"], "name"), "metadata.name", "string");
    c.StringMap(At(d["metadata"], "labels"), "metadata.labels");
    c.StringMap(At(d["metadata"], "annotations"), "metadata.annotations");
  }
  if (!c.Is(At(d, "spec"), "spec", "object")) return;
  const json& spec = d["spec"];
  if (deployment) {
    c.Is(At(spec, "replicas"), "spec.replicas", "integer");
  } else {
    c.Is(At(spec, "completions"), "spec.completions", "integer");
    c.Is(At(spec, "parallelism"), "spec.parallelism", "integer");
  }
  if (!c.Is(At(spec, "template"), "spec.template", "object")) return;
  const json* pod = At(spec["template"], "spec");
  if (!c.Is(pod, "spec.template.spec", "object")) return;
  if (pod->contains("nodeSelector")) c.StringMap(At(*pod, "nodeSelector"), "nodeSelector");
  const json* containers = At(*pod, "containers");
  if (!c.Is(containers, "containers", "array") || containers->empty()) return;
  const json& container = (*containers)[0];
  c.Is(At(container, "image"), "containers[0].image", "string");
  if (c.Is(At(container, "env"), "containers[0].env", "array")) {
    for (const json& e : container["env"]) {
      c.Is(At(e, "name"), "containers[0].env[].name", "string");
      c.Is(At(e, "value"), "containers[0].env[].value", "string");
    }
  }
  if (c.Is(At(container, "resources"), "containers[0].resources", "object")) {
    c.Is(At(container["resources"], "limits"), "containers[0].resources.limits", "object");
  }
}

}  // namespace

std::vector<std::string> ExportShapeProblems(const Yaml11& yaml, ExportShape shape) {
  std::vector<std::string> problems;
  if (!yaml.error.empty()) return {"PyYAML: " + yaml.error};
  if (yaml.documents != 1) problems.push_back(std::to_string(yaml.documents) + " documents, not 1");
  if (!yaml.document.is_object()) {
    problems.push_back("the document is not a mapping: " + yaml.document.dump());
    return problems;
  }
  ShapeCheck check(problems);
  switch (shape) {
    case ExportShape::kSkyPilotTask: SkyPilot(check, yaml.document, false); break;
    case ExportShape::kSkyPilotService: SkyPilot(check, yaml.document, true); break;
    case ExportShape::kKubernetesJob: Kubernetes(check, yaml.document, false); break;
    case ExportShape::kKubernetesDeployment: Kubernetes(check, yaml.document, true); break;
  }
  return problems;
}

}  // namespace gpuplan::testing
