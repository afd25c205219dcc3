// Issue 25 over real HTTP: the layouts frameworks publish (context parallelism, interleaved
// pipelines, sequence parallelism, tensor-parallel overlap), FP8 scaling and NVLink domains
// larger than a node, each accepted, echoed and moving the answer the way it should, and
// each refused with a 422 naming the field where it cannot apply.
#include <gtest/gtest.h>

#include <string>

#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::TestServer;

class TrainingLayoutsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() { delete server_; }
  // Llama-2-7B (32 layers, 32 heads, 4096 tokens) on one 8 x H100 node, bf16.
  static json Llama(const json& overrides = json::object()) {
    json body = {{"workload", "llama-2-7b"},
                 {"dataset", {{"tokens", 1e9}}},
                 {"global_batch_size", 64},
                 {"precision", "bf16"},
                 {"framework", "optimized"},
                 {"hardware", {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 8}}}};
    body.update(overrides);
    return body;
  }
  static json Estimate(const json& body) {
    auto reply = server_->Post("/api/v1/estimates/training", body);
    EXPECT_EQ(reply.status, 200) << reply.body.dump();
    return reply.body;
  }
  static std::string RefusedAt(const json& body) {
    auto reply = server_->Post("/api/v1/estimates/training", body);
    EXPECT_EQ(reply.status, 422) << body.dump() << " -> " << reply.body.dump();
    if (reply.status != 422) return "";
    return reply.body["errors"][0]["pointer"].get<std::string>();
  }
  static bool Mentions(const json& answer, const char* key, const std::string& text) {
    for (const auto& line : answer[key]) {
      if (line.get<std::string>().find(text) != std::string::npos) return true;
    }
    return false;
  }
  // A recommendation of Llama-2-7B in `recipe` between B200 and H100: every item a B200, the
  // H100 offers counted as precision_unsupported.
  static void OnlyBlackwellIsRecommended(const json& recipe) {
    SCOPED_TRACE(recipe.dump());
    json recommend = {{"workload", "llama-2-7b"},
                      {"dataset", {{"tokens", 1e9}}},
                      {"global_batch_size", 64},
                      {"framework", "optimized"},
                      {"constraints", {{"gpus", {"B200-180GB-SXM", "H100-80GB-SXM5"}}}}};
    recommend.update(recipe);
    auto reply = server_->Post("/api/v1/recommendations", recommend);
    ASSERT_EQ(reply.status, 200) << reply.body.dump();
    ASSERT_FALSE(reply.body["items"].empty()) << reply.body.dump();
    for (const auto& item : reply.body["items"]) EXPECT_EQ(item["gpu"], "B200-180GB-SXM");
    EXPECT_GT(reply.body["rejected"].value("precision_unsupported", 0), 0) << reply.body.dump();
  }
  static TestServer* server_;
};
TestServer* TrainingLayoutsTest::server_ = nullptr;

TEST_F(TrainingLayoutsTest, ContextParallelismSplitsTheSequence) {
  json plain = Estimate(Llama({{"tensor_parallel", 1}, {"pipeline_parallel", 1},
                               {"context_parallel", 1}, {"micro_batch_size", 1}}));
  json split = Estimate(Llama({{"tensor_parallel", 1}, {"pipeline_parallel", 1},
                               {"context_parallel", 2}, {"micro_batch_size", 1}}));
  EXPECT_EQ(plain["layout"]["context_parallel"], 1);
  EXPECT_EQ(split["layout"]["context_parallel"], 2);
  EXPECT_EQ(split["layout"]["data_parallel"], 4);
  // Each GPU holds half of every sequence's activations.
  EXPECT_LT(split["memory"]["per_gpu_gb"]["activations"].get<double>(),
            plain["memory"]["per_gpu_gb"]["activations"].get<double>());
  EXPECT_TRUE(Mentions(split, "assumptions", "x context 2"));
  // Long sequences make the search try it: 32 K tokens of Llama-2-7B on 8 GPUs.
  json long_context = Llama({{"workload", {{"preset", "llama-2-7b"}, {"seq_len", 32768}}},
                             {"global_batch_size", 8}});
  long_context["workload"]["max_context"] = 32768;
  auto searched = server_->Post("/api/v1/estimates/training", long_context);
  ASSERT_EQ(searched.status, 200) << searched.body.dump();
  // Without it one 32 K sequence's activations (~140 GB) fill no H100: the search splits it.
  EXPECT_GT(searched.body["layout"]["context_parallel"].get<int>(), 1);
}

