// Catalog writes, API keys, bulk imports, exports and spot history over real HTTP.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "db/api_keys.h"
#include "db/database.h"
#include "db/sql.h"
#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;
using testing::TestServer;

const char* kAzureCsv =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone,Generation\n"
    "Standard_NC24ads_A100_v4,A100-80GB,1,24,220,,3.673,1.4692,eastus,,V2\n"
    "Standard_ND96asr_v4,A100,8,96,900,,27.197,10.8788,eastus,,V2\n"
    "Standard_ND96isr_H100_v5,H100,8,96,1900,,98.32,,eastus,,V2\n"
    "Standard_NG8ads_V620_v1,Radeon Pro V620,1,8,16,,0.6,,eastus,,V2\n";

using testing::CreateApiKey;

class CatalogWriteApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new TestServer();
    write_key_ = new std::string(CreateApiKey(*server_, "platform", "write"));
    admin_key_ = new std::string(CreateApiKey(*server_, "ops", "admin"));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete write_key_;
    delete admin_key_;
  }
  static httplib::Headers Auth(const std::string& key) { return {{"Authorization", "Bearer " + key}}; }
  static TestServer::Reply Send(const std::string& method, const std::string& path, const json& body,
                                const std::string& key) {
    return server_->Send(method, path, body.is_null() ? "" : body.dump(), "application/json", Auth(key));
  }
  static TestServer::Reply Import(const std::string& query, const std::string& body,
                                  const std::string& type = "text/csv") {
    return server_->Send("POST", "/api/v1/catalog/import?" + query, body, type, Auth(*write_key_));
  }
  static json Export() {
    auto reply = server_->Get("/api/v1/catalog/export?format=json");
    EXPECT_EQ(reply.status, 200);
    json body = reply.body;
    body.erase("exported_at");
    return body;
  }
  static TestServer* server_;
  static std::string* write_key_;
  static std::string* admin_key_;
};
TestServer* CatalogWriteApiTest::server_ = nullptr;
std::string* CatalogWriteApiTest::write_key_ = nullptr;
std::string* CatalogWriteApiTest::admin_key_ = nullptr;

json NewGpu(const std::string& id) {
  return {{"id", id}, {"name", id}, {"vendor", "NVIDIA"}, {"memory_gb", 96},
          {"memory_bw_gbps", 4000}, {"bf16_tflops", 800}, {"fp16_tflops", 800},
          {"fp32_tflops", 60}, {"nvlink_bw_gbps", 900}, {"form_factor", "SXM"},
          {"source", "test"}};
}

TEST_F(CatalogWriteApiTest, KeysAreRequiredAndChecked) {
  json gpu = NewGpu("TEST-GPU-1");
  auto none = server_->Send("POST", "/api/v1/gpus", gpu.dump(), "application/json", {});
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.content_type, "application/problem+json");
  auto wrong = Send("POST", "/api/v1/gpus", gpu, "gpk_not_a_key");
  EXPECT_EQ(wrong.status, 401);
  auto scope = Send("POST", "/api/v1/gpus", gpu, *write_key_);  // GPU specs need admin
  EXPECT_EQ(scope.status, 403);
  std::string doomed = CreateApiKey(*server_, "doomed", "admin");
  {
    auto db = db::OpenDatabase(server_->db_path());
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db::ApiKeyStore(**db).Revoke("doomed").ok());
  }
  auto revoked = Send("POST", "/api/v1/gpus", gpu, doomed);
  EXPECT_EQ(revoked.status, 403);
  EXPECT_NE(revoked.body["detail"].get<std::string>().find("revoked"), std::string::npos);
  // Reads stay public.
  EXPECT_EQ(server_->Get("/api/v1/gpus").status, 200);
  // Only the hash is stored.
  auto db = db::OpenDatabase(server_->db_path());
  gpuplan::db::Statement s(**db, "SELECT COUNT(*) FROM api_keys WHERE key_hash = ?");
  s.bind(1, *write_key_);
  s.executeStep();
  EXPECT_EQ(s.getColumn(0).getInt(), 0);
}

