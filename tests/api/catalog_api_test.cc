// The read API over real HTTP against a real server and a seeded SQLite file.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "tests/testing/test_server.h"

namespace gpuplan::api {
namespace {

using testing::TestServer;

class CatalogApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() { delete server_; }
  static TestServer::Reply Get(const std::string& target) { return server_->Get(target); }
  static std::set<std::string> Types(const nlohmann::json& body) {
    std::set<std::string> out;
    for (const auto& item : body["items"]) out.insert(item["instance_type"].get<std::string>());
    return out;
  }
  static TestServer* server_;
};
TestServer* CatalogApiTest::server_ = nullptr;

TEST_F(CatalogApiTest, HealthAndReadiness) {
  auto health = Get("/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body["status"], "ok");
  auto ready = Get("/readyz");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body["database"], "ok");
}

TEST_F(CatalogApiTest, ListsGpusWithTheirSpecs) {
  auto reply = Get("/api/v1/gpus");
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_GE(reply.body["items"].size(), 20u);
  EXPECT_TRUE(reply.body["next_cursor"].is_null());
  auto a100 = Get("/api/v1/gpus/A100-80GB-SXM4");
  ASSERT_EQ(a100.status, 200);
  EXPECT_EQ(a100.body["memory_gb"], 80.0);
  EXPECT_EQ(a100.body["memory_bw_gbps"], 2039.0);
  EXPECT_EQ(a100.body["peak_tflops"]["bf16"], 312.0);
  EXPECT_TRUE(a100.body["peak_tflops"]["fp8"].is_null());
  EXPECT_EQ(a100.body["nvlink_bw_gbps"], 600.0);
  EXPECT_EQ(a100.body["tdp_w"], 400.0);
  // What performance depends on beyond the datasheet peaks (sourced in gpus.csv).
  EXPECT_EQ(a100.body["sm_count"], 108.0);
  EXPECT_EQ(a100.body["base_clock_mhz"], 1275.0);
  EXPECT_EQ(a100.body["achievable_bw_gbps"], 1700.0);
  EXPECT_EQ(a100.body["peak_tflops"]["fp16_vector"], 77.97);
  EXPECT_EQ(a100.body["tensor_flops_per_sm_per_clock"]["fp16"], 2049.0);  // 312e12/108/1.41e9
  // GeForce: FP16 accumulate runs at twice the FP32-accumulate rate training uses.
  auto rtx = Get("/api/v1/gpus/RTX-4090");
  ASSERT_EQ(rtx.status, 200);
  EXPECT_EQ(rtx.body["peak_tflops"]["fp16_acc16"], 330.3);
  EXPECT_EQ(rtx.body["peak_tflops"]["fp16"], 165.2);
  // Unknown stays null, never 0.
  EXPECT_TRUE(Get("/api/v1/gpus/A10G").body["achievable_bw_gbps"].is_null());
}

// Issue 10: vendor filters ignore case, and a bad spot-history date is a 422, not a 200.
TEST_F(CatalogApiTest, VendorIsCaseInsensitiveAndHistoryDatesAreChecked) {
  auto upper = Get("/api/v1/gpus?vendor=NVIDIA");
  auto lower = Get("/api/v1/gpus?vendor=nvidia");
  ASSERT_EQ(lower.status, 200);
  EXPECT_GE(upper.body["items"].size(), 20u);
  EXPECT_EQ(lower.body["items"].size(), upper.body["items"].size());
  for (const char* query : {"since=notadate", "until=2026-13-45"}) {
    auto reply = Get(std::string("/api/v1/prices/spot-history?cloud=aws&instance_type=p3.2xlarge&") +
                     query);
    EXPECT_EQ(reply.status, 422) << query;
    ASSERT_TRUE(reply.body["errors"].is_array()) << query;
    EXPECT_EQ(reply.body["errors"][0]["parameter"], std::string(query).substr(0, 5)) << query;
  }
  EXPECT_EQ(Get("/api/v1/prices/spot-history?cloud=aws&instance_type=p3.2xlarge&since=2026-01-01")
                .status,
            200);
}

// Issue 10's catalog data: each fix checked where users read it.
TEST_F(CatalogApiTest, CatalogDataIsConsistent) {
  // Eight V100 SXM2 GPUs are an NVLink hybrid cube-mesh: no NVSwitch before SXM3.
  for (const char* path : {"/api/v1/instances/aws/p3dn.24xlarge", "/api/v1/instances/aws/p3.16xlarge",
                           "/api/v1/instances/gcp/n1-standard-64+8xV100"}) {
    auto reply = Get(path);
    ASSERT_EQ(reply.status, 200) << path;
    EXPECT_EQ(reply.body["interconnect"], "nvlink") << path;
  }
  // An instance and its -nolssd twin are the same machine.
  auto ultra = Get("/api/v1/instances/gcp/a3-ultragpu-8g");
  auto twin = Get("/api/v1/instances/gcp/a3-ultragpu-8g-nolssd");
  ASSERT_EQ(ultra.status, 200);
  ASSERT_EQ(twin.status, 200);
  for (const char* field : {"interconnect", "interconnect_bw_gbps", "network_gbps"}) {
    EXPECT_EQ(ultra.body[field], twin.body[field]) << field;
  }
  // A30 has BF16 like every GA100; the A10G runs its tensor cores at half the A10's rate
  // per SM (70 dense on 80 SMs against 125 on 72).
  EXPECT_EQ(Get("/api/v1/gpus/A30").body["peak_tflops"]["bf16"], 165.0);
  auto a10g = Get("/api/v1/gpus/A10G").body;
  auto a10 = Get("/api/v1/gpus/A10").body;
  EXPECT_EQ(a10g["peak_tflops"]["bf16"], 70.0);
  EXPECT_NEAR(a10g["tensor_flops_per_sm_per_clock"]["bf16"].get<double>() * 2,
              a10["tensor_flops_per_sm_per_clock"]["bf16"].get<double>(), 30);
}

TEST_F(CatalogApiTest, UnknownGpuIs404Problem) {
  auto reply = Get("/api/v1/gpus/NO-SUCH-GPU");
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.content_type, "application/problem+json");
  EXPECT_EQ(reply.body["status"], 404);
  EXPECT_NE(reply.body["detail"].get<std::string>().find("NO-SUCH-GPU"), std::string::npos);
}