TEST_F(TrainingLayoutsTest, InterleavingShrinksTheBubble) {
  json base = Llama({{"tensor_parallel", 1}, {"pipeline_parallel", 4}, {"micro_batch_size", 1},
                     {"zero_stage", 1}});
  base["virtual_pipeline_stages"] = 1;
  json plain = Estimate(base);
  base["virtual_pipeline_stages"] = 4;
  json interleaved = Estimate(base);
  EXPECT_EQ(plain["layout"]["virtual_pipeline_stages"], 1);
  EXPECT_EQ(interleaved["layout"]["virtual_pipeline_stages"], 4);
  EXPECT_LT(interleaved["breakdown"]["pipeline_bubble_s"].get<double>(),
            plain["breakdown"]["pipeline_bubble_s"].get<double>() / 2);
  // ...and holds more micro-batches in flight on the first stage.
  EXPECT_GT(interleaved["memory"]["per_gpu_gb"]["activations"].get<double>(),
            plain["memory"]["per_gpu_gb"]["activations"].get<double>());
  EXPECT_TRUE(Mentions(interleaved, "assumptions", "4 virtual stages"));
}

TEST_F(TrainingLayoutsTest, SequenceParallelismAndOverlapAreTheStacksChoices) {
  json body = Llama({{"tensor_parallel", 8}, {"pipeline_parallel", 1}, {"micro_batch_size", 1},
                     {"zero_stage", 0}});
  json defaulted = Estimate(body);
  EXPECT_EQ(defaulted["layout"]["sequence_parallel"], true);  // optimized stacks' practice
  body["sequence_parallel"] = false;
  json without = Estimate(body);
  EXPECT_EQ(without["layout"]["sequence_parallel"], false);
  EXPECT_GT(without["memory"]["per_gpu_gb"]["activations"].get<double>(),
            defaulted["memory"]["per_gpu_gb"]["activations"].get<double>());
  EXPECT_TRUE(Mentions(without, "assumptions", "no sequence parallelism"));
  body["sequence_parallel"] = true;
  body["tensor_parallel_overlap"] = true;
  json overlapped = Estimate(body);
  EXPECT_LT(overlapped["breakdown"]["communication_s"].get<double>(),
            defaulted["breakdown"]["communication_s"].get<double>());
  EXPECT_TRUE(Mentions(overlapped, "assumptions", "overlapped"));
}

TEST_F(TrainingLayoutsTest, Fp8ScalingAndPrecisionAuto) {
  json body = Llama({{"precision", "fp8"}});
  json delayed = Estimate(body);
  EXPECT_EQ(delayed["precision"], "fp8");
  EXPECT_TRUE(Mentions(delayed, "assumptions", "delayed scaling"));
  body["fp8_scaling"] = "current";
  json current = Estimate(body);
  EXPECT_GT(current["step_time_s"].get<double>(), delayed["step_time_s"].get<double>());
  EXPECT_TRUE(Mentions(current, "assumptions", "current scaling"));
  // auto: fp8 where the stack and the GPU have it, and says so; bf16 on A100.
  json auto_body = Llama();
  auto_body.erase("precision");
  json hopper = Estimate(auto_body);
  EXPECT_EQ(hopper["precision"], "fp8");
  EXPECT_TRUE(Mentions(hopper, "assumptions", "precision auto: fp8"));
  auto_body["hardware"]["gpu"] = "A100-80GB-SXM4";
  EXPECT_EQ(Estimate(auto_body)["precision"], "bf16");
  auto_body["hardware"]["gpu"] = "H100-80GB-SXM5";
  auto_body["framework"] = "eager";
  json eager = Estimate(auto_body);
  EXPECT_EQ(eager["precision"], "bf16");
  EXPECT_TRUE(Mentions(eager, "assumptions", "FP8 recipes need the optimized framework"));
}

