// JSON escaping and number printing of the dump's writer, read back with a
// strict parser.
#include "common/json_writer.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "common/utf8.h"
#include "tests/testing/json_test_parser.h"

namespace feedprof::common {
namespace {

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(Quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Quoted("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(Quoted(std::string("\x01\x1f\x7f", 3)), R"("\u0001\u001f\u007f")");
  EXPECT_EQ(Quoted(std::string("nul\0byte", 8)), R"("nul\u0000byte")");
}

TEST(JsonWriter, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(Quoted("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "\"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  EXPECT_EQ(Quoted("a\xFFz"), R"("a\ufffdz")");
  EXPECT_EQ(Quoted("cut\xE2\x82"), R"("cut\ufffd\ufffd")");
  EXPECT_EQ(Quoted("\xC0\xAF"), R"("\ufffd\ufffd")");            // overlong '/'
  EXPECT_EQ(Quoted("\xED\xA0\x80"), R"("\ufffd\ufffd\ufffd")");  // surrogate
  EXPECT_EQ(Quoted("\xF4\x90\x80\x80"),
            R"("\ufffd\ufffd\ufffd\ufffd")");  // above U+10FFFF
}

TEST(JsonWriter, RoundTripsArbitraryBytesThroughAStrictParser) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string line = "{\"v\":";
  AppendJsonString(all, &line);
  line += "}";
  const auto parsed = testing::ParseJson(line);
  ASSERT_TRUE(parsed.has_value()) << line;
  const std::string back = parsed->Str("v");
  EXPECT_TRUE(IsValidUtf8(back));
  EXPECT_EQ(back.substr(0, 128), all.substr(0, 128));  // ASCII unchanged
  std::string expected_tail;
  AppendRepairedUtf8(all.substr(128), &expected_tail);
  EXPECT_EQ(back.substr(128), expected_tail);
}

TEST(JsonWriter, PlacesCommasAndPrintsNumbersExactly) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("u").Uint(std::numeric_limits<uint64_t>::max());
  w.Key("i").Int(std::numeric_limits<int64_t>::min());
  w.Key("d").Double(87.5);
  w.Key("third").Double(0.1);
  w.Key("nan").Double(std::numeric_limits<double>::quiet_NaN());
  w.Key("a")
      .BeginArray()
      .Bool(true)
      .Null()
      .String("x")
      .BeginObject()
      .EndObject();
  w.EndArray();
  w.EndObject();
  EXPECT_EQ(out, R"({"u":18446744073709551615,"i":-9223372036854775808,)"
                 R"("d":87.5,"third":0.1,"nan":null,"a":[true,null,"x",{}]})");
  EXPECT_TRUE(testing::ParseJson(out).has_value());
}

TEST(JsonWriter, PrettyStyleIndentsAndEndsWithANewline) {
  JsonWriter w(JsonWriter::Style::kPretty);
  w.BeginObject().Key("a").Int(1).Key("b").BeginArray().String("x").Null();
  w.EndArray().Key("c").BeginObject().EndObject().EndObject();
  EXPECT_EQ(w.str(),
            "{\n  \"a\": 1,\n  \"b\": [\n    \"x\",\n    null\n  ],\n"
            "  \"c\": {}\n}\n");
}

TEST(JsonWriter, CompactStyleHasNoWhitespace) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject().Key("a").BeginArray().Int(-2).Double(0.5).EndArray();
  w.EndObject();
  EXPECT_EQ(out, R"({"a":[-2,0.5]})");
}

}  // namespace
}  // namespace feedprof::common
