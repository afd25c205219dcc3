// `gpuplan estimate`: a training estimate from the command line, without a server. GPU
// specs come from the embedded gpus.csv.
#pragma once

#include <iosfwd>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace gpuplan::server {

struct EstimateOptions {
  std::string workload = "resnet-50";
  std::string gpu = "A100-80GB-SXM4";
  int gpus = 1;  // per node
  int nodes = 1;
  std::string interconnect;  // "" = from the GPU (NVLink parts: nvswitch for 8, else pcie)
  double network_gbps = 0;
  double vcpus = 0;
  std::string precision = "auto";
  double samples = 0;
  double epochs = 1;
  double tokens = 0;
  int global_batch = 256;
  int micro_batch = 0;
  std::string optimizer = "adamw";
  std::string checkpointing = "none";
  std::string framework = "eager";
  int zero_stage = -1;
  bool json = false;
};

// Adds the subcommand's options to `app`, bound to `options`.
void AddEstimateOptions(CLI::App& app, EstimateOptions& options);

// Returns the process exit code (2 for invalid input, with the field named on `err`).
int RunEstimate(const EstimateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace gpuplan::server