TEST_F(CatalogApiTest, ListsCloudsAndRegions) {
  auto clouds = Get("/api/v1/clouds");
  ASSERT_EQ(clouds.status, 200);
  std::set<std::string> ids;
  for (const auto& c : clouds.body["items"]) ids.insert(c["id"].get<std::string>());
  EXPECT_TRUE(ids.count("aws") && ids.count("gcp") && ids.count("alibaba"));
  auto regions = Get("/api/v1/regions?cloud=gcp");
  ASSERT_EQ(regions.status, 200);
  ASSERT_FALSE(regions.body["items"].empty());
  for (const auto& r : regions.body["items"]) EXPECT_EQ(r["cloud"], "gcp");
  EXPECT_TRUE(Get("/api/v1/regions?cloud=nope").body["items"].empty());
}

TEST_F(CatalogApiTest, FindsAwsA100InstancesWithBothPrices) {
  auto reply = Get("/api/v1/instances?cloud=aws&region=us-east-1&gpu=A100&min_gpu_count=8");
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(Types(reply.body), (std::set<std::string>{"p4d.24xlarge", "p4de.24xlarge"}));
  for (const auto& item : reply.body["items"]) {
    EXPECT_EQ(item["currency"], "USD");
    EXPECT_GT(item["price_ondemand_per_hour"].get<double>(), 0);
    EXPECT_GT(item["price_spot_per_hour"].get<double>(), 0);
    EXPECT_FALSE(item["spot_zone"].is_null());
    EXPECT_NEAR(item["price_per_gpu_hour"].get<double>(),
                item["price_ondemand_per_hour"].get<double>() / 8, 1e-5);
    double memory = item["instance_type"] == "p4d.24xlarge" ? 40 : 80;
    EXPECT_EQ(item["gpu_memory_gb"].get<double>(), memory);
  }
}