TEST_F(CatalogWriteApiTest, GpuWrites) {
  auto created = Send("POST", "/api/v1/gpus", NewGpu("TEST-GPU-2"), *admin_key_);
  ASSERT_EQ(created.status, 201) << created.body.dump();
  EXPECT_EQ(created.location, "/api/v1/gpus/TEST-GPU-2");
  EXPECT_EQ(server_->Get(created.location).body["memory_gb"], 96.0);
  EXPECT_EQ(Send("POST", "/api/v1/gpus", NewGpu("TEST-GPU-2"), *admin_key_).status, 409);
  json changed = NewGpu("TEST-GPU-2");
  changed["memory_gb"] = 141;
  changed["fp4_tflops"] = 9000;  // stored (migration 10) and read back as the FP4 peak
  auto put = Send("PUT", "/api/v1/gpus/TEST-GPU-2", changed, *admin_key_);
  EXPECT_EQ(put.status, 200);
  const json stored = server_->Get("/api/v1/gpus/TEST-GPU-2").body;
  EXPECT_EQ(stored["memory_gb"], 141.0);
  EXPECT_EQ(stored["peak_tflops"]["fp4"], 9000.0);
  json negative_fp4 = NewGpu("TEST-GPU-3");
  negative_fp4["fp4_tflops"] = -1;
  auto no_fp4 = Send("POST", "/api/v1/gpus", negative_fp4, *admin_key_);
  EXPECT_EQ(no_fp4.status, 422);
  EXPECT_EQ(no_fp4.body["errors"][0]["pointer"], "/fp4_tflops");
  json bad = NewGpu("TEST-GPU-3");
  bad["memory_gb"] = -1;
  auto invalid = Send("POST", "/api/v1/gpus", bad, *admin_key_);
  EXPECT_EQ(invalid.status, 422);
  EXPECT_EQ(invalid.body["errors"][0]["pointer"], "/memory_gb");
  json too_fast = NewGpu("TEST-GPU-3");
  too_fast["memory_bw_gbps"] = 1000;
  too_fast["achievable_bw_gbps"] = 1200;
  auto rejected = Send("POST", "/api/v1/gpus", too_fast, *admin_key_);
  EXPECT_EQ(rejected.status, 422);
  EXPECT_EQ(rejected.body["errors"][0]["pointer"], "/achievable_bw_gbps");
  json no_memory = NewGpu("TEST-GPU-3");  // a model step needs a memory bandwidth
  no_memory.erase("memory_bw_gbps");
  auto unmeasured = Send("POST", "/api/v1/gpus", no_memory, *admin_key_);
  EXPECT_EQ(unmeasured.status, 422);
  EXPECT_EQ(unmeasured.body["errors"][0]["pointer"], "/memory_bw_gbps");
  auto mismatch = Send("PUT", "/api/v1/gpus/OTHER", NewGpu("TEST-GPU-2"), *admin_key_);
  EXPECT_EQ(mismatch.status, 422);
  EXPECT_EQ(Send("DELETE", "/api/v1/gpus/A100-80GB-SXM4", nullptr, *admin_key_).status, 409);  // in use
  EXPECT_EQ(Send("DELETE", "/api/v1/gpus/TEST-GPU-2", nullptr, *admin_key_).status, 204);
  EXPECT_EQ(server_->Get("/api/v1/gpus/TEST-GPU-2").status, 404);
  EXPECT_EQ(Send("DELETE", "/api/v1/gpus/TEST-GPU-2", nullptr, *admin_key_).status, 404);
}

// launch_price_usd: written, read back, exported and imported; null clears it; a price that
// is not positive is a 422 naming it.
TEST_F(CatalogWriteApiTest, GpuLaunchPriceRoundTrips) {
  json gpu = NewGpu("TEST-GPU-PRICE");
  gpu["launch_price_usd"] = 2500;
  ASSERT_EQ(Send("POST", "/api/v1/gpus", gpu, *admin_key_).status, 201);
  EXPECT_EQ(server_->Get("/api/v1/gpus/TEST-GPU-PRICE").body["launch_price_usd"], 2500.0);
  bool exported = false;
  const json all = Export();
  for (const json& g : all["gpus"]) {
    if (g["id"] == "TEST-GPU-PRICE") {
      EXPECT_EQ(g["launch_price_usd"], 2500.0);
      exported = true;
    }
  }
  EXPECT_TRUE(exported);
  // Imported in the export format: the price comes back as sent.
  json doc = {{"format", "gpuplan"}, {"version", 1}, {"gpus", json::array({gpu})}};
  doc["gpus"][0]["launch_price_usd"] = 1999.5;
  auto imported = server_->Send("POST", "/api/v1/catalog/import?format=gpuplan", doc.dump(),
                                "application/json", Auth(*admin_key_));
  ASSERT_EQ(imported.status, 201) << imported.body.dump();
  EXPECT_EQ(server_->Get("/api/v1/gpus/TEST-GPU-PRICE").body["launch_price_usd"], 1999.5);
  gpu["launch_price_usd"] = nullptr;
  ASSERT_EQ(Send("PUT", "/api/v1/gpus/TEST-GPU-PRICE", gpu, *admin_key_).status, 200);
  EXPECT_TRUE(server_->Get("/api/v1/gpus/TEST-GPU-PRICE").body["launch_price_usd"].is_null());
  gpu["launch_price_usd"] = 0;
  auto zero = Send("PUT", "/api/v1/gpus/TEST-GPU-PRICE", gpu, *admin_key_);
  EXPECT_EQ(zero.status, 422);
  EXPECT_EQ(zero.body["errors"][0]["pointer"], "/launch_price_usd");
  EXPECT_EQ(Send("DELETE", "/api/v1/gpus/TEST-GPU-PRICE", nullptr, *admin_key_).status, 204);
}

