// Service configuration: command-line flags, each also settable by a GPUPLAN_*
// environment variable (a flag wins over the variable, which wins over the default).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "db/cached_catalog.h"   // kDefaultCatalogRecheck
#include "plan/price_quality.h"  // kDefaultStalePriceDays

namespace gpuplan::server {

// Connection handling (see server/guarded_server.h and docs/operations.md).
struct ConnectionLimits {
  int max_connections = 256;            // --max-connections: open at once, all clients
  int max_connections_per_client = 64;  // --max-connections-per-client: per remote address
  int max_requests_per_connection = 100;
  std::chrono::milliseconds idle_timeout{5000};     // keep-alive wait for the next request
  std::chrono::milliseconds header_timeout{10000};  // first byte to the end of the headers
  std::chrono::milliseconds body_timeout{60000};    // the whole body
  std::chrono::milliseconds io_timeout{10000};      // one read or write with no progress
  size_t max_header_bytes = 64 * 1024;              // request line and headers together
  int listen_backlog = 1024;
};

struct ServeConfig {
  std::string host = "127.0.0.1";        // --host, GPUPLAN_HOST
  int port = 8080;                       // --port, GPUPLAN_PORT; 0 = pick a free port
  std::string db_path = "./var/gpuplan.db";  // --db, GPUPLAN_DB
  std::string static_dir = "./static";   // --static-dir, GPUPLAN_STATIC_DIR
  int db_connections = 16;               // --db-connections, GPUPLAN_DB_CONNECTIONS: the pool
                                         // pool size (requests wait up to 5 s for one)
  ConnectionLimits limits;               // one worker thread per open connection
  bool require_auth_for_reads = false;   // --require-auth-for-reads,
                                         // GPUPLAN_REQUIRE_AUTH_FOR_READS
  std::chrono::milliseconds request_deadline{10000};  // work one request may do (planning)
  std::vector<std::string> cors_origins;  // --cors-origin, GPUPLAN_CORS_ORIGIN: browser
                                          // origins that may call the API ("*": any)
  std::string log_format = "text";        // --log-format, GPUPLAN_LOG_FORMAT: text | json
  // --catalog-recheck-ms, GPUPLAN_CATALOG_RECHECK_MS: how long the catalog's generation,
  // once read, is trusted against writes by other processes (writes through this server
  // are seen at once; 0: every request reads it; db/cached_catalog.h).
  int catalog_recheck_ms = static_cast<int>(db::kDefaultCatalogRecheck.count());
  int stale_price_days = plan::kDefaultStalePriceDays;  // --stale-price-days,
                                          // GPUPLAN_STALE_PRICE_DAYS: prices observed longer
                                          // ago are flagged stale (plan/price_quality.h)
};

}  // namespace gpuplan::server
