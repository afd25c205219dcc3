// The catalog listing commands: `gpuplan gpus`, `gpuplan instances`, `gpuplan workloads`
// print what GET /api/v1/gpus, /instances and /workloads answer, as tables (or, with --json,
// one JSON object per line), from the --db file or the embedded seed. Single-threaded;
// errors go to `err` with exit status 2 (bad option) or 1 (catalog failure).
#pragma once

#include <ostream>
#include <string>

namespace CLI {
class App;
}

namespace gpuplan::server {

struct CatalogListOptions {
  std::string db;  // "" = the embedded seed, in memory
  bool json = false;
  // instances only: filters as GET /api/v1/instances takes them ("" / 0 = none)
  std::string cloud, region, gpu;
  int min_gpu_count = 0;
};

void AddCatalogListOptions(CLI::App& app, CatalogListOptions& options, bool instances);

int RunListGpus(const CatalogListOptions& options, std::ostream& out, std::ostream& err);
int RunListInstances(const CatalogListOptions& options, std::ostream& out, std::ostream& err);
int RunListWorkloads(const CatalogListOptions& options, std::ostream& out, std::ostream& err);

}  // namespace gpuplan::server