TEST_F(CatalogWriteApiTest, InstanceAndPriceWrites) {
  json type = {{"cloud", "testcloud"}, {"instance_type", "gpu_8x_h100_sxm5"}, {"gpu", "H100-80GB-SXM5"},
               {"gpu_count", 8}, {"vcpus", 208}, {"memory_gib", 1800}, {"interconnect", "nvswitch"}};
  auto created = Send("POST", "/api/v1/instances", type, *write_key_);
  ASSERT_EQ(created.status, 201) << created.body.dump();
  EXPECT_EQ(created.location, "/api/v1/instances/testcloud/gpu_8x_h100_sxm5");
  EXPECT_EQ(Send("POST", "/api/v1/instances", type, *write_key_).status, 409);
  json unknown_gpu = type;
  unknown_gpu["instance_type"] = "x";
  unknown_gpu["gpu"] = "NOPE";
  auto bad = Send("POST", "/api/v1/instances", unknown_gpu, *write_key_);
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(bad.body["errors"][0]["pointer"], "/gpu");

  json prices = {{"prices", {{{"cloud", "testcloud"}, {"instance_type", "gpu_8x_h100_sxm5"}, {"region", "us-east-1"},
                              {"kind", "ondemand"}, {"price_per_hour", 23.92}, {"currency", "USD"},
                              {"observed_at", "2026-11-01"}}}}};
  auto posted = Send("POST", "/api/v1/prices", prices, *write_key_);
  ASSERT_EQ(posted.status, 201) << posted.body.dump();
  auto listed = server_->Get("/api/v1/instances?cloud=testcloud");
  ASSERT_EQ(listed.body["items"].size(), 1u);
  EXPECT_EQ(listed.body["items"][0]["price_ondemand_per_hour"], 23.92);
  // A newer observation becomes the current price.
  prices["prices"][0]["price_per_hour"] = 21.5;
  prices["prices"][0]["observed_at"] = "2026-11-15";
  ASSERT_EQ(Send("POST", "/api/v1/prices", prices, *write_key_).status, 201);
  EXPECT_EQ(server_->Get("/api/v1/instances?cloud=testcloud").body["items"][0]["price_ondemand_per_hour"], 21.5);

  json invalid = {{"prices", {{{"cloud", "testcloud"}, {"instance_type", "nope"}, {"region", "r"}, {"kind", "ondemand"},
                               {"price_per_hour", 1}, {"currency", "USD"}},
                              {{"cloud", "testcloud"}, {"instance_type", "gpu_8x_h100_sxm5"}, {"region", "r"},
                               {"kind", "weekly"}, {"price_per_hour", 1}, {"currency", "USD"}}}}};
  auto rejected = Send("POST", "/api/v1/prices", invalid, *write_key_);
  EXPECT_EQ(rejected.status, 422);
  // Every item's problem at once (issue 10: item 0's unknown type was reported only after
  // item 1 was fixed).
  std::set<std::string> pointers;
  for (const auto& e : rejected.body["errors"]) pointers.insert(e["pointer"].get<std::string>());
  EXPECT_EQ(pointers, (std::set<std::string>{"/prices/1/kind", "/prices/0/instance_type"}));
  json yen = {{"prices", {{{"cloud", "testcloud"}, {"instance_type", "gpu_8x_h100_sxm5"}, {"region", "r"},
                           {"kind", "ondemand"}, {"price_per_hour", 3000}, {"currency", "JPY"}}}}};
  auto no_rate = Send("POST", "/api/v1/prices", yen, *write_key_);
  EXPECT_EQ(no_rate.status, 422);  // a price no listing could compare
  EXPECT_EQ(no_rate.body["errors"][0]["pointer"], "/prices/0/currency");
  invalid["prices"].erase(1);
  auto unknown = Send("POST", "/api/v1/prices", invalid, *write_key_);
  EXPECT_EQ(unknown.status, 422);
  EXPECT_EQ(unknown.body["errors"][0]["pointer"], "/prices/0/instance_type");

  type["vcpus"] = 104;
  EXPECT_EQ(Send("PUT", "/api/v1/instances/testcloud/gpu_8x_h100_sxm5", type, *write_key_).status, 200);
  EXPECT_EQ(server_->Get("/api/v1/instances/testcloud/gpu_8x_h100_sxm5").body["vcpus"], 104.0);
  EXPECT_EQ(Send("DELETE", "/api/v1/instances/testcloud/gpu_8x_h100_sxm5", nullptr, *write_key_).status, 204);
  EXPECT_EQ(server_->Get("/api/v1/instances/testcloud/gpu_8x_h100_sxm5").status, 404);
  EXPECT_TRUE(server_->Get("/api/v1/instances?cloud=testcloud").body["items"].empty());
}

