// ParseBoundedJson: a body within the limits parses to its value; one past a limit, or not
// JSON, is refused with the reason, the same whether the body is small (parsed once, its depth
// checked on the tree) or large (counted in a first pass).
#include "api/json_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuplan::api {
namespace {

std::string Nested(int levels, const std::string& inside = "1") {
  std::string text;
  for (int i = 0; i < levels; ++i) text += "[";
  text += inside;
  for (int i = 0; i < levels; ++i) text += "]";
  return text;
}

const char kTooDeep[] = "JSON is nested deeper than 64 levels";

TEST(JsonLimitsTest, SmallAndLargeBodiesGetTheSameAnswers) {
  JsonLimits limits;
  limits.max_values = 4096;
  for (bool pad : {false, true}) {
    // Padded past max_values bytes with spaces (not values), a text takes the counting pass;
    // unpadded, every text below is parsed once.
    auto parse = [&](std::string text) {
      if (pad) text += std::string(limits.max_values, ' ');
      return ParseBoundedJson(text, limits);
    };
    auto ok = parse(Nested(64));
    ASSERT_TRUE(ok.value) << ok.error;
    EXPECT_EQ(ok.value->dump(), Nested(64));
    EXPECT_EQ(parse(Nested(65)).error, kTooDeep);
    EXPECT_FALSE(parse(Nested(65)).value);
    EXPECT_EQ(parse(R"({"a":)" + Nested(64) + "}").error, kTooDeep);
    // Too deep before the text stops being JSON: the limit is the reason.
    EXPECT_EQ(parse(Nested(70) + "x").error, kTooDeep);
    EXPECT_EQ(parse("{\"a\": 1,").error, "request body is not valid JSON");
    EXPECT_EQ(parse("").error, "request body is not valid JSON");
    auto scalar = parse("3.5");
    ASSERT_TRUE(scalar.value);
    EXPECT_EQ(scalar.value->get<double>(), 3.5);
  }
}

TEST(JsonLimitsTest, MoreValuesThanAllowedAreRefused) {
  JsonLimits limits;
  limits.max_values = 100;
  std::string many = "[";
  for (int i = 0; i < 200; ++i) many += std::string(i ? "," : "") + "1";
  many += "]";
  EXPECT_EQ(ParseBoundedJson(many, limits).error, "JSON holds more than 100 values");
  std::string fits = "[1,2,3]";
  EXPECT_TRUE(ParseBoundedJson(fits, limits).value);
}

}  // namespace
}  // namespace gpuplan::api
