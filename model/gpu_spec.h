// The specification of one GPU model, as the performance model needs it. Values are
// vendor peak figures, dense (no 2:4 sparsity). A rate the GPU has no unit for is 0.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "model/result.h"

namespace gpuplan::model {

// kNvfp4: NVIDIA's 4-bit float training recipe (E2M1 values with an E4M3 scale per 16 and a
// per-tensor FP32 scale; Transformer Engine's NVFP4BlockScaling), on GPUs with an FP4 tensor
// rate (fp4_tflops: Blackwell). A training precision only.
enum class Precision { kFp32, kTf32, kFp16, kBf16, kFp8, kInt8, kNvfp4 };

// Parses "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "nvfp4" (lower case). nullopt otherwise.
std::optional<Precision> ParsePrecision(std::string_view text);
std::string_view PrecisionName(Precision precision);

struct GpuSpec {
  std::string id;             // stable identifier, e.g. "A100-80GB-SXM4"
  std::string name;           // human name
  std::string vendor;         // NVIDIA, AMD, Google
  std::string architecture;   // e.g. "Ampere (GA100)"
  int release_year = 0;       // 0 when unknown
  double memory_gb = 0;       // on-board memory per GPU
  std::string memory_type;    // HBM3, GDDR6, ...
  double memory_bw_gbps = 0;  // peak memory bandwidth, GB/s
  // DRAM bandwidth a published streaming benchmark reached (BabelStream, STREAM, ...), GB/s;
  // 0 = none published, the model then takes ModelConstants::eta_bw of the peak.
  double achievable_bw_gbps = 0;
  double fp64_tflops = 0;     // non-tensor FP64
  double fp32_tflops = 0;     // non-tensor FP32
  double tf32_tflops = 0;     // tensor TF32, dense
  double fp16_tflops = 0;     // tensor FP16 with FP32 accumulate, dense
  double fp16_acc16_tflops = 0;   // tensor FP16 with FP16 accumulate, dense (GeForce: 2x)
  double fp16_vector_tflops = 0;  // non-tensor (CUDA core / vector) FP16
  double bf16_tflops = 0;     // tensor BF16, dense
  double fp8_tflops = 0;      // tensor FP8, dense
  double int8_tops = 0;       // tensor INT8, dense
  double fp4_tflops = 0;      // tensor FP4 (NVFP4), dense as NVIDIA prints it (not sparse / 2)
  double nvlink_bw_gbps = 0;  // bidirectional GPU-to-GPU bandwidth per GPU; 0 = none
  int pcie_gen = 0;           // 0 when unknown
  double tdp_w = 0;
  // Microarchitecture (0 = unknown): what the step model's saturation and floors use.
  double sm_count = 0;         // streaming multiprocessors (AMD: compute units), whole board
  double boost_clock_mhz = 0;  // the clock the peak rates are quoted at
  double base_clock_mhz = 0;   // the vendor's base clock: what it sustains at full power
  double l2_cache_mb = 0;
  std::string form_factor;
  std::string source;  // where the figures come from
  // Launch list price in USD; nullopt when none is published (data-center GPUs). Catalog
  // metadata; the model does not read it (plan/ownership.h does).
  std::optional<double> launch_price_usd;
};

// The non-negative rates of a GpuSpec by their field names in gpus.csv and the API (memory_gb
// is not among them: it must be positive). One list for every reader and writer.
struct GpuRateField {
  const char* name;
  double GpuSpec::*field;
};
inline constexpr std::array<GpuRateField, 18> kGpuRateFields = {{
    {"memory_bw_gbps", &GpuSpec::memory_bw_gbps},
    {"achievable_bw_gbps", &GpuSpec::achievable_bw_gbps},
    {"fp64_tflops", &GpuSpec::fp64_tflops},
    {"fp32_tflops", &GpuSpec::fp32_tflops},
    {"tf32_tflops", &GpuSpec::tf32_tflops},
    {"fp16_tflops", &GpuSpec::fp16_tflops},
    {"fp16_acc16_tflops", &GpuSpec::fp16_acc16_tflops},
    {"fp16_vector_tflops", &GpuSpec::fp16_vector_tflops},
    {"bf16_tflops", &GpuSpec::bf16_tflops},
    {"fp8_tflops", &GpuSpec::fp8_tflops},
    {"int8_tops", &GpuSpec::int8_tops},
    {"fp4_tflops", &GpuSpec::fp4_tflops},
    {"nvlink_bw_gbps", &GpuSpec::nvlink_bw_gbps},
    {"tdp_w", &GpuSpec::tdp_w},
    {"sm_count", &GpuSpec::sm_count},
    {"boost_clock_mhz", &GpuSpec::boost_clock_mhz},
    {"base_clock_mhz", &GpuSpec::base_clock_mhz},
    {"l2_cache_mb", &GpuSpec::l2_cache_mb},
}};

// What "precision: auto" runs on `gpu`: bf16 where it has a BF16 unit, else fp16 mixed
// precision where it has an FP16 rate, else tf32, else fp32.
Precision AutoPrecision(const GpuSpec& gpu);
// The assumption line that names the choice, e.g. "precision auto: fp16 mixed precision
// (T4 has no BF16 unit)".
std::string AutoPrecisionAssumption(const GpuSpec& gpu);

// Peak dense rate of `gpu` at `precision` in TFLOPS (TOPS for int8); 0 if it has none.
double PeakTflops(const GpuSpec& gpu, Precision precision);
// Whether the GPU's tensor cores take OCP microscaling (MX) block scales in the GEMM itself
// (MXFP8, MXFP4, NVFP4): NVIDIA Blackwell and Blackwell Ultra (5th-generation tensor cores;
// Transformer Engine's MXFP8 recipe is documented for compute capability 10.0/10.3, the
// catalog's B200, B300, GB200, GB300), by the architecture the catalog names. Others run FP8
// scaled per tensor.
bool SupportsMicroscaling(const GpuSpec& gpu);
// The dense 16-bit tensor rate the parts of a mixed-precision step that stay in 16-bit run
// at (attention, an FP8 recipe's output head): BF16, else FP16; TFLOPS.
double SixteenBitPeakTflops(const GpuSpec& gpu);

// Dense tensor operations one SM retires per clock at a peak of `tflops`: the peak divided
// by SMs x boost clock, rounded to a whole number; nullopt where a factor is unknown (no
// peak, no SM count, no clock). Where a vendor quotes tensor peaks at a lower clock than the
// boost (Hopper: 1830 MHz), this reads low by that ratio.
std::optional<double> TensorFlopsPerSmPerClock(const GpuSpec& gpu, double tflops);

// Checks the invariants every stored GPU must satisfy (id non-empty, memory > 0, rates
// >= 0, at least one positive compute rate, a launch price > 0 when set). Errors name the
// offending field.
Status ValidateGpuSpec(const GpuSpec& gpu);

}  // namespace gpuplan::model