TEST_F(CatalogWriteApiTest, SkypilotImportOfANewCloudIsFoundAndRecommended) {
  auto reply = Import("format=skypilot&cloud=newcloud", kAzureCsv);
  ASSERT_EQ(reply.status, 201) << reply.body.dump();
  EXPECT_EQ(reply.body["rows"]["read"], 4);
  EXPECT_EQ(reply.body["rows"]["accepted"], 3);
  EXPECT_EQ(reply.body["rows"]["skipped"], 1);  // the AMD card is not a known GPU
  EXPECT_EQ(reply.body["instance_types"]["inserted"], 3);
  auto listed = server_->Get("/api/v1/instances?cloud=newcloud&gpu=A100");
  ASSERT_EQ(listed.status, 200);
  ASSERT_EQ(listed.body["items"].size(), 2u);
  json rec = {{"workload", "bert-large"}, {"dataset", {{"samples", 1000000}}}, {"global_batch_size", 256},
              {"constraints", {{"clouds", {"newcloud"}}}}};
  auto r = server_->Post("/api/v1/recommendations", rec);
  ASSERT_EQ(r.status, 200) << r.body.dump();
  ASSERT_FALSE(r.body["items"].empty());
  for (const auto& item : r.body["items"]) EXPECT_EQ(item["cloud"], "newcloud");
  // Audit row.
  auto db = db::OpenDatabase(server_->db_path());
  gpuplan::db::Statement audit(**db, "SELECT actor, format, cloud, accepted FROM imports WHERE cloud = 'newcloud'");
  ASSERT_TRUE(audit.executeStep());
  EXPECT_EQ(audit.getColumn(0).getString(), "platform");
  EXPECT_EQ(audit.getColumn(1).getString(), "skypilot");
}

// Issue 10: every row read is accepted, skipped or rejected (a row with an empty
// InstanceType vanished from the counts), and regions created by prices are counted.
TEST_F(CatalogWriteApiTest, ImportCountsAddUp) {
  const std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
      "Region,AvailabilityZone\n"
      "nc.a100,A100-80GB,1,24,220,,3.5,1.4,north-1,\n"
      "nc.a100,A100-80GB,1,24,220,,3.6,,south-1,\n"
      ",A100-80GB,1,24,220,,3.0,,north-1,\n"
      "cpu.only,,,8,32,,0.4,,north-1,\n"
      "nc.v620,Radeon Pro V620,1,8,16,,0.6,,north-1,\n"
      "nc.bad,A100-80GB,one,8,16,,0.6,,north-1,\n";
  auto reply = Import("format=skypilot&cloud=countcloud&partial=true", csv);
  ASSERT_EQ(reply.status, 201) << reply.body.dump();
  const json& rows = reply.body["rows"];
  EXPECT_EQ(rows["read"], 6);
  EXPECT_EQ(rows["read"].get<int>(),
            rows["accepted"].get<int>() + rows["skipped"].get<int>() + rows["rejected"].get<int>())
      << reply.body.dump();
  EXPECT_EQ(rows["accepted"], 2);
  // Skipped on purpose: the CPU-only row and the unknown accelerator. Rejected, with their
  // lines: the row without an InstanceType and the one whose GPU count is not a number.
  EXPECT_EQ(rows["skipped"], 2);
  EXPECT_EQ(rows["rejected"], 2);
  ASSERT_EQ(reply.body["rejected"].size(), 2u);
  EXPECT_EQ(reply.body["rejected"][0]["line"], 4);
  EXPECT_EQ(reply.body["rejected"][1]["line"], 7);
  EXPECT_EQ(reply.body["regions"], 2);
  EXPECT_EQ(server_->Get("/api/v1/regions?cloud=countcloud").body["items"].size(), 2u);
}

// A catalog of a Kubernetes cluster's node pools (cloud "kubernetes") may name GPUs by the
// nvidia.com/gpu.product value GPU Feature Discovery gives their nodes: the catalog's
// kubernetes-scope synonyms resolve those as a cloud's accelerator names resolve, and
// SkyPilot's names still do. Another cloud's import does not know them.
TEST_F(CatalogWriteApiTest, KubernetesImportResolvesGpuProductLabels) {
  const std::string header =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
      "Region,AvailabilityZone\n";
  auto reply = Import("format=skypilot&cloud=kubernetes",
                      header +
                          "pool-h100,NVIDIA-H100-80GB-HBM3,8,192,2000,,40,,cluster-1,\n"
                          "pool-t4,Tesla-T4,1,8,32,,0.5,,cluster-1,\n"
                          "pool-h200,NVIDIA-H200,8,192,2000,,50,,cluster-1,\n"
                          "pool-l4,L4,1,8,32,,0.7,,cluster-1,\n");
  ASSERT_EQ(reply.status, 201) << reply.body.dump();
  EXPECT_EQ(reply.body["rows"]["accepted"], 4) << reply.body.dump();
  for (auto [type, gpu] : {std::pair{"pool-h100", "H100-80GB-SXM5"}, std::pair{"pool-t4", "T4"},
                           std::pair{"pool-h200", "H200-141GB-SXM"}, std::pair{"pool-l4", "L4"}}) {
    auto got = server_->Get(std::string("/api/v1/instances/kubernetes/") + type);
    ASSERT_EQ(got.status, 200) << type;
    EXPECT_EQ(got.body["gpu"], gpu) << type;
  }
  auto elsewhere = Import("format=skypilot&cloud=labelcloud&partial=true",
                          header + "pool-h100,NVIDIA-H100-80GB-HBM3,8,192,2000,,40,,r1,\n");
  ASSERT_EQ(elsewhere.status, 201) << elsewhere.body.dump();
  EXPECT_EQ(elsewhere.body["rows"]["accepted"], 0) << elsewhere.body.dump();
  EXPECT_EQ(elsewhere.body["skipped_by_reason"]["unknown accelerator: NVIDIA-H100-80GB-HBM3"], 1)
      << elsewhere.body.dump();
}

