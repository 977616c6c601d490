// SplitTraceEvents: where it cuts, where it stops, and why.
//
// The splitter must find exactly the events a byte-by-byte reading with the
// tokenizer's string rule finds, whatever the alignment of quotes,
// backslashes and brackets to its 64-byte blocks. A small reference splitter
// written for clarity (one byte at a time) is the oracle for inputs that put
// every trap at every offset; hand-written cases pin the stops.
#include "kineto/trace_event_splitter.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace feedprof::kineto {
namespace {

struct Split {
  SplitResult result;
  std::vector<SplitEventSpan> spans;
};

Split SplitAll(std::string_view text, bool after_element = false,
               size_t max_consumed = SIZE_MAX, SplitLimits limits = {}) {
  Split s;
  s.result =
      SplitTraceEvents(text, after_element, max_consumed, limits, &s.spans);
  return s;
}

std::vector<std::string> Texts(std::string_view text, const Split& s) {
  std::vector<std::string> out;
  for (const SplitEventSpan& span : s.spans) {
    out.emplace_back(text.substr(span.begin, span.size));
  }
  return out;
}

// The events of `text` (after '['), one byte at a time: whitespace, a
// comma between elements, objects whose brackets match. Returns the
// objects' texts, `*consumed` and `*stop` as SplitTraceEvents defines them
// (without limits).
std::vector<std::string> ReferenceSplit(std::string_view text, size_t* consumed,
                                        SplitStop* stop) {
  std::vector<std::string> events;
  size_t pos = 0;
  bool after = false;
  *consumed = 0;
  auto space = [&](size_t p) {
    while (p < text.size() && (text[p] == ' ' || text[p] == '\n' ||
                               text[p] == '\r' || text[p] == '\t')) {
      ++p;
    }
    return p;
  };
  for (;;) {
    size_t p = space(pos);
    if (after) {
      if (p == text.size()) break;
      if (text[p] != ',') {
        *stop = SplitStop::kOther;
        return events;
      }
      p = space(p + 1);
    }
    if (p == text.size()) break;
    if (text[p] != '{') {
      *stop = SplitStop::kOther;
      return events;
    }
    std::string open;
    bool in_string = false;
    size_t q = p;
    for (; q < text.size(); ++q) {
      const char c = text[q];
      if (in_string) {
        if (c == '\\') {
          ++q;  // the escaped byte
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        open.push_back(c);
      } else if (c == '}' || c == ']') {
        if (open.back() != (c == '}' ? '{' : '[')) {
          *stop = SplitStop::kOther;
          return events;
        }
        open.pop_back();
        if (open.empty()) break;
      }
    }
    if (q >= text.size()) break;
    events.emplace_back(text.substr(p, q + 1 - p));
    pos = q + 1;
    *consumed = pos;
    after = true;
  }
  *stop = SplitStop::kNeedMore;
  return events;
}

// The classifiers this CPU runs, each by name.
std::vector<std::pair<ByteClassifier, const char*>> Classifiers() {
  std::vector<std::pair<ByteClassifier, const char*>> out;
  for (const auto& c : {std::pair{ByteClassifier::kBest, "best"},
                        std::pair{ByteClassifier::kPortable, "portable"},
                        std::pair{ByteClassifier::kAvx2, "avx2"},
                        std::pair{ByteClassifier::kAvx512, "avx512"}}) {
    if (ByteClassifierAvailable(c.first)) out.push_back(c);
  }
  return out;
}

TEST(TraceEventSplitterTest, CutsWholeObjectsAndStopsAtTheArrayEnd) {
  const std::string text =
      " {\"a\": 1},{\"b\": \"x}\"} ,\n\t{\"c\": [1, {\"d\": [2]}]}\n]";
  const Split s = SplitAll(text);
  EXPECT_EQ(Texts(text, s),
            (std::vector<std::string>{"{\"a\": 1}", "{\"b\": \"x}\"}",
                                      "{\"c\": [1, {\"d\": [2]}]}"}));
  EXPECT_EQ(s.spans[0].begin, 1u);
  EXPECT_EQ(s.spans[1].begin, 10u);
  EXPECT_EQ(s.result.stop, SplitStop::kOther);  // ']' is the tokenizer's
  EXPECT_EQ(s.result.consumed, text.size() - 2);
}

TEST(TraceEventSplitterTest, StringsWithEscapedQuotesBackslashesAndBrackets) {
  const std::string text =
      R"({"n": "a\"}]"}, {"n": "\\"}, {"n": "\\\"{"}, {"n": "\\\\", "m": "]"})"
      R"(, {"n": "[\"\\\\\"]"})";
  const Split s = SplitAll(text);
  EXPECT_EQ(Texts(text, s),
            (std::vector<std::string>{
                R"({"n": "a\"}]"})", R"({"n": "\\"})", R"({"n": "\\\"{"})",
                R"({"n": "\\\\", "m": "]"})", R"({"n": "[\"\\\\\"]"})"}));
  EXPECT_EQ(s.result.stop, SplitStop::kNeedMore);
  EXPECT_EQ(s.result.consumed, text.size());
}

