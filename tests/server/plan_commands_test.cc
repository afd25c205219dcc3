// The CLI's planning subcommands answer what the API answers, over the same catalog file.
#include "server/plan_commands.h"
#include "server/catalog_commands.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "tests/testing/test_server.h"

namespace gpuplan::server {
namespace {

using nlohmann::json;
using testing::TestServer;

class PlanCommandsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new testing::TestServer(); }
  static void TearDownTestSuite() { delete server_; }
  static testing::TestServer* server_;
};
testing::TestServer* PlanCommandsTest::server_ = nullptr;

TEST_F(PlanCommandsTest, RecommendGivesTheApisRankedList) {
  RecommendOptions o;
  o.common.db = server_->db_path();
  o.common.json = true;
  o.job.workload = "bert-large";
  o.job.samples = 1e7;
  o.gpus = "A100,H100,L4";
  o.clouds = "aws,gcp";
  o.limit = 20;
  std::ostringstream out, err;
  ASSERT_EQ(RunRecommend(o, out, err), 0) << err.str();
  json cli = json::parse(out.str());
  json body = {{"task", "training"},
               {"workload", "bert-large"},
               {"dataset", {{"samples", 1e7}, {"epochs", 1}}},
               {"global_batch_size", 256},
               {"precision", "auto"},
               {"objective", "cost"},
               {"limit", 20},
               {"currency", "USD"},
               {"constraints", {{"gpus", {"A100", "H100", "L4"}}, {"clouds", {"aws", "gcp"}},
                                {"max_nodes", 4}}}};
  auto api = server_->Post("/api/v1/recommendations", body);
  ASSERT_EQ(api.status, 200) << api.body.dump();
  ASSERT_GE(cli["items"].size(), 5u);
  EXPECT_EQ(cli["items"], api.body["items"]);
  EXPECT_EQ(cli["pareto_front"], api.body["pareto_front"]);
  EXPECT_EQ(cli["rejected"], api.body["rejected"]);

  // A typo is the same error, on stderr, with exit code 2, naming the field as the API does.
  o.gpus = "H10O";
  std::ostringstream out2, err2;
  EXPECT_EQ(RunRecommend(o, out2, err2), 2);
  EXPECT_NE(err2.str().find("  /constraints/gpus/0: unknown GPU"), std::string::npos) << err2.str();

  // No dataset size given: named, not a default nobody chose.
  CompareOptions c;
  c.common.db = server_->db_path();
  std::ostringstream out3, err3;
  EXPECT_EQ(RunCompare(c, out3, err3), 2);
  EXPECT_NE(err3.str().find("/dataset/samples"), std::string::npos) << err3.str();
}