TEST_F(CatalogWriteApiTest, MalformedImportChangesNothing) {
  json before = Export();
  std::string bad = std::string(
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
      "Good_A,A100,8,96,900,,27,10,westeurope,\n"
      "Bad_B,A100,8,96,900,,cheap,10,westeurope,\n"
      "Bad_C,A100,eight,96,900,,27,10,westeurope,\n");
  auto reply = Import("format=skypilot&cloud=azure", bad);
  EXPECT_EQ(reply.status, 422);
  ASSERT_EQ(reply.body["errors"].size(), 2u);
  EXPECT_EQ(reply.body["errors"][0]["line"], 3);
  EXPECT_EQ(reply.body["errors"][1]["line"], 4);
  EXPECT_EQ(Export(), before);
  auto unterminated = Import("format=skypilot&cloud=azure", "InstanceType,AcceleratorName\n\"oops,A100\n");
  EXPECT_EQ(unterminated.status, 422);
  auto missing = Import("format=skypilot&cloud=azure", "InstanceType,Price\nx,1\n");
  EXPECT_EQ(missing.status, 422);
  EXPECT_EQ(Export(), before);
  EXPECT_EQ(Import("format=skypilot", kAzureCsv).status, 422);  // no cloud
  EXPECT_EQ(Import("format=excel&cloud=x", kAzureCsv).status, 422);
}

TEST_F(CatalogWriteApiTest, PartialAndDryRun) {
  std::string mixed =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
      "Partial_Good,A100,8,96,900,,27,10,northeurope,\n"
      "Partial_Bad,A100,8,96,900,,-1,10,northeurope,\n";
  json before = Export();
  auto dry = Import("format=skypilot&cloud=azure&dry_run=true&partial=true", mixed);
  ASSERT_EQ(dry.status, 200) << dry.body.dump();
  EXPECT_FALSE(dry.body["written"].get<bool>());
  EXPECT_EQ(dry.body["instance_types"]["inserted"], 1);
  EXPECT_EQ(Export(), before);
  auto partial = Import("format=skypilot&cloud=azure&partial=true", mixed);
  ASSERT_EQ(partial.status, 201) << partial.body.dump();
  EXPECT_EQ(partial.body["rows"]["rejected"], 1);
  EXPECT_EQ(partial.body["rejected"][0]["line"], 3);
  EXPECT_EQ(server_->Get("/api/v1/instances/azure/Partial_Good").status, 200);
  EXPECT_EQ(server_->Get("/api/v1/instances/azure/Partial_Bad").status, 404);
}

TEST_F(CatalogWriteApiTest, AwsSpotHistoryThenTheHistoryEndpoint) {
  json history = {{"SpotPriceHistory",
                   {{{"AvailabilityZone", "us-east-1a"}, {"InstanceType", "p4d.24xlarge"},
                     {"ProductDescription", "Linux/UNIX"}, {"SpotPrice", "9.100000"},
                     {"Timestamp", "2025-06-01T10:00:00.000Z"}},
                    {{"AvailabilityZone", "us-east-1a"}, {"InstanceType", "p4d.24xlarge"},
                     {"ProductDescription", "Linux/UNIX"}, {"SpotPrice", "8.700000"},
                     {"Timestamp", "2025-06-02T10:00:00.000Z"}},
                    {{"AvailabilityZone", "us-east-1b"}, {"InstanceType", "p4d.24xlarge"},
                     {"ProductDescription", "Windows"}, {"SpotPrice", "12.0"},
                     {"Timestamp", "2025-06-02T10:00:00.000Z"}},
                    {{"AvailabilityZone", "us-east-1c"}, {"InstanceType", "p4d.24xlarge"},
                     {"ProductDescription", "Linux/UNIX"}, {"SpotPrice", "8.2"},
                     {"Timestamp", "2025-06-03T08:00:00.000Z"}},
                    {{"AvailabilityZone", "us-east-1c"}, {"InstanceType", "p9.unknown"},
                     {"ProductDescription", "Linux/UNIX"}, {"SpotPrice", "1"},
                     {"Timestamp", "2025-06-03T08:00:00.000Z"}}}}};
  auto reply = Import("format=aws-spot-history", history.dump(), "application/json");
  ASSERT_EQ(reply.status, 201) << reply.body.dump();
  EXPECT_EQ(reply.body["prices"]["inserted"], 3);
  EXPECT_EQ(reply.body["rows"]["skipped"], 2);
  auto series = server_->Get(
      "/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&region=us-east-1&since=2025-01-01&until=2025-12-31");
  ASSERT_EQ(series.status, 200);
  const json& items = series.body["items"];
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0]["price_per_hour"], 9.1);
  EXPECT_EQ(items[1]["price_per_hour"], 8.7);
  EXPECT_EQ(items[2]["zone"], "us-east-1c");
  EXPECT_LT(items[0]["observed_at"].get<std::string>(), items[2]["observed_at"].get<std::string>());
  // The cursor walk returns the same series page by page.
  std::vector<double> walked;
  std::string target = "/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&limit=2";
  int pages = 0;
  while (true) {
    auto page = server_->Get(target);
    ASSERT_EQ(page.status, 200);
    for (const auto& i : page.body["items"]) walked.push_back(i["price_per_hour"].get<double>());
    ASSERT_LT(++pages, 50);
    if (page.body["next_cursor"].is_null()) break;
    target = "/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&limit=2&cursor=" +
             page.body["next_cursor"].get<std::string>();
  }
  auto all = server_->Get("/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&limit=10000");
  EXPECT_EQ(walked.size(), all.body["items"].size());
  EXPECT_EQ(server_->Get("/api/v1/prices/spot-history?cloud=aws").status, 422);  // instance_type
  // An estimate on that instance summarises the series next to the spot cost.
  json estimate = {{"workload", "bert-large"}, {"dataset", {{"samples", 1000000}}}, {"global_batch_size", 256},
                   {"hardware", {{"cloud", "aws"}, {"region", "us-east-1"}, {"instance_type", "p4d.24xlarge"}}}};
  auto e = server_->Post("/api/v1/estimates/training", estimate);
  ASSERT_EQ(e.status, 200);
  const json& summary = e.body["instance"]["spot_history"];
  EXPECT_GE(summary["observations"].get<int>(), 3);
  EXPECT_LE(summary["min_per_hour"].get<double>(), 8.2);
  EXPECT_GE(summary["max_per_hour"].get<double>(), 9.1);
  auto bad = Import("format=aws-spot-history", "{\"nope\": []}", "application/json");
  EXPECT_EQ(bad.status, 422);
}