TEST(TraceEventSplitterTest, MultiByteUtf8IsOrdinaryText) {
  // "é" (c3 a9), "名" (e5 90 8d), "😀" (f0 9f 98 80): no byte of them is a
  // quote, backslash or bracket.
  const std::string name = "\xc3\xa9\xe5\x90\x8d\xf0\x9f\x98\x80";
  std::string text;
  for (int i = 0; i < 70; ++i) {
    if (i > 0) text += ",";
    text += absl::StrCat("{\"name\": \"", std::string(i, 'x'), name,
                         "}\", \"k\": [\"", name, "]\"]}");
  }
  const Split s = SplitAll(text);
  ASSERT_EQ(s.spans.size(), 70u);
  EXPECT_EQ(Texts(text, s)[69],
            absl::StrCat("{\"name\": \"", std::string(69, 'x'), name,
                         "}\", \"k\": [\"", name, "]\"]}"));
  EXPECT_EQ(s.result.consumed, text.size());
}

// Every trap at every offset from a block start: a run of 1 to 4
// backslashes before a quote, brackets right after, the run split over
// the border of two 64-byte blocks.
TEST(TraceEventSplitterTest, AgreesWithTheReferenceAtEveryAlignment) {
  const std::vector<std::string> traps = {
      R"(\")", R"(\\)",   R"(\\\")",     R"(\\\\)",
      R"(}])", R"(\"]})", R"(\\"}, {")", R"(\\\\"})",
  };
  int checked = 0;
  for (const std::string& trap : traps) {
    for (size_t pad = 0; pad < 140; ++pad) {
      // The trap sits inside a string; whatever it does to the string's
      // end, both splitters must read the same.
      const std::string text = absl::StrCat(
          "{\"pad\": \"", std::string(pad, 'p'), trap,
          "\", \"x\": {\"y\": [1]}}, {\"z\": \"", trap, "\"}, {\"w\": 1}");
      size_t consumed = 0;
      SplitStop stop = SplitStop::kOther;
      const std::vector<std::string> expected =
          ReferenceSplit(text, &consumed, &stop);
      for (const auto& [classifier, name] : Classifiers()) {
        SplitLimits limits;
        limits.classifier = classifier;
        const Split s = SplitAll(text, false, SIZE_MAX, limits);
        ASSERT_EQ(Texts(text, s), expected)
            << name << " trap " << trap << " pad " << pad;
        ASSERT_EQ(s.result.consumed, consumed) << name << trap << " " << pad;
        ASSERT_EQ(s.result.stop, stop) << name << trap << " pad " << pad;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8 * 140);
}

// Long texts: events that straddle the classifier's 4 KiB windows, strings
// of escapes longer than a window, brackets in strings at window borders;
// every classifier must cut exactly where the reference does, and a text
// cut anywhere must stop where the reference stops.
TEST(TraceEventSplitterTest, EveryClassifierAgreesWithTheReferenceOnLongText) {
  std::string text;
  for (int i = 0; i < 400; ++i) {
    if (i > 0) text += i % 7 == 0 ? " ,\n " : ",";
    const std::string filler(static_cast<size_t>((i * 37) % 300), 'f');
    std::string escapes;
    if (i % 50 == 3) {
      // 2500 escaped quotes and backslashes: 5000 bytes of string.
      for (int k = 0; k < 2500; ++k) escapes += k % 2 == 0 ? "\\\"" : "\\\\";
    }
    text += absl::StrCat("{\"name\": \"", filler, "}]\\\"{[", escapes,
                         "\", \"args\": {\"grid\": [", i,
                         ", 1, 1], \"s\": \"\\\\\"}}");
  }
  ASSERT_GT(text.size(), 60000u);
  size_t consumed = 0;
  SplitStop stop = SplitStop::kOther;
  const std::vector<std::string> expected =
      ReferenceSplit(text, &consumed, &stop);
  ASSERT_EQ(expected.size(), 400u);
  for (const auto& [classifier, name] : Classifiers()) {
    SplitLimits limits;
    limits.max_event_bytes = 1 << 20;
    limits.classifier = classifier;
    const Split s = SplitAll(text, false, SIZE_MAX, limits);
    EXPECT_EQ(Texts(text, s), expected) << name;
    EXPECT_EQ(s.result.consumed, consumed) << name;
    for (size_t cut = 1; cut < text.size(); cut += 997) {
      const std::string_view part = std::string_view(text).substr(0, cut);
      size_t part_consumed = 0;
      SplitStop part_stop = SplitStop::kOther;
      const std::vector<std::string> part_expected =
          ReferenceSplit(part, &part_consumed, &part_stop);
      const Split p = SplitAll(part, false, SIZE_MAX, limits);
      ASSERT_EQ(p.spans.size(), part_expected.size()) << name << " " << cut;
      ASSERT_EQ(p.result.consumed, part_consumed) << name << " " << cut;
      ASSERT_EQ(p.result.stop, part_stop) << name << " " << cut;
    }
  }
}

TEST(TraceEventSplitterTest, NeedsMoreWhenTheTextEndsInsideAnElement) {
  const std::string whole = R"({"a": 1}, {"b": "2"})";
  for (size_t cut = 0; cut < whole.size(); ++cut) {
    const Split s = SplitAll(std::string_view(whole).substr(0, cut));
    EXPECT_EQ(s.result.stop, SplitStop::kNeedMore) << cut;
    const size_t first_end = 8;  // just after the first '}'
    EXPECT_EQ(s.result.consumed, cut >= first_end ? first_end : 0) << cut;
    EXPECT_EQ(s.spans.size(), cut >= first_end ? 1u : 0u) << cut;
  }
}

TEST(TraceEventSplitterTest, StopsWhereTheTokenizerMustRead) {
  // A non-object element, an empty element, a missing comma, a trailing
  // comma, mismatched brackets: each is left to the tokenizer, after the
  // events before it.
  struct Case {
    std::string text;
    size_t events;
  };
  const std::vector<Case> cases = {
      {R"({"a": 1}, 2, {"b": 1})", 1},
      {R"({"a": 1}, [], {"b": 1})", 1},
      {R"({"a": 1},, {"b": 1})", 1},
      {R"({"a": 1} {"b": 1})", 1},
      {R"({"a": 1}, ])", 1},
      {R"({"a": 1}, {"b": [1}], {"c": 1})", 1},
      {R"({"a": 1}, {"b": {1]}, {"c": 1})", 1},
      {R"(, {"a": 1})", 0},
      {R"(null)", 0},
  };
  for (const Case& c : cases) {
    const Split s = SplitAll(c.text);
    EXPECT_EQ(s.result.stop, SplitStop::kOther) << c.text;
    EXPECT_EQ(s.spans.size(), c.events) << c.text;
    EXPECT_EQ(s.result.consumed, c.events == 0 ? 0u : 8u) << c.text;
  }
  // After an element, the next one needs its comma.
  const Split after = SplitAll(R"( , {"a": 1})", /*after_element=*/true);
  EXPECT_EQ(after.spans.size(), 1u);
  EXPECT_EQ(after.spans[0].begin, 3u);
  const Split missing = SplitAll(R"( {"a": 1})", /*after_element=*/true);
  EXPECT_EQ(missing.spans.size(), 0u);
  EXPECT_EQ(missing.result.stop, SplitStop::kOther);
}

TEST(TraceEventSplitterTest, LeavesDeepAndLongEventsToTheTokenizer) {
  SplitLimits limits;
  limits.max_depth = 4;
  limits.max_event_bytes = 64;
  const std::string ok = R"({"a": [[[1]]]})";      // depth 4
  const std::string deep = R"({"a": [[[[1]]]]})";  // depth 5
  const std::string longer = absl::StrCat("{\"a\": \"", std::string(60, 'x'),
                                          "\"}");  // 68 bytes
  Split s = SplitAll(absl::StrCat(ok, ",", deep), false, SIZE_MAX, limits);
  EXPECT_EQ(s.spans.size(), 1u);
  EXPECT_EQ(s.result.stop, SplitStop::kOther);
  EXPECT_EQ(s.result.consumed, ok.size());
  s = SplitAll(absl::StrCat(ok, ",", longer), false, SIZE_MAX, limits);
  EXPECT_EQ(s.spans.size(), 1u);
  EXPECT_EQ(s.result.stop, SplitStop::kOther);
  // Cut short but already past the limit: no refill can make it fit.
  s = SplitAll(std::string_view(longer).substr(0, 66), false, SIZE_MAX, limits);
  EXPECT_EQ(s.result.stop, SplitStop::kOther);
  // Whitespace counts toward the element's length.
  s = SplitAll(absl::StrCat(ok, ",", std::string(70, ' '), ok), false, SIZE_MAX,
               limits);
  EXPECT_EQ(s.spans.size(), 1u);
  EXPECT_EQ(s.result.stop, SplitStop::kOther);
}

TEST(TraceEventSplitterTest, StopsOnceTheBatchIsFull) {
  const std::string event = R"({"a": 1})";
  std::string text = event;
  for (int i = 1; i < 10; ++i) text += ", " + event;
  const Split s = SplitAll(text, false, 20);  // the third event ends at 28
  EXPECT_EQ(s.spans.size(), 3u);
  EXPECT_EQ(s.result.consumed, 28u);
  EXPECT_EQ(s.result.stop, SplitStop::kFull);
  const Split rest = SplitAll(std::string_view(text).substr(28), true);
  EXPECT_EQ(rest.spans.size(), 7u);
}

}  // namespace
}  // namespace feedprof::kineto