// MXFP8 block scaling: on Blackwell, its casts cost between delayed and current scaling (one
// fused pass with small scales, no amax pass); on Hopper a 422 naming fp8_scaling, and a
// recommendation counts Hopper offers as refused for it instead of pricing them.
TEST_F(TrainingLayoutsTest, Mxfp8BlockScalingOnBlackwellOnly) {
  json body = Llama({{"precision", "fp8"},
                     {"hardware", {{"gpu", "B200-180GB-SXM"}, {"gpus_per_node", 8}}},
                     {"tensor_parallel", 1}, {"pipeline_parallel", 1}, {"zero_stage", 1},
                     {"micro_batch_size", 2}});
  json steps[3];
  const char* recipes[3] = {"delayed", "mxfp8", "current"};
  for (int i = 0; i < 3; ++i) {
    body["fp8_scaling"] = recipes[i];
    steps[i] = Estimate(body);
    EXPECT_EQ(steps[i]["precision"], "fp8");
    EXPECT_TRUE(Mentions(steps[i], "assumptions", std::string(recipes[i]) + " scaling"))
        << steps[i]["assumptions"].dump();
  }
  // The answer's step time has 4 significant digits: the 1.6 % more cast traffic than delayed
  // scaling may not show in it; the bytes per cast element do.
  EXPECT_GE(steps[1]["step_time_s"].get<double>(), steps[0]["step_time_s"].get<double>());
  EXPECT_LT(steps[1]["step_time_s"].get<double>(), steps[2]["step_time_s"].get<double>());
  EXPECT_TRUE(Mentions(steps[1], "assumptions", "mxfp8 scaling, 4.06 bytes moved per cast"))
      << steps[1]["assumptions"].dump();
  EXPECT_TRUE(Mentions(steps[1], "assumptions", "MXFP8 GEMMs at the FP8 peak"));

  // precision auto with mxfp8: fp8 on Blackwell; 16-bit, saying why, on Hopper (not a 422 for
  // a precision the request did not name).
  json auto_body = body;
  auto_body.erase("precision");
  auto_body["fp8_scaling"] = "mxfp8";
  json blackwell_auto = Estimate(auto_body);
  EXPECT_EQ(blackwell_auto["precision"], "fp8");
  auto_body["hardware"]["gpu"] = "H100-80GB-SXM5";
  json hopper_auto = Estimate(auto_body);
  EXPECT_EQ(hopper_auto["precision"], "bf16");
  EXPECT_TRUE(Mentions(hopper_auto, "assumptions", "not fp8: fp8_scaling mxfp8 needs"))
      << hopper_auto["assumptions"].dump();

  // A reference run on Hopper in FP8 for a Blackwell plan in MXFP8: the reference's FP8 is
  // estimated with delayed scaling, and the answer says so.
  json referenced = body;
  referenced["fp8_scaling"] = "mxfp8";
  for (const char* key : {"dataset", "tensor_parallel", "pipeline_parallel", "zero_stage",
                          "micro_batch_size"}) {
    referenced.erase(key);  // the search picks a layout that fits each GPU
  }
  referenced["reference_run"] = {
      {"hardware", {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 8}}}, {"hours", 10}};
  json from_hopper = Estimate(referenced);
  EXPECT_EQ(from_hopper["precision"], "fp8");
  EXPECT_TRUE(Mentions(from_hopper, "assumptions", "with delayed scaling (it has no block-scaled"))
      << from_hopper["assumptions"].dump();

  json hopper = Llama({{"precision", "fp8"}, {"fp8_scaling", "mxfp8"}});
  auto refused = server_->Post("/api/v1/estimates/training", hopper);
  ASSERT_EQ(refused.status, 422) << refused.body.dump();
  EXPECT_EQ(refused.body["errors"][0]["pointer"], "/fp8_scaling");
  EXPECT_NE(refused.body["errors"][0]["detail"].get<std::string>().find("Blackwell"),
            std::string::npos)
      << refused.body.dump();

  OnlyBlackwellIsRecommended({{"precision", "fp8"}, {"fp8_scaling", "mxfp8"}});
}

