// JsonWriter: the encoder of planning answers always produces JSON that parses, whatever
// the strings and numbers it is given.
#include "api/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace gpuplan::api {
namespace {

using nlohmann::json;

TEST(JsonWriterTest, WritesNestedValuesInTheOrderGiven) {
  JsonWriter w;
  w.BeginObject();
  w.Field("b", 1);
  w.Field("a", 2.5);
  w.Object("nested", [&] {
    w.Field("flag", true);
    w.Field("none", nullptr);
    w.Field("list", std::vector<std::string>{"x", "y"});
    w.Field("maybe", std::optional<double>());
    w.Field("count", size_t{7});
  });
  w.Key("raw");
  w.Raw(R"({"k":[1,2]})");
  w.Field("tree", json{{"z", 1}});
  w.EndObject();
  std::string text = w.Take();
  // Keys keep the order written; the text is compact.
  EXPECT_EQ(text,
            R"({"b":1,"a":2.5,"nested":{"flag":true,"none":null,"list":["x","y"],"maybe":null,)"
            R"("count":7},"raw":{"k":[1,2]},"tree":{"z":1}})");
  json back = json::parse(text);
  EXPECT_EQ(back["b"], 1);
  EXPECT_EQ(back["a"], 2.5);
  EXPECT_EQ(back["nested"]["flag"], true);
  EXPECT_TRUE(back["nested"]["none"].is_null());
  EXPECT_EQ(back["nested"]["list"], json({"x", "y"}));
  EXPECT_TRUE(back["nested"]["maybe"].is_null());
  EXPECT_EQ(back["nested"]["count"], 7);
  EXPECT_EQ(back["raw"]["k"][1], 2);
  EXPECT_EQ(back["tree"]["z"], 1);
  EXPECT_TRUE(w.Take().empty());  // Take empties the writer
}

TEST(JsonWriterTest, NonFiniteNumbersAreNull) {
  JsonWriter w;
  w.BeginArray();
  w.Number(std::numeric_limits<double>::quiet_NaN());
  w.Number(std::numeric_limits<double>::infinity());
  w.Number(-std::numeric_limits<double>::infinity());
  w.Number(0.1);
  w.EndArray();
  json back = json::parse(w.Take());
  EXPECT_EQ(back, json::parse("[null,null,null,0.1]"));
}

TEST(JsonWriterTest, NumbersRoundTripExactly) {
  JsonWriter w;
  w.BeginArray();
  const double values[] = {3.0, 0.004354, 7.210817814527999e18, 1e-300, 123456789.125, -2.5e21};
  for (double v : values) w.Number(v);
  w.EndArray();
  json back = json::parse(w.Take());
  for (size_t i = 0; i < std::size(values); ++i) EXPECT_EQ(back[i].get<double>(), values[i]);
}

TEST(JsonWriterTest, StringsAreEscapedAndInvalidUtf8IsReplaced) {
  JsonWriter w;
  w.BeginObject();
  w.Field("quote", std::string("a\"b\\c\n\x01"));
  w.Field("utf8", std::string("S\xc3\xa3o Paulo"));
  w.Field("bad", std::string("ab\xff\xfe" "c"));
  w.Field("overlong", std::string("\xc0\xaf"));          // '/' in two bytes
  w.Field("surrogate", std::string("\xed\xa0\x80"));     // U+D800
  w.Field("too_high", std::string("\xf4\x90\x80\x80"));  // above U+10FFFF
  w.Field(std::string("k\xc3\xa9y"), 1);
  w.EndObject();
  std::string text = w.Take();
  json back = json::parse(text);  // throws on invalid UTF-8
  EXPECT_EQ(back["quote"], "a\"b\\c\n\x01");
  EXPECT_EQ(back["utf8"], "S\xc3\xa3o Paulo");
  EXPECT_EQ(back["bad"], "ab\xef\xbf\xbd\xef\xbf\xbd" "c");  // U+FFFD per bad byte
  EXPECT_EQ(back["k\xc3\xa9y"], 1);
  for (const char* key : {"overlong", "surrogate", "too_high"}) {
    const std::string v = back[key].get<std::string>();
    EXPECT_NE(v.find("\xef\xbf\xbd"), std::string::npos) << key;  // replaced, not passed on
    EXPECT_EQ(v.find('/'), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace gpuplan::api
