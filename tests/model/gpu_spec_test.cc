#include "model/gpu_spec.h"

#include <gtest/gtest.h>

#include "tests/model/model_fixtures.h"

namespace gpuplan::model {
namespace {

GpuSpec A100() { return testing::A100_80(); }

TEST(PrecisionTest, ParsesEveryNameAndRoundTrips) {
  for (const char* name : {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "nvfp4"}) {
    auto p = ParsePrecision(name);
    ASSERT_TRUE(p.has_value()) << name;
    EXPECT_EQ(PrecisionName(*p), name);
  }
}

TEST(PrecisionTest, RejectsUnknownNames) {
  EXPECT_FALSE(ParsePrecision("FP16").has_value());
  EXPECT_FALSE(ParsePrecision("fp4").has_value());
  EXPECT_FALSE(ParsePrecision("").has_value());
}

TEST(PeakTflopsTest, ReturnsTheRateOfEachPrecision) {
  GpuSpec g = A100();
  EXPECT_DOUBLE_EQ(PeakTflops(g, Precision::kFp32), 19.5);
  EXPECT_DOUBLE_EQ(PeakTflops(g, Precision::kTf32), 156);
  EXPECT_DOUBLE_EQ(PeakTflops(g, Precision::kBf16), 312);
  EXPECT_DOUBLE_EQ(PeakTflops(g, Precision::kFp8), 0);  // A100 has no FP8 unit
}

TEST(ValidateGpuSpecTest, AcceptsAValidSpec) { EXPECT_TRUE(ValidateGpuSpec(A100()).ok()); }

TEST(ValidateGpuSpecTest, NamesTheFieldAtFault) {
  struct Case {
    void (*mutate)(GpuSpec&);
    const char* field;
  } cases[] = {
      {[](GpuSpec& g) { g.id.clear(); }, "id"},
      {[](GpuSpec& g) { g.memory_gb = 0; }, "memory_gb"},
      {[](GpuSpec& g) { g.memory_bw_gbps = -1; }, "memory_bw_gbps"},
      {[](GpuSpec& g) { g.tdp_w = -5; }, "tdp_w"},
      // A streaming benchmark cannot beat the peak, nor the base clock the boost.
      {[](GpuSpec& g) { g.achievable_bw_gbps = g.memory_bw_gbps + 1; }, "achievable_bw_gbps"},
      {[](GpuSpec& g) {
         g.boost_clock_mhz = 1410;
         g.base_clock_mhz = 1500;
       },
       "base_clock_mhz"},
      {[](GpuSpec& g) { g.fp16_vector_tflops = -1; }, "fp16_vector_tflops"},
      {[](GpuSpec& g) {
         g.fp32_tflops = g.tf32_tflops = g.fp16_tflops = g.bf16_tflops = 0;
       },
       "fp32_tflops"},
  };
  for (const Case& c : cases) {
    GpuSpec g = A100();
    c.mutate(g);
    Status s = ValidateGpuSpec(g);
    ASSERT_FALSE(s.ok()) << c.field;
    EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
    ASSERT_EQ(s.error().fields.size(), 1u);
    EXPECT_EQ(s.error().fields[0].id, FieldId(Part::kGpu, c.field));
  }
}

}  // namespace
}  // namespace gpuplan::model
