// Runnable plans over real HTTP against the seeded catalog: a recommendation item or an
// estimate as a SkyPilot task/service YAML and a Kubernetes Job/Deployment, parsed with
// yaml-cpp and checked field by field against the JSON answer of the same request; the GET
// form; every error naming its parameter. And the renderers on a plan with an on-demand
// fallback, which the seeded planner answers do not reach.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "api/plan_export.h"
#include "api/query_params.h"
#include "tests/testing/test_server.h"
#include "tests/testing/yaml11.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::TestServer;

std::string Env(const YAML::Node& container, const std::string& name) {
  for (const auto& e : container["env"]) {
    if (e["name"].as<std::string>() == name) return e["value"].as<std::string>();
  }
  return "";
}

bool HasParameter(const json& problem, const std::string& name) {
  for (const auto& e : problem.value("errors", json::array())) {
    if (e.value("parameter", "") == name) return true;
  }
  return false;
}

class PlanExportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() { delete server_; }
  // YAML answers are not JSON: Send keeps them in `raw`.
  static TestServer::Reply Post(const std::string& target, const json& body) {
    return server_->Send("POST", target, body.dump(), "application/json", {});
  }
  static TestServer::Reply Get(const std::string& target) {
    return server_->Send("GET", target, "", "", {});
  }

  // BERT-large on AWS A100 40GB machines, fastest first: the top item is 2 x p4d.24xlarge.
  static json Recommendation(const std::vector<std::string>& price_kinds) {
    return {{"task", "training"},
            {"workload", "bert-large"},
            {"dataset", {{"samples", 1e7}, {"epochs", 1}}},
            {"global_batch_size", 256},
            {"objective", "time"},
            {"limit", 3},
            {"constraints", {{"clouds", {"aws"}}, {"gpus", {"A100-40GB-SXM4"}},
                             {"max_nodes", 2}, {"price_kinds", price_kinds}}}};
  }
  // The YAML answer of a POST, parsed; fails the test unless it is a 200 application/yaml.
  static YAML::Node PostYaml(const std::string& target, const json& body, std::string* text = nullptr) {
    auto reply = Post(target, body);
    EXPECT_EQ(reply.status, 200) << reply.body.dump() << reply.raw;
    EXPECT_EQ(reply.content_type, "application/yaml");
    if (text) *text = reply.raw;
    return YAML::Load(reply.raw);
  }
  static TestServer* server_;
};
TestServer* PlanExportTest::server_ = nullptr;

TEST_F(PlanExportTest, TopRecommendationAsSkyPilotTaskAndKubernetesJob) {
  json body = Recommendation({"ondemand"});
  auto reply = Post("/api/v1/recommendations", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& top = reply.body["items"][0];
  ASSERT_EQ(top["instance_type"], "p4d.24xlarge");
  ASSERT_EQ(top["nodes"], 2);

  YAML::Node sky = PostYaml("/api/v1/recommendations?format=skypilot", body);
  EXPECT_EQ(sky["name"].as<std::string>(), "gpuplan-bert-large");
  const YAML::Node& r = sky["resources"];
  EXPECT_EQ(r["cloud"].as<std::string>(), top["cloud"].get<std::string>());
  EXPECT_EQ(r["region"].as<std::string>(), top["region"].get<std::string>());
  EXPECT_EQ(r["instance_type"].as<std::string>(), "p4d.24xlarge");
  // SkyPilot's name of the A100 40GB SXM4 (the catalog's "*" synonym), 8 per node.
  EXPECT_EQ(r["accelerators"].as<std::string>(), "A100:8");
  EXPECT_FALSE(r["use_spot"].as<bool>());
  EXPECT_EQ(sky["num_nodes"].as<int>(), 2);
  EXPECT_FALSE(sky["envs"]["GPUPLAN_CHECKPOINT_INTERVAL_MINUTES"]);  // on demand: none planned
  EXPECT_NEAR(std::stod(sky["envs"]["GPUPLAN_EXPECTED_HOURS"].as<std::string>()),
              top["hours"].get<double>(), 0.005);
  EXPECT_NE(sky["run"].as<std::string>().find("$GPUPLAN_NUM_NODES"), std::string::npos);
  EXPECT_FALSE(sky["service"]);

  YAML::Node job = PostYaml("/api/v1/recommendations?format=kubernetes", body);
  EXPECT_EQ(job["apiVersion"].as<std::string>(), "batch/v1");
  EXPECT_EQ(job["kind"].as<std::string>(), "Job");
  EXPECT_EQ(job["spec"]["parallelism"].as<int>(), 2);
  EXPECT_EQ(job["spec"]["completions"].as<int>(), 2);
  EXPECT_EQ(job["spec"]["completionMode"].as<std::string>(), "Indexed");
  EXPECT_FALSE(job["spec"]["activeDeadlineSeconds"]);  // no deadline asked
  const YAML::Node& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["nodeSelector"]["nvidia.com/gpu.product"].as<std::string>(), "NVIDIA-A100-SXM4-40GB");
  EXPECT_EQ(pod["nodeSelector"].size(), 1u);  // on demand: no spot capacity label
  const YAML::Node& c = pod["containers"][0];
  EXPECT_EQ(c["resources"]["requests"]["nvidia.com/gpu"].as<int>(), 8);
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 8);
  EXPECT_EQ(Env(c, "GPUPLAN_NUM_NODES"), "2");
  EXPECT_EQ(job["metadata"]["annotations"]["gpuplan/instance-type"].as<std::string>(), "p4d.24xlarge");

  // item=2 is the second item; 1 is the top one.
  YAML::Node second = PostYaml("/api/v1/recommendations?format=skypilot&item=2", body);
  EXPECT_EQ(second["resources"]["region"].as<std::string>(),
            reply.body["items"][1]["region"].get<std::string>());
  std::string explicit_top, implicit_top;
  PostYaml("/api/v1/recommendations?format=skypilot&item=1", body, &explicit_top);
  PostYaml("/api/v1/recommendations?format=skypilot", body, &implicit_top);
  EXPECT_EQ(explicit_top, implicit_top);
}

