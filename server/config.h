// Service configuration: command-line flags, each also settable by a GPUPLAN_*
// environment variable (a flag wins over the variable, which wins over the default).
#pragma once

#include <string>

namespace gpuplan::server {

struct ServeConfig {
  std::string host = "127.0.0.1";        // --host, GPUPLAN_HOST
  int port = 8080;                       // --port, GPUPLAN_PORT; 0 = pick a free port
  std::string db_path = "./var/gpuplan.db";  // --db, GPUPLAN_DB
  std::string static_dir = "./static";   // --static-dir, GPUPLAN_STATIC_DIR
  int threads = 32;                      // --threads, GPUPLAN_THREADS: worker threads (one per
                                         // open connection; also the SQLite pool size)
  bool require_auth_for_reads = false;   // --require-auth-for-reads,
                                         // GPUPLAN_REQUIRE_AUTH_FOR_READS
  size_t max_body_bytes = 20 << 20;      // largest body any endpoint takes (imports); each
                                         // endpoint applies its own, smaller limit
};

}  // namespace gpuplan::server
