// JsonWriter: the encoder of planning answers always produces JSON that parses, whatever
// the strings and numbers it is given.
#include "api/json_writer.h"

#include <gtest/gtest.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

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

// Keys written as string literals (JsonKey checked when compiled, copied without a scan) come
// out as RapidJSON's Writer writes them, as do the same names given at run time; the literal
// below holds every printable ASCII character a key literal may hold.
TEST(JsonWriterTest, LiteralKeysAreWrittenAsRapidJsonWritesThem) {
  static constexpr char kEveryCharacter[] =
      " !#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~";
  JsonWriter literal, runtime;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> theirs(buffer);
  literal.BeginObject();
  runtime.BeginObject();
  theirs.StartObject();
  literal.Field(kEveryCharacter, 1);
  literal.Field("", 2);
  literal.Object("nested", [&] { literal.Field("x", true); });
  for (const std::string& key :
       {std::string(kEveryCharacter), std::string(""), std::string("nested")}) {
    runtime.Key(key);
    theirs.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    if (key == "nested") {
      runtime.BeginObject();
      runtime.Field(std::string("x"), true);
      runtime.EndObject();
      theirs.StartObject();
      theirs.Key("x");
      theirs.Bool(true);
      theirs.EndObject();
    } else {
      runtime.Value(key.empty() ? 2 : 1);
      theirs.Int(key.empty() ? 2 : 1);
    }
  }
  literal.EndObject();
  runtime.EndObject();
  theirs.EndObject();
  const std::string expected = buffer.GetString();
  EXPECT_EQ(literal.Take(), expected);
  EXPECT_EQ(runtime.Take(), expected);
  EXPECT_EQ(json::parse(expected)[kEveryCharacter], 1);
}

// The answers' bytes did not change when RapidJSON's Writer was replaced by JsonWriter's own
// appends (issue 26): the same document written both ways, over random keys, strings (every
// control character, quotes, backslashes, valid UTF-8), integers and doubles of every
// magnitude, nested objects and arrays.
TEST(JsonWriterTest, WritesWhatRapidJsonsWriterWrites) {
  std::mt19937_64 rng(26);
  auto random_text = [&] {
    static const std::string pieces[] = {"a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\r",
                                         "\b", "\f", "\x01", "\x1f", "\x7f", "S\xc3\xa3o",
                                         "\xe2\x82\xac", "\xf0\x9f\x9a\x80", "key", ":"};
    std::string s;
    for (int n = static_cast<int>(rng() % 12); n > 0; --n) s += pieces[rng() % std::size(pieces)];
    return s;
  };
  auto random_double = [&] {
    switch (rng() % 4) {
      case 0: return static_cast<double>(static_cast<int64_t>(rng() % 2000000) - 1000000);
      case 1: return std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 200) - 150);
      case 2: return -std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 1900) - 1000);  // finite (non-finite: NonFiniteNumbersAreNull)
      default: return std::uniform_real_distribution<double>(0, 1e4)(rng);
    }
  };
  for (int doc = 0; doc < 300; ++doc) {
    JsonWriter ours;
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> theirs(buffer);
    std::vector<bool> in_object;  // the open containers
    auto close = [&] {
      if (in_object.back()) {
        ours.EndObject();
        theirs.EndObject();
      } else {
        ours.EndArray();
        theirs.EndArray();
      }
      in_object.pop_back();
    };
    ours.BeginObject();
    theirs.StartObject();
    in_object.push_back(true);
    for (int step = 0; step < 60; ++step) {
      if (in_object.back()) {
        // Keys stay ASCII here: a non-ASCII key is checked through EncodeJson (below).
        std::string key = random_text();
        key.erase(std::remove_if(key.begin(), key.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x80; }),
                  key.end());
        ours.Key(key);
        theirs.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
      }
      switch (rng() % 9) {
        case 0: ours.BeginObject(); theirs.StartObject(); in_object.push_back(true); continue;
        case 1: ours.BeginArray(); theirs.StartArray(); in_object.push_back(false); continue;
        case 2: {
          std::string v = random_text();
          ours.String(v);
          theirs.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
          break;
        }
        case 3: {
          double v = random_double();
          ours.Number(v);
          theirs.Double(v);
          break;
        }
        case 4: {
          long long v = static_cast<long long>(rng());
          ours.Int(v);
          theirs.Int64(v);
          break;
        }
        case 5: {
          unsigned long long v = rng();
          ours.Uint(v);
          theirs.Uint64(v);
          break;
        }
        case 6: {
          bool v = rng() % 2 == 0;
          ours.Bool(v);
          theirs.Bool(v);
          break;
        }
        case 7: ours.Null(); theirs.Null(); break;
        default: ours.Raw("[1,{\"k\":2}]"); theirs.RawValue("[1,{\"k\":2}]", 11, rapidjson::kArrayType);
      }
      // Close a container now and then (never the outermost).
      while (in_object.size() > 1 && rng() % 3 == 0) close();
    }
    while (!in_object.empty()) close();
    ASSERT_EQ(ours.Take(), std::string(buffer.GetString(), buffer.GetSize())) << "document " << doc;
  }
}

// The CLI's --json layout: the same as nlohmann's dump(2) of the parsed text, without
// parsing it (numbers and strings stay exactly as written, escapes and brackets in strings
// are left alone).
TEST(JsonWriterTest, IndentJsonLaysOutLikeDump2AndKeepsTheText) {
  const std::string compact =
      R"({"a":1,"empty":{},"list":[],"s":"x, {y}: [z] \" \\","nested":{"n":[1.5,{"k":null},true]},)"
      R"("last":"end"})";
  EXPECT_EQ(IndentJson(compact), nlohmann::ordered_json::parse(compact).dump(2));
  // Escapes stay as written (dump would write U+00E3 as its UTF-8 bytes).
  EXPECT_EQ(IndentJson(R"({"k":"S\u00e3o"})"), "{\n  \"k\": \"S\\u00e3o\"\n}");
  // Numbers keep RapidJSON's form (dump would re-format them).
  EXPECT_EQ(IndentJson(R"([1e21,3.0])"), "[\n  1e21,\n  3.0\n]");
  EXPECT_EQ(IndentJson("{}"), "{}");
}

// Past the writer's first 16 KB (a long string, thousands of numbers) and after Take() the
// text is what a fresh writer and RapidJSON write.
TEST(JsonWriterTest, GrowsAndIsReusedAfterTake) {
  JsonWriter ours;
  for (int round = 0; round < 3; ++round) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> theirs(buffer);
    const std::string long_text(100000 + round, round == 1 ? '"' : 'x');
    ours.BeginArray();
    theirs.StartArray();
    ours.String(long_text);
    theirs.String(long_text.data(), static_cast<rapidjson::SizeType>(long_text.size()));
    for (int i = 0; i < 5000; ++i) {
      ours.Number(i * 0.37 + round);
      theirs.Double(i * 0.37 + round);
    }
    ours.EndArray();
    theirs.EndArray();
    ASSERT_EQ(ours.Take(), std::string(buffer.GetString(), buffer.GetSize())) << round;
    ours.BeginObject();
    ours.Field("small", 1);
    ours.EndObject();
    ASSERT_EQ(ours.Take(), "{\"small\":1}") << round;
  }
}

// Text that is not compact JSON (an unmatched bracket) is laid out, not dropped or thrown on.
TEST(JsonWriterTest, IndentJsonKeepsMalformedText) {
  EXPECT_EQ(IndentJson("]1"), "\n]1");
  EXPECT_EQ(IndentJson("[1"), "[\n  1");
}

}  // namespace
}  // namespace gpuplan::api