// NVFP4 training: estimated on Blackwell (the catalog's fp4_tflops), named as not calibrated;
// refused with a 422 on /precision on a GPU without FP4 and for serving; counted as a
// precision rejection in a recommendation; a Hopper reference run is estimated with what
// precision auto trains there.
TEST_F(TrainingLayoutsTest, Nvfp4TrainingOnGpusWithAnFp4Rate) {
  auto b200 = server_->Get("/api/v1/gpus/B200-180GB-SXM");
  ASSERT_EQ(b200.status, 200) << b200.body.dump();
  EXPECT_EQ(b200.body["peak_tflops"]["fp4"], 9000);
  auto h100 = server_->Get("/api/v1/gpus/H100-80GB-SXM5");
  ASSERT_EQ(h100.status, 200);
  EXPECT_TRUE(h100.body["peak_tflops"]["fp4"].is_null());

  json body = Llama({{"hardware", {{"gpu", "B200-180GB-SXM"}, {"gpus_per_node", 8}}},
                     {"tensor_parallel", 1},
                     {"pipeline_parallel", 1},
                     {"zero_stage", 1},
                     {"micro_batch_size", 2}});
  body["precision"] = "fp8";
  json fp8 = Estimate(body);
  body["precision"] = "nvfp4";
  json fp4 = Estimate(body);
  EXPECT_EQ(fp4["precision"], "nvfp4");
  EXPECT_LT(fp4["step_time_s"].get<double>(), fp8["step_time_s"].get<double>());
  EXPECT_GT(fp4["step_time_s"].get<double>(), fp8["step_time_s"].get<double>() / 2);
  EXPECT_TRUE(Mentions(fp4, "assumptions", "5.12 bytes moved per cast element"))
      << fp4["assumptions"].dump();
  EXPECT_TRUE(Mentions(fp4, "warnings", "nvfp4 training is not calibrated"))
      << fp4["warnings"].dump();

  json refused_gpu = Llama({{"precision", "nvfp4"}});
  EXPECT_EQ(RefusedAt(refused_gpu), "/precision");
  json eager = body;
  eager["framework"] = "eager";
  EXPECT_EQ(RefusedAt(eager), "/precision");

  json serve = {{"workload", "llama-2-7b"},
                {"precision", "nvfp4"},
                {"input_tokens", 1000},
                {"output_tokens", 200},
                {"target_requests_per_s", 1},
                {"hardware", {{"gpu", "B200-180GB-SXM"}, {"gpus_per_node", 1}}}};
  auto serving = server_->Post("/api/v1/estimates/inference", serve);
  ASSERT_EQ(serving.status, 422) << serving.body.dump();
  EXPECT_EQ(serving.body["errors"][0]["pointer"], "/precision");
  EXPECT_NE(serving.body["errors"][0]["detail"].get<std::string>().find("mxfp4"),
            std::string::npos);

  json referenced = body;
  for (const char* key :
       {"dataset", "tensor_parallel", "pipeline_parallel", "zero_stage", "micro_batch_size"}) {
    referenced.erase(key);
  }
  referenced["reference_run"] = {{"hardware", {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 8}}},
                                 {"hours", 10}};
  json from_hopper = Estimate(referenced);
  EXPECT_EQ(from_hopper["precision"], "nvfp4");
  EXPECT_TRUE(Mentions(from_hopper, "assumptions",
                       "(precision auto: it has no FP4 tensor cores for nvfp4)"))
      << from_hopper["assumptions"].dump();
  // Told the reference itself ran nvfp4 on Hopper: that is impossible, and refused.
  referenced["reference_run"]["precision"] = "nvfp4";
  auto impossible = server_->Post("/api/v1/estimates/training", referenced);
  EXPECT_EQ(impossible.status, 422) << impossible.body.dump();

  OnlyBlackwellIsRecommended({{"precision", "nvfp4"}});
}

