// Memory stays bounded under the bodies that used to blow it up: a gzip bomb (1 MB that
// inflates to 1 GiB), a 200 MB chunked body, an 8 MiB batch of empty scenarios, a body of
// millions of tiny JSON values, and four exports of a large catalog at once. The bound is
// the server's peak resident memory (VmHWM of the real process), documented in
// docs/operations.md.
#include <gtest/gtest.h>
#include <httplib.h>
#include <zlib.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "db/api_keys.h"
#include "db/database.h"
#include "server/app.h"
#include "tests/testing/server_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_database.h"
#include "tests/testing/test_server.h"

namespace gpuplan {
namespace {

using testing::ServerProcess;
using testing::TempDir;

// Peak RSS may grow by at most this much over the warmed-up server (MiB).
constexpr long kPeakGrowthBoundMib = 96;

// `inflated` zero bytes, gzip-compressed.
std::string GzipBomb(size_t inflated) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY);
  std::string zeros(1 << 20, '\0'), out;
  char buffer[1 << 16];
  for (size_t done = 0; done < inflated; done += zeros.size()) {
    z.next_in = reinterpret_cast<Bytef*>(zeros.data());
    z.avail_in = static_cast<uInt>(zeros.size());
    int flush = done + zeros.size() >= inflated ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof(buffer);
      deflate(&z, flush);
      out.append(buffer, sizeof(buffer) - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

// Sends `head` then up to `body_bytes` of body in pieces, stopping when the server stops
// reading; returns the answer's status.
int SendStreaming(int port, const std::string& head, size_t body_bytes, bool chunked) {
  int fd = testing::ConnectTo(port);
  if (fd < 0) return 0;
  (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  std::string piece(1 << 16, 'a');
  std::string chunk = chunked ? "10000\r\n" + piece + "\r\n" : piece;
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  for (size_t sent = 0; sent < body_bytes; sent += piece.size()) {
    if (::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) <= 0) break;
  }
  std::string answer;
  char buffer[4096];
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ssize_t n;
  while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) {
    answer.append(buffer, static_cast<size_t>(n));
    if (answer.find("\r\n\r\n") != std::string::npos) break;
  }
  ::close(fd);
  return testing::RawStatus(answer);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

TEST(MemoryTest, HostileBodiesAndParallelExportsStayUnderTheBound) {
  // ASan's shadow memory and quarantine make RSS meaningless; the Release suite checks it.
  if (kSanitized) GTEST_SKIP() << "memory bounds are measured in the Release build";
  TempDir dir;
  testing::TestDatabase database(dir);  // the backend the run tests
  const std::string db_path = database.url();
  ASSERT_TRUE(server::PrepareDatabase(db_path).ok());
  std::string key;
  {
    auto db = db::OpenDatabase(db_path);
    key = db::ApiKeyStore(**db).Create("memory", "write")->key;
  }
  ServerProcess server(db_path, dir.File("log"));
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(60, 0);
  httplib::Headers auth = {{"Authorization", "Bearer " + key}};

  // A large catalog within the caps (db/catalog_caps.h): 4 000 instance types with
  // on-demand and spot prices in 5 regions (40 000 current prices), observed on 3 dates
  // (120 000 price rows), and a warm-up.
  for (int day = 1; day <= 3; ++day) {
    std::string csv =
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
        "Region,AvailabilityZone\n";
    for (int i = 0; i < 4000; ++i) {
      for (int r = 0; r < 5; ++r) {
        csv += "mem" + std::to_string(i) + ".x,A100,8,96,1152,," + std::to_string(20 + i % 97) +
               ",9.5,r" + std::to_string(r) + ",\n";
      }
    }
    auto imported = client.Post("/api/v1/catalog/import?format=skypilot&cloud=memtest&"
                                "observed_at=2026-01-0" + std::to_string(day) + "T00:00:00Z",
                                auth, csv, "text/csv");
    ASSERT_TRUE(imported);
    ASSERT_EQ(imported->status, 201) << imported->body.substr(0, 500);
  }
  auto first = client.Get("/api/v1/catalog/export?format=json");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200);
  size_t export_bytes = first->body.size();
  first->body.clear();
  long import_peak_mib = server.StatusKib("VmHWM") / 1024;
  ASSERT_TRUE(server.ResetPeak());
  long base_mib = server.StatusKib("VmHWM") / 1024;

  std::string host = "Host: 127.0.0.1\r\n";
  // 1. The gzip bomb: 1 MiB that inflates to 1 GiB.
  std::string bomb = GzipBomb(size_t{1} << 30);
  auto gz = client.Post("/api/v1/estimates/training", {{"Content-Encoding", "gzip"}}, bomb,
                        "application/json");
  ASSERT_TRUE(gz);
  EXPECT_EQ(gz->status, 415);
  // 2. 200 MB chunked, and 200 MB without a length.
  EXPECT_EQ(SendStreaming(server.port(),
                          "POST /api/v1/estimates/training HTTP/1.1\r\n" + host +
                              "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n",
                          200u << 20, true),
            411);
  int lengthless = SendStreaming(server.port(),
                                 "POST /api/v1/catalog/import?format=skypilot&cloud=x HTTP/1.1\r\n" +
                                     host + "Authorization: Bearer " + key + "\r\n\r\n",
                                 200u << 20, false);
  EXPECT_GE(lengthless, 400);
  EXPECT_LT(lengthless, 500);
  // 3. An 8 MiB batch of empty scenarios, and 1 MiB of tiny values.
  std::string batch = "{\"scenarios\":[";
  while (batch.size() < (8u << 20) - 16) batch += "{},";
  batch += "{}]}";
  auto b = client.Post("/api/v1/estimates/training:batch", batch, "application/json");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->status, 400);
  std::string tiny = "{\"a\":[";
  while (tiny.size() < (1u << 20) - 16) tiny += "0,";
  tiny += "0]}";
  auto t = client.Post("/api/v1/estimates/training", tiny, "application/json");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->status, 400);
  // 4. Four exports at once.
  std::vector<std::thread> exports;
  std::vector<size_t> sizes(4);
  for (int i = 0; i < 4; ++i) {
    exports.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", server.port());
      c.set_read_timeout(60, 0);
      size_t n = 0;
      auto res = c.Get("/api/v1/catalog/export?format=json",
                       [&](const char*, size_t len) { n += len; return true; });
      sizes[i] = res && res->status == 200 ? n : 0;
    });
  }
  for (auto& e : exports) e.join();
  for (size_t s : sizes) EXPECT_EQ(s, export_bytes);

  long peak_mib = server.StatusKib("VmHWM") / 1024;
  std::printf("peak RSS %ld MiB after three 20k-row imports; export %.1f MB; RSS %ld MiB before and "
              "peak %ld MiB during the hostile bodies and 4 parallel exports (bound: +%ld MiB)\n",
              import_peak_mib, export_bytes / 1e6, base_mib, peak_mib, kPeakGrowthBoundMib);
  EXPECT_LE(peak_mib - base_mib, kPeakGrowthBoundMib);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

}  // namespace
}  // namespace gpuplan