// Issue 10: the spot-history link of an estimate is percent-encoded ("+" in a GCP
// instance type read back as a space and found nothing).
TEST_F(CatalogWriteApiTest, SpotHistoryLinksArePercentEncoded) {
  json prices = {{"prices", json::array()}};
  for (const char* day : {"2026-10-01", "2026-10-15", "2026-11-01"}) {
    prices["prices"].push_back({{"cloud", "gcp"}, {"instance_type", "n1-standard-8+1xT4"},
                                {"region", "us-central1"}, {"kind", "spot"},
                                {"price_per_hour", 0.2}, {"currency", "USD"},
                                {"observed_at", day}});
  }
  auto posted = Send("POST", "/api/v1/prices", prices, *write_key_);
  ASSERT_EQ(posted.status, 201) << posted.body.dump();
  json body = {{"workload", "resnet-50"}, {"dataset", {{"samples", 1281167}}},
               {"global_batch_size", 256},
               {"hardware", {{"cloud", "gcp"}, {"instance_type", "n1-standard-8+1xT4"},
                             {"region", "us-central1"}}}};
  auto estimate = server_->Post("/api/v1/estimates/training", body);
  ASSERT_EQ(estimate.status, 200) << estimate.body.dump();
  const json& history = estimate.body["instance"]["spot_history"];
  ASSERT_TRUE(history["series"].is_string()) << estimate.body["instance"].dump();
  std::string link = history["series"];
  EXPECT_NE(link.find("instance_type=n1-standard-8%2B1xT4"), std::string::npos) << link;
  auto series = server_->Get(link);
  ASSERT_EQ(series.status, 200);
  EXPECT_GE(series.body["items"].size(), 3u) << link;
}

// Issue 10, point 4: where the catalog holds spot history for the offer's region, the
// expected spot cost uses its recent mean (cheapest zone per observation) with a P10-P90
// range, and says so; the cloud's preemption notice enters the lost work.
TEST_F(CatalogWriteApiTest, SpotCostFollowsTheHistory) {
  // g5.xlarge in us-east-1: 6 more observation times over 10 days, two zones each.
  json prices = {{"prices", json::array()}};
  const double cheap[] = {0.40, 0.50, 0.30, 0.60, 0.45, 0.35};
  for (int i = 0; i < 6; ++i) {
    std::string day = "2026-11-" + std::to_string(10 + 2 * i);
    for (auto [zone, extra] : {std::pair{"use1-az1", 0.0}, {"use1-az2", 0.2}}) {
      prices["prices"].push_back({{"cloud", "aws"}, {"instance_type", "g5.xlarge"},
                                  {"region", "us-east-1"}, {"zone", zone}, {"kind", "spot"},
                                  {"price_per_hour", cheap[i] + extra}, {"currency", "USD"},
                                  {"observed_at", day}});
    }
  }
  ASSERT_EQ(Send("POST", "/api/v1/prices", prices, *write_key_).status, 201);
  json body = {{"workload", "resnet-50"}, {"dataset", {{"samples", 1281167}, {"epochs", 10}}},
               {"global_batch_size", 256},
               {"hardware", {{"cloud", "aws"}, {"instance_type", "g5.xlarge"},
                             {"region", "us-east-1"}}}};
  auto reply = server_->Post("/api/v1/estimates/training", body);
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const json& spot = reply.body["cost"]["spot"];
  ASSERT_TRUE(spot.is_object()) << reply.body["cost"].dump();
  EXPECT_EQ(spot["price_basis"], "history");
  // The mean of the cheapest zone at each time: ours and the seeded current one (2026-11-22).
  double now = reply.body["instance"]["price_spot_per_hour"].get<double>();
  double mean = (2.6 + now) / 7;
  EXPECT_NEAR(spot["price_per_hour"].get<double>(), mean, 1e-6);
  EXPECT_EQ(spot["price_history"]["observations"], 7);
  EXPECT_LT(spot["price_history"]["p10_per_hour"].get<double>(), mean);
  EXPECT_GT(spot["price_history"]["p90_per_hour"].get<double>(), mean);
  EXPECT_LE(spot["p10_total"].get<double>(), spot["expected_total"].get<double>());
  EXPECT_GE(spot["p90_total"].get<double>(), spot["expected_total"].get<double>());
  EXPECT_EQ(spot["preemption_notice_minutes"], 2.0);  // AWS
  bool said = false;
  for (const auto& a : reply.body["assumptions"]) {
    said = said || a.get<std::string>().find("mean spot price of the cheapest zone over 7") !=
                       std::string::npos;
  }
  EXPECT_TRUE(said) << reply.body["assumptions"].dump();
  // Another region of the same type has only its seeded snapshot: the current price.
  body["hardware"]["region"] = "us-west-2";
  auto current = server_->Post("/api/v1/estimates/training", body);
  ASSERT_EQ(current.status, 200);
  EXPECT_EQ(current.body["cost"]["spot"]["price_basis"], "current");
  EXPECT_EQ(current.body["cost"]["spot"]["price_per_hour"],
            current.body["instance"]["price_spot_per_hour"]);
}