TEST_F(TrainingLayoutsTest, AnNvl72RackIsOneNvlinkDomain) {
  json body = Llama({{"global_batch_size", 256},
                     {"hardware", {{"gpu", "GB200-186GB"}, {"gpus_per_node", 4}, {"nodes", 16},
                                   {"interconnect", "nvlink"}, {"network_gbps", 400}}}});
  json slow_net = Estimate(body);
  EXPECT_EQ(slow_net["hardware"]["nvlink_domain_gpus"], 72);
  // 64 GPUs inside one NVL72 domain: the network between the trays carries nothing.
  body["hardware"]["network_gbps"] = 3200;
  json fast_net = Estimate(body);
  EXPECT_DOUBLE_EQ(slow_net["step_time_s"].get<double>(), fast_net["step_time_s"].get<double>());
  // Told the trays are separate nodes, the network matters again.
  body["hardware"]["nvlink_domain_gpus"] = 4;
  body["hardware"]["network_gbps"] = 400;
  json separate = Estimate(body);
  EXPECT_EQ(separate["hardware"]["nvlink_domain_gpus"], 4);
  EXPECT_GT(separate["step_time_s"].get<double>(), slow_net["step_time_s"].get<double>());
}

TEST_F(TrainingLayoutsTest, LayoutsThatCannotApplyAreRefusedNamingTheField) {
  struct Case {
    json body;
    const char* pointer;
  } cases[] = {
      // 4096 tokens do not split into 2 x 3 chunks.
      {Llama({{"context_parallel", 3}, {"hardware", {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 6}}}}),
       "/context_parallel"},
      // tensor 4 x context 4 = 16 does not divide 8 GPUs.
      {Llama({{"tensor_parallel", 4}, {"context_parallel", 4}}), "/context_parallel"},
      {Llama({{"workload", "resnet-50"}, {"context_parallel", 2}, {"dataset", {{"samples", 1e6}}}}),
       "/context_parallel"},
      {Llama({{"context_parallel", 0}}), "/context_parallel"},
      {Llama({{"virtual_pipeline_stages", 2}}), "/virtual_pipeline_stages"},
      // pipeline 4 x 3 chunks do not divide 32 layers.
      {Llama({{"pipeline_parallel", 4}, {"virtual_pipeline_stages", 3}}), "/virtual_pipeline_stages"},
      {Llama({{"pipeline_parallel", 2}, {"virtual_pipeline_stages", 2}, {"framework", "eager"}}),
       "/virtual_pipeline_stages"},
      {Llama({{"pipeline_parallel", 64}, {"hardware", {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 8}, {"nodes", 8}}}}),
       "/pipeline_parallel"},
      {Llama({{"tensor_parallel", 3}, {"hardware", {{"gpu", "H100-80GB-SXM5"}, {"gpus_per_node", 6}}}}),
       "/tensor_parallel"},
      {Llama({{"sequence_parallel", "yes"}}), "/sequence_parallel"},
      {Llama({{"workload", "resnet-50"}, {"sequence_parallel", true}, {"dataset", {{"samples", 1e6}}}}),
       "/sequence_parallel"},
      {Llama({{"tensor_parallel_overlap", 1}}), "/tensor_parallel_overlap"},
      {Llama({{"fp8_scaling", "dynamic"}}), "/fp8_scaling"},
      {Llama({{"precision", "fp8"}, {"framework", "eager"}}), "/precision"},
      {Llama({{"precision", "fp8"}, {"workload", "resnet-50"}, {"dataset", {{"samples", 1e6}}}}),
       "/precision"},
      {Llama({{"precision", "fp8"}, {"hardware", {{"gpu", "A100-80GB-SXM4"}, {"gpus_per_node", 8}}}}),
       "/precision"},
      {Llama({{"hardware", {{"gpu", "GB200-186GB"}, {"gpus_per_node", 4}, {"nodes", 2},
                            {"interconnect", "nvlink"}, {"nvlink_domain_gpus", 70}}}}),
       "/hardware/nvlink_domain_gpus"},
      {Llama({{"hardware", {{"gpu", "H100-80GB-PCIe"}, {"gpus_per_node", 4}, {"nodes", 2},
                            {"interconnect", "pcie"}, {"nvlink_domain_gpus", 8}}}}),
       "/hardware/nvlink_domain_gpus"},
      {Llama({{"hardware", {{"gpu", "GB200-186GB"}, {"gpus_per_node", 4},
                            {"nvlink_domain_gpus", 1000}}}}),
       "/hardware/nvlink_domain_gpus"},
  };
  for (const Case& c : cases) EXPECT_EQ(RefusedAt(c.body), c.pointer) << c.body.dump();
}

}  // namespace
}  // namespace gpuplan::api
