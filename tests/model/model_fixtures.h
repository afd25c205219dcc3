// GPU specs for model tests, copied from gpus.csv (vendor dense peaks).
#pragma once

#include "model/gpu_spec.h"
#include "model/hardware.h"
#include "model/inference.h"

namespace gpuplan::model::testing {

inline GpuSpec A100_80() {
  GpuSpec g;
  g.id = "A100-80GB-SXM4";
  g.architecture = "Ampere (GA100)";
  g.memory_gb = 80;
  g.memory_bw_gbps = 2039;
  g.fp32_tflops = 19.5;
  g.tf32_tflops = 156;
  g.fp16_tflops = g.bf16_tflops = 312;
  g.nvlink_bw_gbps = 600;
  g.pcie_gen = 4;
  g.form_factor = "SXM4";
  g.sm_count = 108;
  g.boost_clock_mhz = 1410;
  return g;
}

inline GpuSpec H100() {
  GpuSpec g = A100_80();
  g.id = "H100-80GB-SXM5";
  g.architecture = "Hopper (GH100)";
  g.memory_bw_gbps = 3350;
  g.fp32_tflops = 67;
  g.tf32_tflops = 494.5;
  g.fp16_tflops = g.bf16_tflops = 989.5;
  g.fp8_tflops = 1979;
  g.sm_count = 132;
  g.boost_clock_mhz = 1980;
  g.nvlink_bw_gbps = 900;
  g.pcie_gen = 5;
  return g;
}

// The catalog's B200 (HGX) in the figures the training model reads: FP8 and FP4 rates,
// Blackwell's block-scaled tensor cores (by architecture).
inline GpuSpec B200() {
  GpuSpec g = H100();
  g.id = "B200-180GB-SXM";
  g.architecture = "Blackwell (2 dies)";
  g.memory_gb = 180;
  g.memory_bw_gbps = 7700;
  g.fp16_tflops = g.bf16_tflops = 2250;
  g.fp8_tflops = 4500;
  g.fp4_tflops = 9000;
  g.sm_count = 148;
  return g;
}

inline GpuSpec V100() {
  GpuSpec g;
  g.id = "V100-16GB-SXM2";
  g.architecture = "Volta (GV100)";
  g.memory_gb = 16;
  g.memory_bw_gbps = 900;
  g.fp32_tflops = 15.7;
  g.fp16_tflops = 125;
  g.nvlink_bw_gbps = 300;
  g.pcie_gen = 3;
  g.form_factor = "SXM2";
  return g;
}

inline GpuSpec T4() {
  GpuSpec g;
  g.id = "T4";
  g.architecture = "Turing (TU104)";
  g.memory_gb = 16;
  g.memory_bw_gbps = 320;
  g.fp32_tflops = 8.1;
  g.fp16_tflops = 65;
  g.pcie_gen = 3;
  g.form_factor = "PCIe";
  return g;
}

inline Cluster Node(const GpuSpec& gpu, int gpus, int nodes = 1) {
  Cluster c;
  c.node.gpu = gpu;
  c.node.gpus_per_node = gpus;
  c.node.interconnect = gpus == 1 ? Interconnect::kNone
                        : gpu.nvlink_bw_gbps > 0 ? Interconnect::kNvswitch
                                                 : Interconnect::kPcie;
  c.node.network_gbps = 400;
  c.nodes = nodes;
  return c;
}

// A chat load: 200 prompt and 300 output tokens per request, in fp16 (every GPU above has it).
inline ServingRequest Chat(double rps, double slo_s) {
  ServingRequest r;
  r.precision = Precision::kFp16;
  r.input_tokens = 200;
  r.output_tokens = 300;
  r.target_requests_per_s = rps;
  r.latency_slo_s = slo_s;
  return r;
}

}  // namespace gpuplan::model::testing