TEST_F(PlanExportTest, SpotOptionCarriesItsCheckpointInterval) {
  json body = Recommendation({"spot"});
  body["constraints"]["deadline_hours"] = 48;
  YAML::Node sky = PostYaml("/api/v1/recommendations?format=skypilot", body);
  EXPECT_TRUE(sky["resources"]["use_spot"].as<bool>());
  double interval = std::stod(sky["envs"]["GPUPLAN_CHECKPOINT_INTERVAL_MINUTES"].as<std::string>());
  EXPECT_GT(interval, 0);
  EXPECT_EQ(sky["envs"]["GPUPLAN_PRICE_KIND"].as<std::string>(), "spot");
  EXPECT_EQ(sky["envs"]["GPUPLAN_DEADLINE_HOURS"].as<std::string>(), "48.00");
  EXPECT_NE(sky["run"].as<std::string>().find("$GPUPLAN_CHECKPOINT_INTERVAL_MINUTES"),
            std::string::npos);

  YAML::Node job = PostYaml("/api/v1/recommendations?format=kubernetes", body);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"].as<long long>(), 48 * 3600);
  EXPECT_GT(job["spec"]["backoffLimit"].as<int>(), 0);  // restarts after preemptions
  const YAML::Node& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["nodeSelector"]["eks.amazonaws.com/capacityType"].as<std::string>(), "SPOT");
  const YAML::Node& c = pod["containers"][0];
  EXPECT_DOUBLE_EQ(std::stod(Env(c, "GPUPLAN_CHECKPOINT_INTERVAL_MINUTES")), interval);
}

TEST_F(PlanExportTest, SpotTrainingEstimateUsesTheSpotRunsInterval) {
  json body = {{"workload", "resnet-50"},
               {"dataset", {{"samples", 1281167}, {"epochs", 10}}},
               {"global_batch_size", 256},
               {"hardware", {{"cloud", "aws"}, {"instance_type", "p3.8xlarge"}, {"region", "us-east-1"}}},
               {"pricing", {{"kind", "spot"}}}};
  auto reply = Post("/api/v1/estimates/training", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  double minutes = reply.body["cost"]["spot"]["checkpoint_interval_minutes"].get<double>();
  ASSERT_GT(minutes, 0);

  YAML::Node sky = PostYaml("/api/v1/estimates/training?format=skypilot", body);
  EXPECT_EQ(sky["resources"]["accelerators"].as<std::string>(), "V100:4");
  EXPECT_EQ(sky["resources"]["instance_type"].as<std::string>(), "p3.8xlarge");
  EXPECT_EQ(sky["resources"]["region"].as<std::string>(), "us-east-1");
  EXPECT_TRUE(sky["resources"]["use_spot"].as<bool>());
  EXPECT_EQ(sky["num_nodes"].as<int>(), 1);
  EXPECT_NEAR(std::stod(sky["envs"]["GPUPLAN_CHECKPOINT_INTERVAL_MINUTES"].as<std::string>()),
              minutes, 0.05);

  YAML::Node job = PostYaml("/api/v1/estimates/training?format=kubernetes", body);
  EXPECT_FALSE(job["spec"]["completionMode"]);  // one node: a plain Job
  const YAML::Node& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["nodeSelector"]["nvidia.com/gpu.product"].as<std::string>(), "Tesla-V100-SXM2-16GB");
  EXPECT_EQ(pod["containers"][0]["resources"]["requests"]["nvidia.com/gpu"].as<int>(), 4);
}