TEST_F(CatalogApiTest, FindsGcpSingleA100PricedAsHostPlusGpu) {
  auto reply = Get("/api/v1/instances?cloud=gcp&region=us-central1&gpu=A100&max_gpu_count=1");
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(Types(reply.body).count("a2-highgpu-1g"));
  for (const auto& item : reply.body["items"]) EXPECT_EQ(item["gpu_count"], 1);
}

TEST_F(CatalogApiTest, FindsAlibabaA10InYuan) {
  auto reply = Get("/api/v1/instances?cloud=alibaba&region=cn-hangzhou&gpu=A10");
  ASSERT_EQ(reply.status, 200);
  bool found = false;
  for (const auto& item : reply.body["items"]) {
    EXPECT_EQ(item["gpu"], "A10");  // A10 does not match A100 or A10G
    if (item["instance_type"] == "ecs.gn7i-c8g1.2xlarge") {
      found = true;
      EXPECT_DOUBLE_EQ(item["price_ondemand_per_hour"].get<double>(), 9.5326);
      EXPECT_EQ(item["currency"], "CNY");
      EXPECT_TRUE(item["price_spot_per_hour"].is_null());
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(CatalogApiTest, ConvertsToTheRequestedCurrency) {
  auto cny = Get("/api/v1/instances?cloud=alibaba&region=cn-hangzhou&gpu=A10&limit=1");
  auto usd = Get("/api/v1/instances?cloud=alibaba&region=cn-hangzhou&gpu=A10&limit=1&currency=USD");
  ASSERT_EQ(usd.status, 200);
  ASSERT_EQ(usd.body["items"].size(), 1u);
  EXPECT_EQ(usd.body["items"][0]["currency"], "USD");
  EXPECT_LT(usd.body["items"][0]["price_ondemand_per_hour"].get<double>(),
            cny.body["items"][0]["price_ondemand_per_hour"].get<double>() / 5);
}

TEST_F(CatalogApiTest, EveryFilterHolds) {
  auto reply = Get(
      "/api/v1/instances?min_gpu_count=2&max_gpu_count=4&min_gpu_memory_gb=24&"
      "max_price_per_hour=20&limit=500");
  ASSERT_EQ(reply.status, 200);
  ASSERT_FALSE(reply.body["items"].empty());
  for (const auto& item : reply.body["items"]) {
    EXPECT_GE(item["gpu_count"].get<int>(), 2);
    EXPECT_LE(item["gpu_count"].get<int>(), 4);
    EXPECT_GE(item["gpu_memory_gb"].get<double>(), 24);
    ASSERT_FALSE(item["price_ondemand_per_hour"].is_null());
    if (item["currency"] == "USD") {
      EXPECT_LE(item["price_ondemand_per_hour"].get<double>(), 20);
    }
  }
  auto spot = Get("/api/v1/instances?price_kind=spot&max_price_per_hour=1&limit=500");
  ASSERT_EQ(spot.status, 200);
  ASSERT_FALSE(spot.body["items"].empty());
  for (const auto& item : spot.body["items"]) {
    EXPECT_LE(item["price_spot_per_hour"].get<double>(), 1.0);
  }
}

TEST_F(CatalogApiTest, SortsInBothOrders) {
  struct Case {
    const char* sort;
    const char* field;
  } cases[] = {{"price", "price_ondemand_per_hour"},
               {"price_per_gpu", "price_per_gpu_hour"},
               {"gpu_count", "gpu_count"},
               {"gpu_memory", "gpu_memory_gb"}};
  for (const Case& c : cases) {
    for (const char* order : {"asc", "desc"}) {
      auto reply = Get(std::string("/api/v1/instances?cloud=aws&limit=500&sort=") + c.sort +
                       "&order=" + order);
      ASSERT_EQ(reply.status, 200) << c.sort;
      const auto& items = reply.body["items"];
      ASSERT_GT(items.size(), 10u);
      for (size_t i = 1; i < items.size(); ++i) {
        if (items[i][c.field].is_null() || items[i - 1][c.field].is_null()) continue;
        double prev = items[i - 1][c.field].get<double>(), cur = items[i][c.field].get<double>();
        if (std::string(order) == "asc") {
          EXPECT_LE(prev, cur + 1e-9) << c.sort << " at " << i;
        } else {
          EXPECT_GE(prev + 1e-9, cur) << c.sort << " at " << i;
        }
      }
    }
  }
}

TEST_F(CatalogApiTest, CursorWalkReturnsEveryRowExactlyOnce) {
  auto all = Get("/api/v1/instances?limit=500&sort=price_per_gpu&price_kind=spot");
  ASSERT_EQ(all.status, 200);
  int total = all.body["total"].get<int>();
  ASSERT_GT(total, 100);
  std::multiset<std::string> seen;
  std::string target = "/api/v1/instances?limit=37&sort=price_per_gpu&price_kind=spot";
  int pages = 0;
  while (true) {
    auto page = Get(target);
    ASSERT_EQ(page.status, 200);
    ASSERT_LE(page.body["items"].size(), 37u);
    for (const auto& item : page.body["items"]) {
      seen.insert(item["cloud"].get<std::string>() + "/" + item["region"].get<std::string>() +
                  "/" + item["instance_type"].get<std::string>());
    }
    ++pages;
    ASSERT_LE(pages, total / 37 + 2);  // a walk that does not end is a failure
    if (page.body["next_cursor"].is_null()) break;
    target = "/api/v1/instances?limit=37&sort=price_per_gpu&price_kind=spot&cursor=" +
             page.body["next_cursor"].get<std::string>();
  }
  EXPECT_EQ(static_cast<int>(seen.size()), total);
  std::set<std::string> unique(seen.begin(), seen.end());
  EXPECT_EQ(unique.size(), seen.size());
}

// format=csv answers the listing's every matching offer (not one page) in the listing's
// order and currency, one row per JSON item with the same values; paging is refused.
TEST_F(CatalogApiTest, ListingAsCsvHoldsEveryMatchingOfferInOrder) {
  const std::string query = "/api/v1/instances?gpu=A10&sort=price_per_gpu&order=desc&currency=EUR";
  auto json = Get(query + "&limit=500");
  ASSERT_EQ(json.status, 200);
  ASSERT_GT(json.body["total"].get<int>(), 1);
  ASSERT_LE(json.body["total"].get<int>(), 500);
  auto csv = server_->Send("GET", query + "&format=csv", "", "", {});  // raw: not JSON
  ASSERT_EQ(csv.status, 200);
  EXPECT_EQ(csv.content_type, "text/csv; charset=utf-8");
  std::vector<std::string> lines;
  for (size_t at = 0, end; (end = csv.raw.find("\r\n", at)) != std::string::npos; at = end + 2) {
    lines.push_back(csv.raw.substr(at, end - at));
  }
  ASSERT_EQ(lines.size(), json.body["items"].size() + 1);
  EXPECT_EQ(lines[0].rfind("cloud,region,instance_type,gpu,gpu_count,", 0), 0u);
  for (size_t i = 0; i < json.body["items"].size(); ++i) {
    const auto& item = json.body["items"][i];
    const std::string start = item["cloud"].get<std::string>() + "," +
                              item["region"].get<std::string>() + "," +
                              item["instance_type"].get<std::string>() + ",";
    EXPECT_EQ(lines[i + 1].rfind(start, 0), 0u) << lines[i + 1];
    EXPECT_NE(lines[i + 1].find(",EUR,"), std::string::npos) << lines[i + 1];
    if (!item["price_per_gpu_hour"].is_null()) {
      std::string price = ",";
      price += item["price_per_gpu_hour"].dump();
      price += ',';
      EXPECT_NE(lines[i + 1].find(price), std::string::npos) << lines[i + 1];
    }
  }
  for (const std::string& paging : {std::string("limit"), std::string("cursor")}) {
    auto refused = Get(query + "&format=csv&" + paging + "=10");
    EXPECT_EQ(refused.status, 422) << paging;
    EXPECT_EQ(refused.body["errors"][0]["parameter"], paging);
  }
}

// The listing's filters for the other columns: part of the instance type (any case), the
// interconnect, and the least vCPUs and host memory; each leaves out exactly the offers that
// do not match it (an unknown vCPU count or memory does not match a minimum).
TEST_F(CatalogApiTest, ListingFiltersByInstanceTypeInterconnectVcpusAndMemory) {
  auto all = Get("/api/v1/instances?cloud=aws&region=us-east-1&limit=500");
  ASSERT_EQ(all.status, 200);
  ASSERT_GT(all.body["total"].get<int>(), 20);
  struct Case {
    std::string query;
    std::function<bool(const nlohmann::json&)> matches;
  } const cases[] = {
      {"instance_type=P4D", [](const nlohmann::json& it) {
         return it["instance_type"].get<std::string>().find("p4d") != std::string::npos;
       }},
      {"interconnect=nvswitch", [](const nlohmann::json& it) { return it["interconnect"] == "nvswitch"; }},
      {"min_vcpus=96", [](const nlohmann::json& it) {
         return !it["vcpus"].is_null() && it["vcpus"].get<double>() >= 96;
       }},
      {"min_memory_gib=500", [](const nlohmann::json& it) {
         return !it["memory_gib"].is_null() && it["memory_gib"].get<double>() >= 500;
       }},
  };
  for (const Case& c : cases) {
    auto some = Get("/api/v1/instances?cloud=aws&region=us-east-1&limit=500&" + c.query);
    ASSERT_EQ(some.status, 200) << c.query;
    std::set<std::string> want, got;
    for (const auto& it : all.body["items"]) {
      if (c.matches(it)) want.insert(it["instance_type"].get<std::string>());
    }
    for (const auto& it : some.body["items"]) got.insert(it["instance_type"].get<std::string>());
    EXPECT_FALSE(want.empty()) << c.query;
    EXPECT_LT(want.size(), all.body["items"].size()) << c.query;
    EXPECT_EQ(got, want) << c.query;
  }
  auto bad = Get("/api/v1/instances?interconnect=infiniband");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(bad.body["errors"][0]["parameter"], "interconnect");
  auto negative = Get("/api/v1/instances?min_vcpus=-1");
  EXPECT_EQ(negative.status, 422);
  EXPECT_EQ(negative.body["errors"][0]["parameter"], "min_vcpus");
}

TEST_F(CatalogApiTest, InstanceDetailListsEveryRegion) {
  auto reply = Get("/api/v1/instances/aws/p4d.24xlarge");
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body["gpu"], "A100-40GB-SXM4");
  EXPECT_EQ(reply.body["gpu_spec"]["memory_gb"], 40.0);
  std::set<std::string> regions;
  for (const auto& r : reply.body["regions"]) regions.insert(r["region"].get<std::string>());
  EXPECT_GE(regions.size(), 2u);
  auto n1 = Get("/api/v1/instances/gcp/n1-standard-8+1xT4");
  ASSERT_EQ(n1.status, 200);
  EXPECT_EQ(n1.body["host_instance_type"], "n1-standard-8");
  EXPECT_EQ(Get("/api/v1/instances/aws/p9.huge").status, 404);
}

TEST_F(CatalogApiTest, UnknownCloudIsAnEmptyList) {
  auto reply = Get("/api/v1/instances?cloud=nowhere");
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(reply.body["items"].empty());
  EXPECT_TRUE(reply.body["next_cursor"].is_null());
}

TEST_F(CatalogApiTest, InvalidParametersAre422NamingTheParameter) {
  struct Case {
    const char* query;
    const char* parameter;
  } cases[] = {
      {"limit=0", "limit"},
      {"limit=501", "limit"},
      {"limit=abc", "limit"},
      {"sort=bogus", "sort"},
      {"order=sideways", "order"},
      {"min_gpu_count=-1", "min_gpu_count"},
      {"max_gpu_count=1.5", "max_gpu_count"},
      {"min_gpu_count=8&max_gpu_count=2", "max_gpu_count"},
      {"min_gpu_memory_gb=-3", "min_gpu_memory_gb"},
      {"max_price_per_hour=cheap", "max_price_per_hour"},
      {"price_kind=reserved", "price_kind"},
      {"currency=dollars", "currency"},
      {"currency=JPY", "currency"},
      {"cursor=zz", "cursor"},
      {"cursor=7b7d", "cursor"},
      {"colour=red", "colour"},
      {"limit=5&limit=6", "limit"},
  };
  for (const Case& c : cases) {
    auto reply = Get(std::string("/api/v1/instances?") + c.query);
    EXPECT_EQ(reply.status, 422) << c.query;
    EXPECT_EQ(reply.content_type, "application/problem+json") << c.query;
    ASSERT_TRUE(reply.body["errors"].is_array()) << c.query;
    bool named = false;
    for (const auto& e : reply.body["errors"]) {
      named = named || e.value("parameter", "") == c.parameter;
      EXPECT_NE(e["detail"].get<std::string>().find(c.parameter), std::string::npos) << c.query;
    }
    EXPECT_TRUE(named) << c.query;
  }
}

TEST_F(CatalogApiTest, CursorFromOtherFiltersIsRejected) {
  auto page = Get("/api/v1/instances?cloud=aws&limit=5");
  ASSERT_FALSE(page.body["next_cursor"].is_null());
  auto reply = Get("/api/v1/instances?cloud=gcp&limit=5&cursor=" +
                   page.body["next_cursor"].get<std::string>());
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.body["errors"][0]["parameter"], "cursor");
}

TEST_F(CatalogApiTest, UnknownPathIs404Problem) {
  auto reply = Get("/api/v1/nothing-here");
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.content_type, "application/problem+json");
  EXPECT_EQ(reply.body["instance"],
            "/api/v1/nothing-here#request-" + reply.body["request_id"].get<std::string>());
}

TEST_F(CatalogApiTest, EveryResponseCarriesARequestId) {
  auto client = server_->Client();
  auto res = client.Get("/healthz", {{"X-Request-Id", "trace-123"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("X-Request-Id"), "trace-123");
  auto generated = client.Get("/healthz");
  ASSERT_TRUE(generated);
  EXPECT_FALSE(generated->get_header_value("X-Request-Id").empty());
}

TEST_F(CatalogApiTest, BodyOverTheServerLimitIs413Problem) {
  // Refused from its headers alone: the client never has to send the body.
  std::string answer = server_->Raw(
      "POST /api/v1/estimates/training HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: " + std::to_string((1 << 20) + 1) + "\r\n\r\n{");
  EXPECT_EQ(testing::RawStatus(answer), 413) << answer;
  EXPECT_NE(answer.find("Content-Type: application/problem+json"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  // Within the limit, the body is read and judged.
  auto client = server_->Client();
  auto res = client.Post("/api/v1/estimates/training", std::string(1000, 'x'), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
}

}  // namespace
}  // namespace gpuplan::api
