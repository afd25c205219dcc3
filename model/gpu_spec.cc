#include "model/gpu_spec.h"

#include "model/enum_names.h"

#include <array>
#include <cmath>
#include <utility>

namespace gpuplan::model {

namespace {
constexpr EnumNames<Precision, 7> kPrecisions = {{
    {"fp32", Precision::kFp32},
    {"tf32", Precision::kTf32},
    {"fp16", Precision::kFp16},
    {"bf16", Precision::kBf16},
    {"fp8", Precision::kFp8},
    {"int8", Precision::kInt8},
    {"nvfp4", Precision::kNvfp4},
}};
}  // namespace

std::optional<Precision> ParsePrecision(std::string_view text) {
  return ParseEnum(kPrecisions, text);
}

std::string_view PrecisionName(Precision precision) { return EnumName(kPrecisions, precision); }

double PeakTflops(const GpuSpec& gpu, Precision precision) {
  switch (precision) {
    case Precision::kFp32: return gpu.fp32_tflops;
    case Precision::kTf32: return gpu.tf32_tflops;
    case Precision::kFp16: return gpu.fp16_tflops;
    case Precision::kBf16: return gpu.bf16_tflops;
    case Precision::kFp8: return gpu.fp8_tflops;
    case Precision::kInt8: return gpu.int8_tops;
    case Precision::kNvfp4: return gpu.fp4_tflops;
  }
  return 0;
}

bool SupportsMicroscaling(const GpuSpec& gpu) {
  // By architecture name alone (a spec given in a request may leave the vendor empty).
  return std::string_view(gpu.architecture).rfind("Blackwell", 0) == 0;  // and Blackwell Ultra
}

std::optional<double> TensorFlopsPerSmPerClock(const GpuSpec& gpu, double tflops) {
  if (!(tflops > 0) || !(gpu.sm_count > 0) || !(gpu.boost_clock_mhz > 0)) return std::nullopt;
  return std::round(tflops * 1e12 / (gpu.sm_count * gpu.boost_clock_mhz * 1e6));
}

double SixteenBitPeakTflops(const GpuSpec& gpu) {
  return gpu.bf16_tflops > 0 ? gpu.bf16_tflops : gpu.fp16_tflops;
}

Precision AutoPrecision(const GpuSpec& gpu) {
  if (gpu.bf16_tflops > 0) return Precision::kBf16;
  if (gpu.fp16_tflops > 0) return Precision::kFp16;
  if (gpu.tf32_tflops > 0) return Precision::kTf32;
  return Precision::kFp32;
}

std::string AutoPrecisionAssumption(const GpuSpec& gpu) {
  switch (AutoPrecision(gpu)) {
    case Precision::kBf16: return "precision auto: bf16 mixed precision (" + gpu.id + " has BF16)";
    case Precision::kFp16:
      return "precision auto: fp16 mixed precision with loss scaling (" + gpu.id +
             " has no BF16 unit)";
    case Precision::kTf32: return "precision auto: tf32 (" + gpu.id + " has no 16-bit unit)";
    default: return "precision auto: fp32 (" + gpu.id + " has no 16-bit or TF32 unit)";
  }
}

Status ValidateGpuSpec(const GpuSpec& gpu) {
  if (gpu.id.empty()) return Error::Invalid({Part::kGpu, "id"}, "id must not be empty");
  if (!(gpu.memory_gb > 0) || !std::isfinite(gpu.memory_gb)) {
    return Error::Invalid({Part::kGpu, "memory_gb"}, "memory_gb must be a positive number");
  }
  bool any_compute = false;
  for (const GpuRateField& rate : kGpuRateFields) {
    double value = gpu.*rate.field;
    if (!(value >= 0) || !std::isfinite(value)) {
      return Error::Invalid({Part::kGpu, rate.name},
                            std::string(rate.name) + " must be a non-negative number");
    }
  }
  for (Precision p : {Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16,
                      Precision::kFp8, Precision::kInt8, Precision::kNvfp4}) {
    if (PeakTflops(gpu, p) > 0) any_compute = true;
  }
  if (!any_compute) {
    return Error::Invalid({Part::kGpu, "fp32_tflops"},
                          "a GPU needs at least one positive peak compute rate");
  }
  // Every step reads memory: without a bandwidth the model would answer infinite throughput.
  if (!(gpu.memory_bw_gbps > 0) && !(gpu.achievable_bw_gbps > 0)) {
    return Error::Invalid({Part::kGpu, "memory_bw_gbps"}, "memory_bw_gbps must be positive");
  }
  // A benchmark cannot beat the peak it is measured against, nor the base clock the boost.
  if (gpu.achievable_bw_gbps > 0 && gpu.memory_bw_gbps > 0 &&
      gpu.achievable_bw_gbps > gpu.memory_bw_gbps) {
    return Error::Invalid({Part::kGpu, "achievable_bw_gbps"},
                          "achievable_bw_gbps must not exceed the peak memory_bw_gbps");
  }
  if (gpu.base_clock_mhz > 0 && gpu.boost_clock_mhz > 0 &&
      gpu.base_clock_mhz > gpu.boost_clock_mhz) {
    return Error::Invalid({Part::kGpu, "base_clock_mhz"},
                          "base_clock_mhz must not exceed boost_clock_mhz");
  }
  if (gpu.launch_price_usd &&
      (!(*gpu.launch_price_usd > 0) || !std::isfinite(*gpu.launch_price_usd))) {
    return Error::Invalid({Part::kGpu, "launch_price_usd"},
                          "launch_price_usd must be a positive number");
  }
  return OkStatus();
}

}  // namespace gpuplan::model