TEST_F(PlanExportTest, InferenceEstimateAsSkyPilotServiceAndDeployment) {
  json body = {{"workload", "llama-2-7b"},
               {"input_tokens", 512},
               {"output_tokens", 128},
               {"target_requests_per_s", 20},
               {"hardware", {{"cloud", "aws"}, {"instance_type", "g6.xlarge"}, {"region", "us-east-1"}}}};
  auto reply = Post("/api/v1/estimates/inference", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  int replicas = reply.body["replicas"].get<int>();
  int instances = reply.body["instances"].get<int>();
  ASSERT_GT(replicas, 0);

  YAML::Node sky = PostYaml("/api/v1/estimates/inference?format=skypilot", body);
  EXPECT_EQ(sky["service"]["replicas"].as<int>(), instances);
  EXPECT_TRUE(sky["service"]["readiness_probe"]["path"]);
  EXPECT_EQ(sky["resources"]["accelerators"].as<std::string>(), "L4:1");
  EXPECT_EQ(sky["resources"]["instance_type"].as<std::string>(), "g6.xlarge");
  EXPECT_FALSE(sky["resources"]["use_spot"].as<bool>());
  EXPECT_FALSE(sky["num_nodes"]);

  YAML::Node deployment = PostYaml("/api/v1/estimates/inference?format=kubernetes", body);
  EXPECT_EQ(deployment["apiVersion"].as<std::string>(), "apps/v1");
  EXPECT_EQ(deployment["kind"].as<std::string>(), "Deployment");
  EXPECT_EQ(deployment["spec"]["replicas"].as<int>(), replicas);
  const YAML::Node& pod = deployment["spec"]["template"]["spec"];
  EXPECT_EQ(pod["nodeSelector"]["nvidia.com/gpu.product"].as<std::string>(), "NVIDIA-L4");
  EXPECT_EQ(pod["containers"][0]["resources"]["requests"]["nvidia.com/gpu"].as<int>(),
            reply.body["gpus_per_replica"].get<int>());
}

// The product label comes from the catalog's kubernetes-scope gpu_synonyms row: the H100 SXM5
// of p5.48xlarge by the value seen on nodes (no comment), the H200 of p5en.48xlarge by a
// derived one, which a comment names.
TEST_F(PlanExportTest, KubernetesLabelIsTheCatalogsKubernetesName) {
  auto job_on = [&](const std::string& instance_type, std::string* text) {
    json body = {{"workload", "resnet-50"},
                 {"dataset", {{"samples", 1281167}, {"epochs", 1}}},
                 {"global_batch_size", 256},
                 {"hardware", {{"cloud", "aws"}, {"instance_type", instance_type}, {"region", "us-east-1"}}}};
    return PostYaml("/api/v1/estimates/training?format=kubernetes", body, text);
  };
  std::string h100_text;
  YAML::Node h100 = job_on("p5.48xlarge", &h100_text);
  EXPECT_EQ(h100["spec"]["template"]["spec"]["nodeSelector"]["nvidia.com/gpu.product"].as<std::string>(),
            "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(h100_text.find("derived label"), std::string::npos) << h100_text;

  std::string h200_text;
  YAML::Node h200 = job_on("p5en.48xlarge", &h200_text);
  EXPECT_EQ(h200["spec"]["template"]["spec"]["nodeSelector"]["nvidia.com/gpu.product"].as<std::string>(),
            "NVIDIA-H200");
  EXPECT_NE(h200_text.find("# derived label: nvidia.com/gpu.product=NVIDIA-H200 follows GPU Feature "
                           "Discovery's naming but was not seen on a node"),
            std::string::npos) << h200_text;
}

TEST_F(PlanExportTest, GetFormGivesThePostsYaml) {
  json body = Recommendation({"ondemand"});
  for (const char* format : {"skypilot", "kubernetes"}) {
    std::string posted;
    PostYaml(std::string("/api/v1/recommendations?item=2&format=") + format, body, &posted);
    auto got = Get(std::string("/api/v1/plans/export?format=") + format +
                            "&kind=recommendation&item=2&request=" + PercentEncode(body.dump()));
    EXPECT_EQ(got.status, 200) << got.body.dump();
    EXPECT_EQ(got.content_type, "application/yaml");
    EXPECT_EQ(got.raw, posted);
  }
  json training = {{"workload", "resnet-50"},
                   {"dataset", {{"samples", 1e6}}},
                   {"global_batch_size", 256},
                   {"hardware", {{"gpu", "T4"}, {"gpus_per_node", 4}, {"nodes", 1}}}};
  std::string posted;
  YAML::Node sky = PostYaml("/api/v1/estimates/training?format=skypilot", training, &posted);
  // Explicit hardware: no cloud, the GPUs by SkyPilot's name.
  EXPECT_FALSE(sky["resources"]["cloud"]);
  EXPECT_EQ(sky["resources"]["accelerators"].as<std::string>(), "T4:4");
  auto got = Get("/api/v1/plans/export?format=skypilot&kind=training&request=" +
                          PercentEncode(training.dump()));
  EXPECT_EQ(got.raw, posted);

  // The route is counted by its template.
  auto metrics = Get("/metrics");
  EXPECT_NE(metrics.raw.find("route=\"/api/v1/plans/export\""), std::string::npos);
}

TEST_F(PlanExportTest, ErrorsNameTheParameter) {
  json body = Recommendation({"ondemand"});
  auto bad_format = Post("/api/v1/recommendations?format=yaml", body);
  EXPECT_EQ(bad_format.status, 422);
  EXPECT_EQ(bad_format.content_type, "application/problem+json");
  EXPECT_TRUE(HasParameter(bad_format.body, "format")) << bad_format.body.dump();

  auto no_item = Post("/api/v1/recommendations?format=skypilot&item=3", [&] {
    json b = body;
    b["limit"] = 1;
    return b;
  }());
  EXPECT_EQ(no_item.status, 422);
  EXPECT_TRUE(HasParameter(no_item.body, "item")) << no_item.body.dump();

  for (const char* target : {"/api/v1/recommendations?format=skypilot&item=0",
                             "/api/v1/recommendations?format=skypilot&item=x",
                             "/api/v1/recommendations?item=2"}) {
    auto r = Post(target, body);
    EXPECT_EQ(r.status, 422) << target;
    EXPECT_TRUE(HasParameter(r.body, "item")) << target << r.body.dump();
  }
  auto item_on_estimate = Post("/api/v1/estimates/training?format=skypilot&item=1", body);
  EXPECT_EQ(item_on_estimate.status, 422);
  EXPECT_TRUE(HasParameter(item_on_estimate.body, "item"));

  // A bad body is still the body's error, pointing into it.
  json bad_body = body;
  bad_body["workload"] = "no-such-model";
  auto r = Post("/api/v1/recommendations?format=kubernetes", bad_body);
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(r.body.dump().find("/workload"), std::string::npos) << r.body.dump();

  std::string encoded = PercentEncode(body.dump());
  struct Case {
    std::string query;
    int status;
    std::string parameter;
  };
  for (const Case& c : std::vector<Case>{
           {"kind=recommendation&request=" + encoded, 422, "format"},
           {"format=json&kind=recommendation&request=" + encoded, 422, "format"},
           {"format=skypilot&request=" + encoded, 422, "kind"},
           {"format=skypilot&kind=estimate&request=" + encoded, 422, "kind"},
           {"format=skypilot&kind=recommendation", 422, "request"},
           {"format=skypilot&kind=recommendation&request=%7B%22workload", 400, "request"},
           {"format=skypilot&kind=recommendation&request=%5B1%5D", 400, "request"},
           {"format=skypilot&kind=training&item=2&request=" + encoded, 422, "item"},
           {"format=skypilot&kind=recommendation&item=7&request=" + encoded, 422, "item"},
           {"format=skypilot&kind=recommendation&verbose=1&request=" + encoded, 422, "verbose"},
           {"format=skypilot&kind=recommendation&request=" + PercentEncode(bad_body.dump()), 422,
            "request"},
       }) {
    auto got = Get("/api/v1/plans/export?" + c.query);
    EXPECT_EQ(got.status, c.status) << c.query << " " << got.body.dump();
    EXPECT_EQ(got.content_type, "application/problem+json") << c.query;
    EXPECT_TRUE(HasParameter(got.body, c.parameter)) << c.query << " " << got.body.dump();
  }
  // The pointer into the request leads the detail.
  auto got = Get("/api/v1/plans/export?format=skypilot&kind=recommendation&request=" +
                          PercentEncode(bad_body.dump()));
  EXPECT_NE(got.body.dump().find("/workload: "), std::string::npos) << got.body.dump();
}

// Every export, from every route that answers one, read by a YAML 1.1 parser (PyYAML) as
// kubectl and SkyPilot read it: exactly one document of the target's shape.
TEST_F(PlanExportTest, EveryExportIsOneYaml11DocumentOfItsShape) {
  using testing::ExportShape;
  json training = {{"workload", {{"preset", "resnet-50"}, {"name", "ResNet-50 (run 2)"}}},
                   {"dataset", {{"samples", 1281167}, {"epochs", 10}}},
                   {"global_batch_size", 256},
                   {"hardware", {{"cloud", "aws"}, {"instance_type", "p3.8xlarge"}, {"region", "us-east-1"}}},
                   {"pricing", {{"kind", "spot"}}}};
  json inference = {{"workload", "llama-2-7b"},
                    {"input_tokens", 512},
                    {"output_tokens", 128},
                    {"target_requests_per_s", 20},
                    {"hardware", {{"cloud", "aws"}, {"instance_type", "g6.xlarge"}, {"region", "us-east-1"}}}};
  struct Case {
    std::string what, post, kind;
    json body;
    ExportShape sky, k8s;
  };
  const std::vector<Case> cases = {
      {"training estimate", "/api/v1/estimates/training", "training", training,
       ExportShape::kSkyPilotTask, ExportShape::kKubernetesJob},
      {"inference estimate", "/api/v1/estimates/inference", "inference", inference,
       ExportShape::kSkyPilotService, ExportShape::kKubernetesDeployment},
      {"recommendation item", "/api/v1/recommendations", "recommendation",
       Recommendation({"ondemand", "spot"}), ExportShape::kSkyPilotTask, ExportShape::kKubernetesJob},
  };
  std::vector<std::string> texts, what;
  std::vector<ExportShape> shapes;
  for (const Case& c : cases) {
    for (const auto& [format, shape] : {std::pair{"skypilot", c.sky}, {"kubernetes", c.k8s}}) {
      std::string posted;
      PostYaml(c.post + "?format=" + format, c.body, &posted);
      auto got = Get(std::string("/api/v1/plans/export?format=") + format + "&kind=" + c.kind +
                     "&request=" + PercentEncode(c.body.dump()));
      EXPECT_EQ(got.status, 200) << c.what << got.raw;
      for (const std::string& text : {posted, got.raw}) {
        texts.push_back(text);
        shapes.push_back(shape);
        what.push_back(c.what + " as " + format);
      }
    }
  }
  auto parsed = testing::ParseYaml11(texts);
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(testing::ExportShapeProblems(parsed[i], shapes[i]), std::vector<std::string>{})
        << what[i] << ":\n" << texts[i];
  }
}

// A spot run that moves to on-demand for a deadline (price kind spot_with_fallback).
plan::RunnablePlan FallbackPlan() {
  plan::RunnablePlan p;
  p.name = "gpuplan-llama-2-7b";
  p.workload_id = "llama-2-7b";
  p.workload_name = "Llama-2-7B";
  p.cloud = "gcp";
  p.region = "us-central1";
  p.instance_type = "a2-highgpu-8g";
  p.gpu_id = "A100-40GB-SXM4";
  p.gpu_vendor = "NVIDIA";
  p.skypilot_accelerator = "A100";
  p.gpu_product_label = plan::GpuProductLabel{"NVIDIA-A100-SXM4-40GB", true};
  p.gpus_per_node = 8;
  p.nodes = 4;
  p.price_kind = model::PriceKind::kSpotWithFallback;
  p.use_spot = true;
  p.checkpoint_interval_minutes = 42.25;
  p.switch_to_ondemand_at_hours = 31.5;
  p.deadline_hours = 48;
  p.expected_hours = 30;
  p.notes = {"spot with on-demand fallback: switch at 31.5 h"};
  return p;
}

TEST(PlanExportYaml, FallbackPlanCarriesTheSwitchAndTheDeadline) {
  YAML::Node sky = YAML::Load(SkyPilotYaml(FallbackPlan()));
  EXPECT_TRUE(sky["resources"]["use_spot"].as<bool>());
  EXPECT_EQ(sky["resources"]["accelerators"].as<std::string>(), "A100:8");
  EXPECT_EQ(sky["num_nodes"].as<int>(), 4);
  EXPECT_EQ(sky["envs"]["GPUPLAN_PRICE_KIND"].as<std::string>(), "spot_with_fallback");
  EXPECT_EQ(sky["envs"]["GPUPLAN_SWITCH_TO_ONDEMAND_AT_HOURS"].as<std::string>(), "31.50");
  EXPECT_EQ(sky["envs"]["GPUPLAN_DEADLINE_HOURS"].as<std::string>(), "48.00");
  EXPECT_EQ(sky["envs"]["GPUPLAN_CHECKPOINT_INTERVAL_MINUTES"].as<std::string>(), "42.2");
  EXPECT_NE(sky["run"].as<std::string>().find("$GPUPLAN_SWITCH_TO_ONDEMAND_AT_HOURS"),
            std::string::npos);

  std::string text = KubernetesYaml(FallbackPlan());
  YAML::Node job = YAML::Load(text);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"].as<long long>(), 48 * 3600);
  EXPECT_EQ(job["spec"]["completionMode"].as<std::string>(), "Indexed");
  const YAML::Node& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["subdomain"].as<std::string>(), "gpuplan-llama-2-7b");
  EXPECT_EQ(pod["nodeSelector"]["cloud.google.com/gke-spot"].as<std::string>(), "true");
  EXPECT_EQ(Env(pod["containers"][0], "GPUPLAN_SWITCH_TO_ONDEMAND_AT_HOURS"), "31.50");
  // The plan's notes are comments of the manifest.
  EXPECT_NE(text.find("# note: spot with on-demand fallback: switch at 31.5 h"), std::string::npos);
}

