// The streaming JSON tokenizer: tokens, escapes, nesting, skipping, and
// errors with byte offsets. Every input is also fed one byte per read, so
// each token is split at every possible position.
#include "kineto/json_tokenizer.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace feedprof::kineto {
namespace {

struct Tokens {
  std::vector<std::pair<JsonToken, std::string>> tokens;
  bool failed = false;
  bool truncated = false;
  std::string error;
  uint64_t error_offset = 0;
};

Tokens Tokenize(const std::string& json, size_t chunk,
                JsonTokenizer::Limits limits = {}) {
  StringByteSource source(json, chunk);
  limits.initial_buffer_bytes = 64;  // force refills and buffer growth
  JsonTokenizer tokenizer(&source, limits);
  Tokens out;
  for (int i = 0; i < 100000; ++i) {
    const JsonToken t = tokenizer.Next();
    if (t == JsonToken::kEnd) break;
    if (t == JsonToken::kError) {
      out.failed = true;
      out.truncated = tokenizer.truncated();
      out.error = tokenizer.error();
      out.error_offset = tokenizer.error_offset();
      break;
    }
    const bool has_text = t == JsonToken::kKey || t == JsonToken::kString ||
                          t == JsonToken::kNumber;
    out.tokens.emplace_back(t, has_text ? std::string(tokenizer.text()) : "");
  }
  return out;
}

// Same result whatever the read size.
Tokens TokenizeAllChunkings(const std::string& json,
                            JsonTokenizer::Limits limits = {}) {
  const Tokens whole = Tokenize(json, 1 << 20, limits);
  for (size_t chunk : {1, 2, 3, 7}) {
    const Tokens split = Tokenize(json, chunk, limits);
    EXPECT_EQ(split.tokens, whole.tokens) << "chunk " << chunk;
    EXPECT_EQ(split.error, whole.error) << "chunk " << chunk;
  }
  return whole;
}

std::string Text(const Tokens& t, size_t i) { return t.tokens.at(i).second; }

TEST(JsonTokenizerTest, NumbersKeepTheirText) {
  const Tokens t = TokenizeAllChunkings(
      "[0, -0, 123, -45.25, 1.5e-3, 2E+10, 1712195495505543.2]");
  ASSERT_FALSE(t.failed) << t.error;
  ASSERT_EQ(t.tokens.size(), 9u);
  EXPECT_EQ(t.tokens[0].first, JsonToken::kArrayBegin);
  const std::vector<std::string> want = {
      "0", "-0", "123", "-45.25", "1.5e-3", "2E+10", "1712195495505543.2"};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(t.tokens[i + 1].first, JsonToken::kNumber);
    EXPECT_EQ(Text(t, i + 1), want[i]);
  }
  EXPECT_EQ(t.tokens[8].first, JsonToken::kArrayEnd);
}

TEST(JsonTokenizerTest, TopLevelNumberAtEndOfInput) {
  const Tokens t = TokenizeAllChunkings("42");
  ASSERT_FALSE(t.failed) << t.error;
  ASSERT_EQ(t.tokens.size(), 1u);
  EXPECT_EQ(Text(t, 0), "42");
}

TEST(JsonTokenizerTest, MalformedNumbersReportTheirOffset) {
  struct Case {
    std::string json;
    uint64_t offset;
  };
  for (const Case& c : std::vector<Case>{
           {"[01]", 2}, {"[1.]", 3}, {"[-]", 2}, {"[1e]", 3}, {"[1.5.2]", 4}}) {
    const Tokens t = TokenizeAllChunkings(c.json);
    EXPECT_TRUE(t.failed) << c.json;
    EXPECT_FALSE(t.truncated) << c.json;
    EXPECT_EQ(t.error_offset, c.offset) << c.json << ": " << t.error;
    EXPECT_NE(t.error.find("malformed number"), std::string::npos) << t.error;
  }
  const Tokens plus = TokenizeAllChunkings("[+1]");
  EXPECT_TRUE(plus.failed);
  EXPECT_EQ(plus.error_offset, 1u);
  EXPECT_NE(plus.error.find("expected a value"), std::string::npos);
}

TEST(JsonTokenizerTest, LiteralsAndEmptyContainers) {
  const Tokens t =
      TokenizeAllChunkings(R"({"a":true,"b":false,"c":null,"d":{},"e":[]})");
  ASSERT_FALSE(t.failed) << t.error;
  std::vector<JsonToken> kinds;
  for (const auto& [k, s] : t.tokens) kinds.push_back(k);
  const std::vector<JsonToken> want = {
      JsonToken::kObjectBegin, JsonToken::kKey,      JsonToken::kTrue,
      JsonToken::kKey,         JsonToken::kFalse,    JsonToken::kKey,
      JsonToken::kNull,        JsonToken::kKey,      JsonToken::kObjectBegin,
      JsonToken::kObjectEnd,   JsonToken::kKey,      JsonToken::kArrayBegin,
      JsonToken::kArrayEnd,    JsonToken::kObjectEnd};
  EXPECT_EQ(kinds, want);
  EXPECT_EQ(Text(t, 1), "a");
  EXPECT_EQ(Text(t, 10), "e");
}