TEST_F(PlanCommandsTest, EstimateAndCompareGiveTheApisAnswers) {
  EstimateOptions e;
  e.common.db = server_->db_path();
  e.common.json = true;
  e.job.workload = "bert-large";
  e.cloud = "aws";
  e.instance_type = "p4d.24xlarge";
  e.job.samples = 1e7;
  std::ostringstream out, err;
  ASSERT_EQ(RunEstimate(e, out, err), 0) << err.str();
  json cli = json::parse(out.str());
  json body = {{"workload", "bert-large"},
               {"dataset", {{"samples", 1e7}, {"epochs", 1}}},
               {"global_batch_size", 256},
               {"hardware", {{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"}, {"nodes", 1}}}};
  auto api = server_->Post("/api/v1/estimates/training", body);
  ASSERT_EQ(api.status, 200) << api.body.dump();
  EXPECT_EQ(cli["cost"], api.body["cost"]);
  EXPECT_EQ(cli["instance"], api.body["instance"]);
  EXPECT_EQ(cli["time"], api.body["time"]);

  CompareOptions c;
  c.common.db = server_->db_path();
  c.common.json = true;
  c.job.workload = "resnet-50";
  c.job.samples = 1281167;
  c.gpus = "T4,A100-80GB-SXM4";
  std::ostringstream cout_, cerr_;
  ASSERT_EQ(RunCompare(c, cout_, cerr_), 0) << cerr_.str();
  auto compared = server_->Get("/api/v1/compare?workload=resnet-50&samples=1281167&gpus=T4,A100-80GB-SXM4");
  ASSERT_EQ(compared.status, 200);
  EXPECT_EQ(json::parse(cout_.str())["items"], compared.body["items"]);
}

// --hours goes to the API as given: a bad or conflicting value is the API's error, on
// stderr with exit code 2, never dropped; a good one answers what the API answers.
TEST_F(PlanCommandsTest, HoursAreTheApisFixedDuration) {
  EstimateOptions e;
  e.common.db = server_->db_path();
  e.job.workload = "bert-large";
  e.gpu = "T4";
  e.job.hours = -1;
  std::ostringstream out, err;
  EXPECT_EQ(RunEstimate(e, out, err), 2);
  EXPECT_NE(err.str().find("/dataset/hours"), std::string::npos) << err.str();

  e.job.hours = 2;
  e.job.epochs = 3;
  std::ostringstream out2, err2;
  EXPECT_EQ(RunEstimate(e, out2, err2), 2);
  EXPECT_NE(err2.str().find("/dataset/epochs"), std::string::npos) << err2.str();

  e.job.epochs.reset();
  e.job.hours = 24;
  e.common.json = true;
  std::ostringstream out3, err3;
  ASSERT_EQ(RunEstimate(e, out3, err3), 0) << err3.str();
  json cli = json::parse(out3.str());
  auto api = server_->Post("/api/v1/estimates/training",
                           {{"workload", "bert-large"}, {"dataset", {{"hours", 24}}},
                            {"global_batch_size", 256}, {"hardware", {{"gpu", "T4"}, {"nodes", 1}}}});
  ASSERT_EQ(api.status, 200) << api.body.dump();
  EXPECT_EQ(cli["time"], api.body["time"]);
  EXPECT_EQ(cli["time"]["total_hours"], 24.0);
}

// --export prints, byte for byte, the YAML the API answers with ?format= for the same
// request: the top item of a recommendation by default, --item N otherwise.
TEST_F(PlanCommandsTest, ExportGivesTheApisYaml) {
  RecommendOptions o;
  o.common.db = server_->db_path();
  o.job.workload = "bert-large";
  o.job.samples = 1e7;
  o.gpus = "A100-40GB-SXM4";
  o.clouds = "aws";
  o.max_nodes = 2;
  o.objective = "time";
  o.limit = 3;
  json body = {{"task", "training"},
               {"workload", "bert-large"},
               {"dataset", {{"samples", 1e7}}},
               {"global_batch_size", 256},
               {"precision", "auto"},
               {"objective", "time"},
               {"limit", 3},
               {"currency", "USD"},
               {"constraints", {{"gpus", {"A100-40GB-SXM4"}}, {"clouds", {"aws"}}, {"max_nodes", 2}}}};
  for (const char* format : {"skypilot", "kubernetes"}) {
    o.common.export_format = format;
    std::ostringstream out, err;
    ASSERT_EQ(RunRecommend(o, out, err), 0) << err.str();
    auto api = server_->Send("POST", std::string("/api/v1/recommendations?format=") + format,
                             body.dump(), "application/json", {});
    ASSERT_EQ(api.status, 200) << api.body.dump();
    EXPECT_EQ(out.str(), api.raw) << format;
    EXPECT_NE(out.str().find("p4d.24xlarge"), std::string::npos);
  }
  o.item = 2;
  std::ostringstream out2, err2;
  ASSERT_EQ(RunRecommend(o, out2, err2), 0) << err2.str();
  EXPECT_EQ(out2.str(), server_->Send("POST", "/api/v1/recommendations?format=kubernetes&item=2",
                                      body.dump(), "application/json", {})
                            .raw);

  o.item = 9;  // the recommendation has 3 items
  std::ostringstream out3, err3;
  EXPECT_EQ(RunRecommend(o, out3, err3), 2);
  EXPECT_NE(err3.str().find("item"), std::string::npos) << err3.str();

  o.item = 1;
  o.common.export_format = "yaml";
  std::ostringstream out4, err4;
  EXPECT_EQ(RunRecommend(o, out4, err4), 2);
  EXPECT_NE(err4.str().find("--export"), std::string::npos) << err4.str();

  EstimateOptions e;
  e.common.db = server_->db_path();
  e.common.export_format = "skypilot";
  e.job.workload = "bert-large";
  e.cloud = "aws";
  e.instance_type = "p4d.24xlarge";
  e.job.samples = 1e7;
  std::ostringstream out5, err5;
  ASSERT_EQ(RunEstimate(e, out5, err5), 0) << err5.str();
  json estimate = {{"workload", "bert-large"},
                   {"dataset", {{"samples", 1e7}}},
                   {"global_batch_size", 256},
                   {"precision", "auto"},
                   {"optimizer", "adamw"},
                   {"activation_checkpointing", "none"},
                   {"framework", "auto"},
                   {"pricing", {{"kind", "both"}}},
                   {"hardware", {{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"}, {"nodes", 1}}}};
  auto api = server_->Send("POST", "/api/v1/estimates/training?format=skypilot", estimate.dump(),
                           "application/json", {});
  ASSERT_EQ(api.status, 200) << api.body.dump();
  EXPECT_EQ(out5.str(), api.raw);
  EXPECT_NE(out5.str().find("accelerators: \"A100:8\""), std::string::npos) << out5.str();
}

// Issue 23 through the CLI: the same verdicts, aliases and labels as the API, and the
// catalog listing commands the CLI's own messages point at.
namespace issue23 {

std::string Run(int (*command)(const CatalogListOptions&, std::ostream&, std::ostream&),
                const CatalogListOptions& o) {
  std::ostringstream out, err;
  EXPECT_EQ(command(o, out, err), 0) << err.str();
  return out.str();
}

}  // namespace issue23

TEST_F(PlanCommandsTest, Issue23InfeasibleOptionsAreNeverPrintedAsPlans) {
  CompareOptions c;
  c.common.db = server_->db_path();
  c.job.workload = "llama-2-70b";
  c.job.tokens = 1e11;
  c.gpus = "H200,L4";  // an alias too (H100 names three priced parts since issue 27)
  c.gpus_per_node = 8;
  std::ostringstream out, err;
  ASSERT_EQ(RunCompare(c, out, err), 0) << err.str();
  const std::string table = out.str();
  size_t l4 = table.find("\nL4 ");
  ASSERT_NE(l4, std::string::npos) << table;
  std::string l4_line = table.substr(l4 + 1, table.find('\n', l4 + 1) - l4 - 1);
  EXPECT_NE(l4_line.find("does not fit"), std::string::npos) << l4_line;
  EXPECT_EQ(l4_line.find(" h "), std::string::npos) << "no time for L4: " << l4_line;
  EXPECT_NE(table.find("NOT FEASIBLE (does_not_fit)"), std::string::npos) << table;
  EXPECT_NE(table.find("nearest change:"), std::string::npos) << table;
  EXPECT_NE(table.find("H200-141GB-SXM"), std::string::npos) << table;
  EXPECT_NE(table.find("read as H200-141GB-SXM"), std::string::npos) << table;

  EstimateOptions e;
  e.common.db = server_->db_path();
  e.job.workload = "vit-l-16";
  e.job.samples = 1281167;
  e.job.global_batch = 64;
  e.job.precision = "fp16";
  e.micro_batch = 64;
  e.gpu = "T4";
  std::ostringstream eout, eerr;
  ASSERT_EQ(RunEstimate(e, eout, eerr), 0) << eerr.str();
  const std::string text = eout.str();
  EXPECT_NE(text.find("NOT FEASIBLE (does_not_fit)"), std::string::npos) << text;
  EXPECT_NE(text.find("nearest change: micro_batch_size "), std::string::npos) << text;
  EXPECT_EQ(text.find("total:"), std::string::npos) << text;
  EXPECT_EQ(text.find("even at micro-batch 1"), std::string::npos) << text;
}

TEST_F(PlanCommandsTest, Issue23RecommendTableNamesKindsAndP90AndListsAreThere) {
  RecommendOptions o;
  o.common.db = server_->db_path();
  o.job.workload = "bert-large";
  o.job.samples = 1e7;
  o.job.epochs = 3;
  o.deadline_hours = 24;
  o.limit = 40;
  std::ostringstream out, err;
  ASSERT_EQ(RunRecommend(o, out, err), 0) << err.str();
  const std::string table = out.str();
  EXPECT_NE(table.find("P90"), std::string::npos) << table;
  EXPECT_NE(table.find("spot_with_fallback"), std::string::npos) << table;
  EXPECT_NE(table.find("held to each option's P90 time"), std::string::npos) << table;

  o.distinct = "instance_type";
  o.common.json = true;
  std::ostringstream jout, jerr;
  ASSERT_EQ(RunRecommend(o, jout, jerr), 0) << jerr.str();
  std::set<std::string> types;
  json distinct = json::parse(jout.str());
  ASSERT_GE(distinct["items"].size(), 5u) << jout.str();
  for (const auto& item : distinct["items"]) {
    EXPECT_TRUE(types.insert(item["cloud"].get<std::string>() + "/" +
                             item["instance_type"].get<std::string>()).second);
    EXPECT_LE(item["p90_hours"].get<double>(), 24.0);
  }

  CatalogListOptions list;
  list.db = server_->db_path();
  std::string gpus = issue23::Run(&RunListGpus, list);
  EXPECT_NE(gpus.find("H100-80GB-SXM5"), std::string::npos) << gpus;
  std::string workloads = issue23::Run(&RunListWorkloads, list);
  EXPECT_NE(workloads.find("llama-2-7b"), std::string::npos) << workloads;
  list.cloud = "aws";
  list.gpu = "H100";
  std::string instances = issue23::Run(&RunListInstances, list);
  EXPECT_NE(instances.find("p5.48xlarge"), std::string::npos) << instances;
  EXPECT_EQ(instances.find("gcp"), std::string::npos) << instances;
  list.json = true;
  std::string lines = issue23::Run(&RunListInstances, list);
  json first = json::parse(lines.substr(0, lines.find('\n')));
  EXPECT_EQ(first["cloud"], "aws");
}


// Findings 3, 4 and 5 through the CLI: the default framework, flagged prices and the spot
// figures say the same as the API.
TEST_F(PlanCommandsTest, Issue23DefaultsFlaggedPricesAndSpotFiguresAsTheApi) {
  EstimateOptions e;
  e.common.db = server_->db_path();
  e.job.workload = "bert-large";
  e.job.samples = 3e7;
  e.cloud = "aws";
  e.instance_type = "p4d.24xlarge";
  e.region = "us-east-1";
  e.pricing = "spot";
  std::ostringstream out, err;
  ASSERT_EQ(RunEstimate(e, out, err), 0) << err.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("framework auto (the default): optimized"), std::string::npos) << text;
  // Issue 27: the offer's Spot Instance Advisor band, not the default.
  EXPECT_NE(text.find("from the AWS Spot Instance Advisor band 10-15%"), std::string::npos)
      << text;
  EXPECT_NE(text.find("lose no work"), std::string::npos) << text;
  EXPECT_NE(text.find("wall time (P10 "), std::string::npos) << text;
  e.common.json = true;
  std::ostringstream jout, jerr;
  ASSERT_EQ(RunEstimate(e, jout, jerr), 0) << jerr.str();
  json spot = json::parse(jout.str())["cost"]["spot"];
  EXPECT_EQ(spot["lost_work_hours"].get<double>(), 0.0) << spot.dump();
  EXPECT_GE(spot["p90_wall_hours"].get<double>(), spot["wall_hours"].get<double>());

  RecommendOptions r;
  r.common.db = server_->db_path();
  r.task = "inference";
  r.job.workload = "llama-2-7b";
  r.input_tokens = 200;
  r.output_tokens = 300;
  r.requests_per_s = 50;
  r.latency_slo_ms = 2000;
  r.limit = 100;
  std::ostringstream rout, rerr;
  ASSERT_EQ(RunRecommend(r, rout, rerr), 0) << rerr.str();
  EXPECT_NE(rout.str().find("doubtful_price"), std::string::npos) << rout.str();
  EXPECT_NE(rout.str().find("option(s) not ranked"), std::string::npos) << rout.str();
  // The seeded flagged offers (AWS g5 zones whose spot is a hair above on-demand) rank far
  // below the first 100 of the full catalog (issue 27): a database of its own gets a cheap
  // inverted 4 x H100 offer that ranks.
  TestServer own;
  ASSERT_TRUE(testing::AddOfferWithSpotAboveOnDemand(own, "inverted.h100x4", "H100-80GB-SXM5",
                                                     4, 0.04));
  r.common.db = own.db_path();
  r.include_doubtful_prices = true;
  r.common.json = true;
  std::ostringstream fout, ferr;
  ASSERT_EQ(RunRecommend(r, fout, ferr), 0) << ferr.str();
  int flagged = 0;
  json ranked = json::parse(fout.str());
  for (const auto& item : ranked["items"]) {
    for (const auto& flag : item.value("price_flags", json::array())) {
      flagged += flag == "spot_above_ondemand";
    }
  }
  EXPECT_GT(flagged, 0) << ranked["rejected"].dump() << " " << ranked["items"].size();
}

// Issue 24: the serving options reach the planner from the CLI, and the table says p95.
TEST_F(PlanCommandsTest, Issue24ServingOptionsFromTheCommandLine) {
  RecommendOptions r;
  r.common.db = server_->db_path();
  r.task = "inference";
  r.job.workload = "llama-3-8b";
  r.input_tokens = 200;
  r.output_tokens = 300;
  r.requests_per_s = 20;
  r.latency_slo_ms = 3000;
  r.tpot_slo_ms = 9;
  r.engine_version = "v0";
  r.max_num_seqs = 64;
  r.weight_quantization = "int4_awq";
  r.limit = 3;
  std::ostringstream out, err;
  ASSERT_EQ(RunRecommend(r, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("p95 latency"), std::string::npos) << out.str();
  r.common.json = true;
  std::ostringstream jout, jerr;
  ASSERT_EQ(RunRecommend(r, jout, jerr), 0) << jerr.str();
  json ranked = json::parse(jout.str());
  ASSERT_FALSE(ranked["items"].empty()) << ranked.dump();
  for (const auto& item : ranked["items"]) {
    EXPECT_LE(item["latency_p95"]["tpot_s"].get<double>(), 0.009) << item.dump();
    EXPECT_LE(item["latency_p95"]["e2e_s"].get<double>(), 3.0) << item.dump();
  }
  r.weight_quantization = "int3";
  std::ostringstream bout, berr;
  EXPECT_NE(RunRecommend(r, bout, berr), 0);
  EXPECT_NE(berr.str().find("weight_quantization"), std::string::npos) << berr.str();
}

}  // namespace
}  // namespace gpuplan::server
