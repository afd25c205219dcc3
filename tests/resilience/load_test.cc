// Load the server the way the issue's attacker did: readers and writers at once (no 5xx),
// 64 slow or idle connections (a fresh client is still served within a second), and one
// client opening more connections than its share (refused with 503, others unaffected).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "db/api_keys.h"
#include "db/database.h"
#include "tests/testing/env.h"
#include "tests/testing/status_counts.h"
#include "tests/testing/test_server.h"

namespace gpuplan {
namespace {

using nlohmann::json;
using testing::TestServer;
using Clock = std::chrono::steady_clock;

std::string Key(const TestServer& server) {
  auto db = db::OpenDatabase(server.db_path());
  EXPECT_TRUE(db.ok());
  return db::ApiKeyStore(**db).Create("load", "admin")->key;
}

std::string SmallCatalog(int round) {
  std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
      "Region,AvailabilityZone\n";
  for (int i = 0; i < 300; ++i) {
    csv += "load" + std::to_string(i) + ".x,A100,8,96,1152,," +
           std::to_string(20 + round % 50 + i * 0.01) + ",9.5,r1,\n";
  }
  return csv;
}

TEST(LoadTest, ReadersAndWritersTogetherNeverSeeAServerError) {
  TestServer server;
  std::string key = Key(server);
  httplib::Headers auth = {{"Authorization", "Bearer " + key}};
  const auto until = Clock::now() + std::chrono::seconds(testing::EnvSeconds("GPUPLAN_LOAD_SECONDS", 30));
  std::mutex mutex;
  testing::StatusCounts statuses;
  auto record = [&](const std::string& kind, int status) {
    std::lock_guard<std::mutex> lock(mutex);
    ++statuses[kind][status];
  };
  std::vector<std::thread> threads;
  // 4 readers: listings, an estimate, a recommendation, the export.
  for (int r = 0; r < 4; ++r) {
    threads.emplace_back([&, r] {
      auto client = server.Client();
      int i = 0;
      while (Clock::now() < until) {
        auto send = [&](int which) {
          switch (which) {
            case 0: return client.Get("/api/v1/instances?limit=100");
            case 1: return client.Get("/api/v1/catalog/export?format=csv");
            case 2:
              return client.Post("/api/v1/estimates/training",
                                 R"({"workload":"llama-2-7b","dataset":{"tokens":1e10},"global_batch_size":512,)"
                                 R"("hardware":{"gpu":"H100-80GB-SXM5","gpus_per_node":8}})",
                                 "application/json");
            default:
              return client.Post("/api/v1/recommendations",
                                 R"({"workload":"llama-2-7b","dataset":{"tokens":1e10},"global_batch_size":512,)"
                                 R"("constraints":{"clouds":["aws"]}})",
                                 "application/json");
          }
        };
        auto res = send((r + i++) % 4);
        record("read", res ? res->status : 0);
      }
    });
  }
  // 4 writers: prices (the request that failed 28 of 28 times), imports, GPU upserts.
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      auto client = server.Client();
      int i = 0;
      while (Clock::now() < until) {
        ++i;
        if (w < 2) {
          json prices = {{"prices",
                          {{{"cloud", "aws"}, {"instance_type", "p4d.24xlarge"},
                            {"region", "us-east-1"}, {"kind", "ondemand"},
                            {"price_per_hour", 30 + i * 0.001}, {"currency", "USD"}}}}};
          auto res = client.Post("/api/v1/prices", auth, prices.dump(), "application/json");
          record("POST /prices", res ? res->status : 0);
        } else if (w == 2) {
          auto res = client.Post("/api/v1/catalog/import?format=skypilot&cloud=load", auth,
                                 SmallCatalog(i), "text/csv");
          record("import", res ? res->status : 0);
        } else {
          json gpu = {{"id", "LOAD-GPU"}, {"name", "x"}, {"vendor", "NVIDIA"},
                      {"memory_gb", 80 + i % 10}, {"memory_bw_gbps", 3000},
                      {"bf16_tflops", 900}, {"fp16_tflops", 900}, {"fp32_tflops", 60},
                      {"form_factor", "SXM"}, {"source", "load test"}};
          auto res = client.Put("/api/v1/gpus/LOAD-GPU", auth, gpu.dump(), "application/json");
          record("PUT /gpus", res ? res->status : 0);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  testing::ExpectOnlySuccess(statuses);
  EXPECT_GT(statuses["POST /prices"][201], 10);
  EXPECT_GT(statuses["import"][201], 3);
}

// Opens a connection from `ip` and sends `first` (may be empty: an idle connection).
int OpenSlow(int port, const std::string& ip, const std::string& first) {
  int fd = testing::ConnectTo(port, ip);
  if (fd >= 0 && !first.empty()) (void)::send(fd, first.data(), first.size(), MSG_NOSIGNAL);
  return fd;
}

TEST(LoadTest, SixtyFourSlowClientsDoNotDelayAFreshOne) {
  TestServer server;
  std::vector<int> slow;
  // 32 idle sockets and 32 that trickle a request header a byte at a time.
  for (int i = 0; i < 64; ++i) {
    int fd = OpenSlow(server.port(), "127.0.0.2", i % 2 ? "GET /healthz HTTP/1.1\r\nX-Slow: " : "");
    ASSERT_GE(fd, 0) << "connection " << i;
    slow.push_back(fd);
  }
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    while (!stop) {
      for (size_t i = 1; i < slow.size(); i += 2) (void)::send(slow[i], "a", 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  double worst_ms = 0;
  for (int i = 0; i < 20; ++i) {
    auto started = Clock::now();
    auto client = server.Client();
    client.set_connection_timeout(2, 0);
    client.set_read_timeout(2, 0);
    auto res = client.Get("/healthz");
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    worst_ms = std::max(worst_ms, ms);
    ASSERT_TRUE(res) << "fresh client got no answer with 64 slow connections open";
    EXPECT_EQ(res->status, 200);
    EXPECT_LT(ms, 1000) << "request " << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::printf("64 slow connections open: worst /healthz from a fresh client %.1f ms\n", worst_ms);
  stop = true;
  trickle.join();
  for (int fd : slow) ::close(fd);
}

TEST(LoadTest, OneClientBeyondItsConnectionShareIsRefusedOthersAreNot) {
  server::ConnectionLimits limits;
  limits.max_connections_per_client = 8;
  TestServer server(limits);
  std::vector<int> held;
  for (int i = 0; i < 8; ++i) {
    int fd = OpenSlow(server.port(), "127.0.0.3", "");
    ASSERT_GE(fd, 0);
    held.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::string answer = server.Raw("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                                  std::chrono::seconds(3), "127.0.0.3");
  EXPECT_EQ(testing::RawStatus(answer), 503) << answer;
  EXPECT_NE(answer.find("Retry-After"), std::string::npos) << answer;
  // Another client is served as usual.
  std::string other = server.Raw("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                                 std::chrono::seconds(3), "127.0.0.4");
  EXPECT_EQ(testing::RawStatus(other), 200) << other;
  for (int fd : held) ::close(fd);
  // Once the connections close, the client is admitted again.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string again = server.Raw("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                                 std::chrono::seconds(3), "127.0.0.3");
  EXPECT_EQ(testing::RawStatus(again), 200) << again;
}

}  // namespace
}  // namespace gpuplan
