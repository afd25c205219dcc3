// The YAML exporters (api/plan_export.h) on a plan::RunnablePlan made of the fuzz bytes:
// arbitrary text in every text field (what a catalog written before the input rules, or
// a bug, could hand them), arbitrary doubles and ints. Checked (abort = finding), for both
// SkyPilotYaml and KubernetesYaml:
//  - the text is printable ASCII and line feeds only: no raw C0/C1 control byte, DEL,
//    U+0085, U+2028 or U+2029 (the emitter escapes every non-ASCII code point);
//  - yaml-cpp reads it as exactly one document whose top-level keys are the target's
//    (name, resources, envs, setup, run, and num_nodes or service; apiVersion, kind,
//    metadata, spec);
//  - no figure (the GPUPLAN_*_HOURS/_MINUTES envs) prints as inf or nan.
// Input: fields separated by byte 0x1F (text fields in the order of Texts() below), then
// 8-byte chunks for the doubles and 4-byte chunks for the ints; missing parts are empty/0.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "api/plan_export.h"
#include "fuzz/fuzz_common.h"
#include "plan/runnable.h"

namespace gpuplan::fuzz {
namespace {

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // The next field up to the separator 0x1F (or the end).
  std::string Text() {
    std::string out;
    while (pos_ < size_ && data_[pos_] != 0x1F) out.push_back(static_cast<char>(data_[pos_++]));
    if (pos_ < size_) ++pos_;
    return out;
  }
  template <typename T>
  T Number() {
    T value{};
    if (pos_ + sizeof(T) <= size_) {
      std::memcpy(&value, data_ + pos_, sizeof(T));
      pos_ += sizeof(T);
    }
    return value;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

plan::RunnablePlan PlanFrom(Bytes& in) {
  plan::RunnablePlan p;
  for (std::string* text : {&p.name, &p.workload_id, &p.workload_name, &p.cloud, &p.region,
                            &p.instance_type, &p.catalog_instance_type, &p.gpu_id, &p.gpu_name,
                            &p.gpu_vendor, &p.skypilot_accelerator, &p.currency, &p.precision}) {
    *text = in.Text();
  }
  p.price_kind = model::kPriceKindNames[in.Number<uint8_t>() % model::kPriceKindNames.size()].second;
  p.notes = {in.Text(), in.Text()};
  uint8_t flags = in.Number<uint8_t>();
  p.inference = flags & 1;
  p.use_spot = flags & 2;
  p.checkpoint_interval_minutes = in.Number<double>();
  if (flags & 4) p.switch_to_ondemand_at_hours = in.Number<double>();
  if (flags & 8) p.deadline_hours = in.Number<double>();
  if (flags & 16) p.expected_cost = in.Number<double>();
  p.expected_hours = in.Number<double>();
  p.p90_hours = in.Number<double>();
  for (int* count : {&p.gpus_per_node, &p.nodes, &p.replicas, &p.gpus_per_replica,
                     &p.global_batch, &p.micro_batch}) {
    *count = in.Number<int32_t>();
  }
  // Last, so that the seed corpus written before the field keeps its meaning.
  uint8_t label = in.Number<uint8_t>();
  if (label & 1) p.gpu_product_label = plan::GpuProductLabel{in.Text(), (label & 2) != 0};
  return p;
}

void CheckText(const std::string& yaml, std::string_view who) {
  for (unsigned char c : yaml) {
    Require(c == '\n' || (c >= 0x20 && c < 0x7F), "a raw control or non-ASCII byte", who);
  }
}

// The plan's figures (GPUPLAN_*_HOURS/_MINUTES envs) are finite numbers or "unknown".
void CheckFigures(const YAML::Node& envs) {
  for (const auto& entry : envs) {
    std::string key = entry.first.as<std::string>(), value = entry.second.as<std::string>();
    if (key.find("HOURS") == std::string::npos && key.find("MINUTES") == std::string::npos) continue;
    if (value == "unknown") continue;
    char* end = nullptr;
    double number = std::strtod(value.c_str(), &end);
    Require(end && *end == '\0' && std::isfinite(number), "a figure printed as inf or nan", value);
  }
}

void CheckDocument(const std::string& yaml, const std::set<std::string>& keys, std::string_view who) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(yaml);
  } catch (const YAML::Exception& e) {
    Fail("yaml-cpp cannot read the export", e.what());
  }
  Require(documents.size() == 1, "not exactly one YAML document", who);
  Require(documents[0].IsMap(), "the document is not a mapping", who);
  std::set<std::string> seen;
  for (const auto& entry : documents[0]) seen.insert(entry.first.as<std::string>());
  Require(seen == keys, "the top-level keys are not the target's", who);
  if (documents[0]["envs"]) CheckFigures(documents[0]["envs"]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  plan::RunnablePlan p = PlanFrom(in);
  std::string sky = api::SkyPilotYaml(p);
  CheckText(sky, "SkyPilotYaml");
  std::set<std::string> sky_keys = {"name", "resources", "envs", "setup", "run"};
  sky_keys.insert(p.inference ? "service" : "num_nodes");
  CheckDocument(sky, sky_keys, "SkyPilotYaml");
  std::string k8s = api::KubernetesYaml(p);
  CheckText(k8s, "KubernetesYaml");
  CheckDocument(k8s, {"apiVersion", "kind", "metadata", "spec"}, "KubernetesYaml");
  return 0;
}

}  // namespace gpuplan::fuzz