TEST(JsonTokenizerTest, DecodesEscapesAndSurrogatePairs) {
  const Tokens t = TokenizeAllChunkings(
      R"(["a\n\t\"q\"\\\/\b\f\r", "\u00e9\u4e2d", "\ud83d\ude00x", "\ud83dx", "\ude00", "plain \u0041"])");
  ASSERT_FALSE(t.failed) << t.error;
  ASSERT_EQ(t.tokens.size(), 8u);
  EXPECT_EQ(Text(t, 1), "a\n\t\"q\"\\/\b\f\r");
  EXPECT_EQ(Text(t, 2), "\xC3\xA9\xE4\xB8\xAD");  // é中
  EXPECT_EQ(Text(t, 3), "\xF0\x9F\x98\x80x");     // U+1F600
  EXPECT_EQ(Text(t, 4), "\xEF\xBF\xBDx");         // lone high
  EXPECT_EQ(Text(t, 5), "\xEF\xBF\xBD");          // lone low
  EXPECT_EQ(Text(t, 6), "plain A");
}

TEST(JsonTokenizerTest, EscapedBackslashBeforeClosingQuote) {
  const Tokens t = TokenizeAllChunkings(R"(["a\\", "b\\\"c"])");
  ASSERT_FALSE(t.failed) << t.error;
  ASSERT_EQ(t.tokens.size(), 4u);
  EXPECT_EQ(Text(t, 1), "a\\");
  EXPECT_EQ(Text(t, 2), "b\\\"c");
}

TEST(JsonTokenizerTest, BadEscapesAreErrorsAtTheBackslash) {
  const Tokens bad = TokenizeAllChunkings(R"(["ab\x"])");
  EXPECT_TRUE(bad.failed);
  EXPECT_EQ(bad.error_offset, 4u) << bad.error;
  EXPECT_NE(bad.error.find("invalid escape"), std::string::npos);
  const Tokens hex = TokenizeAllChunkings(R"(["\u12G4"])");
  EXPECT_TRUE(hex.failed);
  EXPECT_EQ(hex.error_offset, 2u) << hex.error;
}

TEST(JsonTokenizerTest, NestingAndDepth) {
  const Tokens t = TokenizeAllChunkings(R"({"a":{"b":[1,{"c":[[]]}]}})");
  ASSERT_FALSE(t.failed) << t.error;
  EXPECT_EQ(t.tokens.size(), 16u);

  JsonTokenizer::Limits limits;
  limits.max_depth = 8;
  const Tokens deep =
      TokenizeAllChunkings(std::string(9, '[') + std::string(9, ']'), limits);
  EXPECT_TRUE(deep.failed);
  EXPECT_FALSE(deep.truncated);
  EXPECT_EQ(deep.error_offset, 8u);
  EXPECT_NE(deep.error.find("nesting deeper than 8"), std::string::npos);
  const Tokens ok =
      TokenizeAllChunkings(std::string(8, '[') + std::string(8, ']'), limits);
  EXPECT_FALSE(ok.failed) << ok.error;
}

TEST(JsonTokenizerTest, StructuralErrorsSayWhereAndWhat) {
  struct Case {
    std::string json;
    uint64_t offset;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {R"({"a" 1})", 5, "expected ':' after the key, found '1'"},
      {"[1,]", 3, "expected a value, found ']'"},
      {R"({"a":1,})", 7, "expected a key string, found '}'"},
      {"[1 2]", 3, "expected ',' or ']', found '2'"},
      {R"({"a":1])", 6, "expected ',' or '}', found ']'"},
      {"{} x", 3, "expected the end of the input"},
      {"{1:2}", 1, "expected a key string or '}'"},
      {"[tru]", 1, "expected a value"},
      {"[\x01]", 1, "found byte 0x01"},
  };
  for (const Case& c : cases) {
    const Tokens t = TokenizeAllChunkings(c.json);
    EXPECT_TRUE(t.failed) << c.json;
    EXPECT_FALSE(t.truncated) << c.json;
    EXPECT_EQ(t.error_offset, c.offset) << c.json << ": " << t.error;
    EXPECT_NE(t.error.find(c.expected), std::string::npos)
        << c.json << ": " << t.error;
    EXPECT_EQ(t.error.rfind("at byte " + std::to_string(c.offset), 0), 0u)
        << t.error;
  }
}

