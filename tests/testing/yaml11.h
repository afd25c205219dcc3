// YAML as a YAML 1.1 reader sees it: PyYAML (Debian's python3-yaml, the parser kubectl's
// and SkyPilot's YAML 1.1 behaviour matches) run on tests/support/yaml_shape.py. yaml-cpp
// follows YAML 1.2 and does not break lines at U+2028, U+2029 or U+0085, nor read a plain
// off/012/0x10 as a boolean or a number, so it alone would miss an injection.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpuplan::testing {

struct Yaml11 {
  int documents = 0;       // how many YAML documents the text holds
  nlohmann::json document;  // the first, as JSON (null when there is none)
  std::string error;        // PyYAML's error, or why python3 could not run; "" when parsed
};

// Parses `text` with PyYAML (python3 on the PATH). Never throws; failures are in `error`.
Yaml11 ParseYaml11(const std::string& text);
// The same for each of `texts`, in one python3 run (a run costs about a second).
std::vector<Yaml11> ParseYaml11(const std::vector<std::string>& texts);

}  // namespace gpuplan::testing

namespace gpuplan::testing {

// The four documents the plan exports are (api/plan_export.h).
enum class ExportShape { kSkyPilotTask, kSkyPilotService, kKubernetesJob, kKubernetesDeployment };

// What is wrong with `yaml` as one document of `shape` read by PyYAML: more or fewer than
// one document, a top-level key not in the shape, a missing key, or a value of the wrong
// type (ids, names, regions and env values must be strings). Empty when it conforms.
std::vector<std::string> ExportShapeProblems(const Yaml11& yaml, ExportShape shape);

}  // namespace gpuplan::testing