TEST(PlanExportYaml, UnknownNamesAreStatedInComments) {
  plan::RunnablePlan p = FallbackPlan();
  p.gpu_id = "H200-141GB-SXM";
  p.skypilot_accelerator = "";
  p.gpu_product_label = plan::GpuProductLabel{"NVIDIA-H200", false};
  std::string sky = SkyPilotYaml(p);
  EXPECT_EQ(YAML::Load(sky)["resources"]["accelerators"].as<std::string>(), "H200-141GB-SXM:8");
  EXPECT_NE(sky.find("# accelerators: the catalog has no SkyPilot name for H200-141GB-SXM"),
            std::string::npos) << sky;
  std::string k8s = KubernetesYaml(p);
  EXPECT_EQ(YAML::Load(k8s)["spec"]["template"]["spec"]["nodeSelector"]["nvidia.com/gpu.product"]
                .as<std::string>(),
            "NVIDIA-H200");
  EXPECT_NE(k8s.find("# derived label: nvidia.com/gpu.product=NVIDIA-H200"), std::string::npos) << k8s;

  p.gpu_vendor = "AMD";
  p.gpu_id = "MI300X";
  p.gpu_product_label = std::nullopt;  // what plan::GfdProductLabel gives a GPU not NVIDIA's
  std::string amd_text = KubernetesYaml(p);
  YAML::Node amd = YAML::Load(amd_text);
  const YAML::Node& pod = amd["spec"]["template"]["spec"];
  EXPECT_FALSE(pod["nodeSelector"]["nvidia.com/gpu.product"]);
  EXPECT_EQ(pod["containers"][0]["resources"]["requests"]["amd.com/gpu"].as<int>(), 8);
  EXPECT_NE(amd_text.find("# no GPU Feature Discovery label for AMD GPU MI300X"), std::string::npos)
      << amd_text;

  // A label that is not a Kubernetes label value (a plan built by hand) is never rendered.
  p.gpu_vendor = "NVIDIA";
  p.gpu_id = "H200-141GB-SXM";
  p.gpu_product_label = plan::GpuProductLabel{"NVIDIA H200: x", true};
  std::string bad = KubernetesYaml(p);
  EXPECT_FALSE(YAML::Load(bad)["spec"]["template"]["spec"]["nodeSelector"]["nvidia.com/gpu.product"]);
  EXPECT_NE(bad.find("# no GPU Feature Discovery label for NVIDIA GPU H200-141GB-SXM"),
            std::string::npos) << bad;
}

}  // namespace
}  // namespace gpuplan::api