// Issue 10: AWS zone ids (SkyPilot) and zone names (describe-spot-price-history) in one
// series are labelled and the mix is said, not silently merged.
TEST_F(CatalogWriteApiTest, SpotSeriesSaysWhenZoneIdsAndNamesMix) {
  const std::string series =
      "/api/v1/prices/spot-history?cloud=aws&instance_type=g4dn.xlarge&region=us-east-1";
  auto before = server_->Get(series);
  ASSERT_EQ(before.status, 200);
  ASSERT_FALSE(before.body["items"].empty());
  EXPECT_FALSE(before.body.contains("warnings")) << before.body.dump();
  for (const auto& item : before.body["items"]) EXPECT_EQ(item["zone_kind"], "id") << item.dump();
  json prices = {{"prices", {{{"cloud", "aws"}, {"instance_type", "g4dn.xlarge"},
                              {"region", "us-east-1"}, {"zone", "us-east-1a"}, {"kind", "spot"},
                              {"price_per_hour", 0.2}, {"currency", "USD"},
                              {"observed_at", "2026-11-21"}}}}};
  ASSERT_EQ(Send("POST", "/api/v1/prices", prices, *write_key_).status, 201);
  auto after = server_->Get(series);
  ASSERT_EQ(after.status, 200);
  ASSERT_TRUE(after.body["warnings"].is_array()) << after.body.dump();
  EXPECT_NE(after.body["warnings"][0].get<std::string>().find("zone ids"), std::string::npos);
  bool named = false;
  for (const auto& item : after.body["items"]) named = named || item["zone_kind"] == "name";
  EXPECT_TRUE(named);
}

// Issue 10: an observation from the future (2099) would stay the current price forever;
// it is refused, and the current price is unchanged.
TEST_F(CatalogWriteApiTest, FuturePricesAreRefused) {
  const std::string path = "/api/v1/instances/aws/g5.xlarge";
  auto before = server_->Get(path);
  ASSERT_EQ(before.status, 200);
  json prices = {{"prices", {{{"cloud", "aws"}, {"instance_type", "g5.xlarge"},
                              {"region", "us-east-1"}, {"kind", "ondemand"},
                              {"price_per_hour", 0.01}, {"currency", "USD"},
                              {"observed_at", "2099-01-01"}}}}};
  auto reply = Send("POST", "/api/v1/prices", prices, *write_key_);
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.body["errors"][0]["pointer"], "/prices/0/observed_at") << reply.body.dump();
  EXPECT_EQ(server_->Get(path).body["regions"], before.body["regions"]);
}

TEST_F(CatalogWriteApiTest, ExportImportRoundTripIsLossless) {
  ASSERT_EQ(Import("format=skypilot&cloud=azure", kAzureCsv).status / 100, 2);
  json exported = server_->Get("/api/v1/catalog/export?format=json").body;
  TestServer fresh;
  std::string admin = CreateApiKey(fresh, "ops", "admin");
  auto imported = fresh.Send("POST", "/api/v1/catalog/import?format=gpuplan", exported.dump(),
                             "application/json", {{"Authorization", "Bearer " + admin}});
  ASSERT_EQ(imported.status, 201) << imported.body.dump();
  json again = fresh.Get("/api/v1/catalog/export?format=json").body;
  exported.erase("exported_at");
  again.erase("exported_at");
  EXPECT_EQ(again, exported);
  // The gpuplan format touches reference data: write keys may not import it.
  auto denied = fresh.Send("POST", "/api/v1/catalog/import?format=gpuplan", exported.dump(),
                           "application/json", {{"Authorization", "Bearer " + CreateApiKey(fresh, "w", "write")}});
  EXPECT_EQ(denied.status, 403);
  auto csv = fresh.Send("GET", "/api/v1/catalog/export?format=csv", "", "", {});
  EXPECT_EQ(csv.status, 200);
  EXPECT_EQ(csv.content_type, "text/csv; charset=utf-8");
  EXPECT_EQ(csv.raw.rfind("cloud,region,zone,instance_type", 0), 0u);
}