TEST(JsonTokenizerTest, TruncatedInputIsReportedApart) {
  for (const std::string json : {R"({"a": [1, 2)", R"(["abc)", "[tru",
                                 R"({"a")", "[1,", "[-", "[1.", "[1e"}) {
    const Tokens t = TokenizeAllChunkings(json);
    EXPECT_TRUE(t.failed) << json;
    EXPECT_TRUE(t.truncated) << json << ": " << t.error;
    EXPECT_EQ(t.error_offset, json.size()) << json;
    EXPECT_EQ(t.error,
              "JSON ends early at byte " + std::to_string(json.size()));
  }
  const Tokens empty = TokenizeAllChunkings("");
  EXPECT_TRUE(empty.failed);
  EXPECT_FALSE(empty.truncated);
  const Tokens spaces = TokenizeAllChunkings("  \n ");
  EXPECT_TRUE(spaces.failed);
}

// Reads `json` as {"skip": <value>, "keep": 5} and returns what follows.
std::vector<std::pair<JsonToken, std::string>> SkipThenRead(
    const std::string& json, size_t chunk, std::string* error) {
  StringByteSource source(json, chunk);
  JsonTokenizer::Limits limits;
  limits.initial_buffer_bytes = 64;
  JsonTokenizer tokens(&source, limits);
  std::vector<std::pair<JsonToken, std::string>> out;
  EXPECT_EQ(tokens.Next(), JsonToken::kObjectBegin);
  EXPECT_EQ(tokens.Next(), JsonToken::kKey);
  if (!tokens.SkipValue()) {
    *error = tokens.error();
    return out;
  }
  for (;;) {
    const JsonToken t = tokens.Next();
    if (t == JsonToken::kEnd) break;
    if (t == JsonToken::kError) {
      *error = tokens.error();
      break;
    }
    out.emplace_back(t, std::string(tokens.text()));
  }
  return out;
}

TEST(JsonTokenizerTest, SkipValueJumpsOverNestedValues) {
  const std::string json =
      R"({"skip": {"x": [1, "]}\"\\", {"y": [], "z": "{"}], "w": null}, "keep": 5})";
  for (size_t chunk : {1, 2, 5, 1 << 20}) {
    std::string error;
    const auto rest = SkipThenRead(json, chunk, &error);
    EXPECT_EQ(error, "") << chunk;
    ASSERT_EQ(rest.size(), 3u) << chunk;
    EXPECT_EQ(rest[0], std::make_pair(JsonToken::kKey, std::string("keep")));
    EXPECT_EQ(rest[1], std::make_pair(JsonToken::kNumber, std::string("5")));
    EXPECT_EQ(rest[2].first, JsonToken::kObjectEnd);
  }
  std::string error;
  const auto scalar = SkipThenRead(R"({"skip": "s", "keep": 5})", 1, &error);
  EXPECT_EQ(scalar.size(), 3u);
}

TEST(JsonTokenizerTest, SkipValueChecksBracketsAndTruncation) {
  std::string error;
  SkipThenRead(R"({"skip": [1}, "keep": 5})", 1, &error);
  EXPECT_EQ(error, "at byte 11: expected ']', found '}'");
  error.clear();
  SkipThenRead(R"({"skip": [1, {"a": "b)", 3, &error);
  EXPECT_EQ(error, "JSON ends early at byte 21");
}

TEST(JsonTokenizerTest, LongTokensAreCappedNotBuffered) {
  JsonTokenizer::Limits limits;
  limits.max_token_bytes = 1000;
  const Tokens ok =
      TokenizeAllChunkings("[\"" + std::string(900, 'x') + "\"]", limits);
  ASSERT_FALSE(ok.failed) << ok.error;
  EXPECT_EQ(Text(ok, 1).size(), 900u);
  const Tokens too_long =
      Tokenize("[\"" + std::string(100000, 'x') + "\"]", 4096, limits);
  EXPECT_TRUE(too_long.failed);
  EXPECT_FALSE(too_long.truncated);
  EXPECT_NE(too_long.error.find("longer than 1000 bytes"), std::string::npos)
      << too_long.error;
}

TEST(JsonTokenizerTest, OffsetsCountFromTheStartOfTheText) {
  // An error far past the first buffer refill still has its true offset.
  std::string json = "[";
  for (int i = 0; i < 5000; ++i) json += "1,";
  const uint64_t bad_at = json.size();
  json += "x]";
  const Tokens t = TokenizeAllChunkings(json);
  EXPECT_TRUE(t.failed);
  EXPECT_EQ(t.error_offset, bad_at);
}

}  // namespace
}  // namespace feedprof::kineto
