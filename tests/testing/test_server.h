// Starts the real gpuplan App on 127.0.0.1 with an ephemeral port and a fresh database (a
// SQLite file in a temporary directory, or a PostgreSQL database when the run tests that
// backend: tests/testing/test_database.h), serving from a background thread; stops it on
// destruction. Tests talk to it over real HTTP with Client().
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "server/app.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_database.h"

namespace gpuplan::testing {

class TestServer {
 public:
  explicit TestServer(bool require_auth_for_reads = false);
  // A server with these connection limits (the rest as above).
  explicit TestServer(const server::ConnectionLimits& limits, bool require_auth_for_reads = false);
  // A server whose configuration `configure` adjusts (port, database and static files are
  // the test's; the rest as above unless changed). Pass a std::function: a lambda without
  // captures would also convert to the bool above.
  explicit TestServer(const std::function<void(server::ServeConfig&)>& configure);
  ~TestServer();

  int port() const { return port_; }
  // What the server's --db is: a SQLite file's path or a PostgreSQL URL.
  const std::string& db_path() const { return db_.url(); }
  // A path for a file of the test's own (a CSV to import...), in the server's directory.
  std::string ScratchFile(const std::string& name) const { return dir_.File(name); }
  httplib::Client Client() const;

  // GET `target` and parse the JSON body; fails the test (gtest ASSERT) on a non-JSON body.
  struct Reply {
    int status = 0;
    std::string content_type;
    nlohmann::json body;
    std::string location;
    std::string raw;  // the body when it is not JSON (CSV exports)
  };
  Reply Get(const std::string& target) const;
  // A request with any method, body and headers, answered as JSON (empty bodies allowed).
  Reply Send(const std::string& method, const std::string& target, const std::string& body,
             const std::string& content_type, const httplib::Headers& headers) const;
  // POST `body` (serialised) as application/json.
  Reply Post(const std::string& target, const nlohmann::json& body) const;
  Reply PostRaw(const std::string& target, const std::string& body,
                const std::string& content_type) const;

  // Sends `bytes` as they are on a new TCP connection (from `from_ip`, a loopback
  // address, when given) and returns everything the server sends back until it closes
  // the connection, a whole answer with Content-Length has arrived, or `timeout` passes. For requests no HTTP client would send.
  std::string Raw(const std::string& bytes,
                  std::chrono::milliseconds timeout = std::chrono::seconds(5),
                  const std::string& from_ip = "") const;

 private:
  TempDir dir_;
  TestDatabase db_;
  std::unique_ptr<server::App> app_;
  std::thread thread_;
  int port_ = 0;
};

// A new API key with `scope` (write | admin) in `server`'s database, the key itself.
std::string CreateApiKey(const TestServer& server, const std::string& name, const std::string& scope);

// Adds to `server`'s catalog instance type `instance_type` of cloud "testcloud" (`gpu_count`
// x `gpu`) in region "r1", priced `ondemand` per hour on demand and twice that on spot: an
// offer whose spot is above its own on-demand (spot_above_ondemand), cheap enough to rank.
// Returns false (after a gtest failure naming the write) when a write is refused.
bool AddOfferWithSpotAboveOnDemand(const TestServer& server, const std::string& instance_type,
                                   const std::string& gpu, int gpu_count, double ondemand);

// The status code of a raw HTTP answer ("HTTP/1.1 413 ..."), 0 when there is none.
int RawStatus(const std::string& answer);

// A connected TCP socket to 127.0.0.1:`port` from `from_ip` ("" = any), or -1.
int ConnectTo(int port, const std::string& from_ip = "");

}  // namespace gpuplan::testing