TEST_F(CatalogWriteApiTest, ExchangeRatesCanBeUpdatedAndAreUsed) {
  auto list = server_->Get("/api/v1/fx-rates");
  ASSERT_EQ(list.status, 200);
  EXPECT_GE(list.body["items"].size(), 3u);
  json jpy = {{"units_per_usd", 150.0}, {"as_of", "2026-11-01"}, {"source", "test"}};
  EXPECT_EQ(Send("PUT", "/api/v1/fx-rates/JPY", jpy, *write_key_).status, 403);
  auto put = Send("PUT", "/api/v1/fx-rates/JPY", jpy, *admin_key_);
  ASSERT_EQ(put.status, 201) << put.body.dump();
  auto listed = server_->Get("/api/v1/instances?cloud=aws&gpu=A100&limit=1&currency=JPY");
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.body["items"][0]["currency"], "JPY");
  EXPECT_GT(listed.body["items"][0]["price_ondemand_per_hour"].get<double>(), 1000);
  EXPECT_EQ(Send("PUT", "/api/v1/fx-rates/yen", jpy, *admin_key_).status, 422);
  EXPECT_EQ(Send("PUT", "/api/v1/fx-rates/USD", jpy, *admin_key_).status, 422);
  json garbage = jpy;
  garbage["as_of"] = "garbage";  // issue 10: was stored as is
  auto rejected = Send("PUT", "/api/v1/fx-rates/JPY", garbage, *admin_key_);
  EXPECT_EQ(rejected.status, 422);
  EXPECT_EQ(rejected.body["errors"][0]["pointer"], "/as_of");
  json alibaba = {{"workload", "resnet-50"}, {"dataset", {{"samples", 1281167}}}, {"global_batch_size", 256},
                  {"precision", "fp16"}, {"currency", "USD"},
                  {"hardware", {{"cloud", "alibaba"}, {"region", "cn-hangzhou"}, {"instance_type", "ecs.gn7i-c8g1.2xlarge"}}}};
  auto e = server_->Post("/api/v1/estimates/training", alibaba);
  ASSERT_EQ(e.status, 200) << e.body.dump();
  EXPECT_EQ(e.body["instance"]["fx_rate"]["from"], "CNY");
  EXPECT_LT(e.body["instance"]["price_ondemand_per_hour"].get<double>(), 9.5326 / 5);
}

TEST_F(CatalogWriteApiTest, ReadsStayCorrectWhileImportsCommit) {
  std::atomic<int> failures{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 40; ++i) {
        auto list = server_->Get("/api/v1/instances?cloud=concurrent&limit=500");
        auto est = server_->Post("/api/v1/estimates/training",
                                 {{"workload", "resnet-50"}, {"dataset", {{"samples", 100000}}},
                                  {"global_batch_size", 256}, {"precision", "fp16"},
                                  {"hardware", {{"cloud", "aws"}, {"region", "us-east-1"}, {"instance_type", "g5.xlarge"}}}});
        if (list.status != 200 || est.status != 200) ++failures;
      }
    });
  }
  for (int n = 0; n < 5; ++n) {
    std::string csv =
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
        "conc." + std::to_string(n) + ",L4,1,8,32,,0.8,0.3,r1,\n";
    EXPECT_EQ(Import("format=skypilot&cloud=concurrent", csv).status, 201);
  }
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  // After the imports every reader sees all five new offers.
  EXPECT_EQ(server_->Get("/api/v1/instances?cloud=concurrent").body["items"].size(), 5u);
}

TEST_F(CatalogWriteApiTest, ImportBodyLimit) {
  std::string key = CreateApiKey(*server_, "big", "write");
  std::string answer = server_->Raw(
      "POST /api/v1/catalog/import?format=skypilot&cloud=azure HTTP/1.1\r\nHost: x\r\n"
      "Authorization: Bearer " + key + "\r\nContent-Type: text/csv\r\nContent-Length: " +
      std::to_string((20 << 20) + 10) + "\r\n\r\nInstanceType");
  EXPECT_EQ(testing::RawStatus(answer), 413) << answer;
}

TEST(ReadAuthTest, ReadsCanRequireAKey) {
  TestServer server(/*require_auth_for_reads=*/true);
  EXPECT_EQ(server.Get("/api/v1/gpus").status, 401);
  EXPECT_EQ(server.Get("/healthz").status, 200);  // probes stay open
  std::string key = CreateApiKey(server, "reader", "write");
  auto reply = server.Send("GET", "/api/v1/gpus", "", "", {{"Authorization", "Bearer " + key}});
  EXPECT_EQ(reply.status, 200);
}

}  // namespace
}  // namespace gpuplan::api
