// The buffered event scanner against the token-by-token reader.
//
// ScanBufferedKinetoEvent must read every event it accepts exactly as the
// token-by-token path does, and decline everything else (then the slow path
// gives its own result or error). Each input is read twice: in one big
// buffer, where the scanner takes every event it can, and one byte per read,
// where no event is ever whole in the buffer and every event goes token by
// token; both readings must agree on every field of every event, on the
// error and its offset, and on where the tokenizer stands afterwards. The
// inputs: hand-written events with the traps of real traces (escaped quotes
// and brackets, UTF-8, nested args, literals, odd numbers), every byte
// deletion and several insertions at every position of them, every cut of
// the last event (a truncated file), every split point of a read between
// two events, and every event of the shared real traces.
#include "kineto/kineto_event_scanner.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kineto/json_tokenizer.h"
#include "kineto/kineto_event.h"
#include "tests/kineto/kineto_test_files.h"

namespace feedprof::kineto {
namespace {

std::string Describe(const KinetoEvent& e) {
  auto str = [](std::string_view v) { return std::string(v); };
  auto id = [&](const IdField& f) {
    return absl::StrCat(f.present, "/", f.is_string, "/", f.number, "/",
                        str(f.text));
  };
  auto opt = [](const OptionalInt& v) {
    return absl::StrCat(v.present, "/", v.value);
  };
  return absl::StrCat(
      "ph=", std::string(1, e.ph), " cat=", str(e.cat), " name=", str(e.name),
      " pid=", id(e.pid), " tid=", id(e.tid), " ts=", e.has_ts, "/", e.ts_ns,
      " dur=", e.has_dur, "/", e.dur_ns, " corr=", opt(e.correlation),
      " ext=", opt(e.external_id), " dev=", opt(e.device),
      " stream=", opt(e.stream), " bytes=", opt(e.bytes),
      " wait=", opt(e.wait_on_stream), " rank=", opt(e.rank),
      " grid=", e.grid[0], ",", e.grid[1], ",", e.grid[2],
      " block=", e.block[0], ",", e.block[1], ",", e.block[2],
      " sync=", str(e.sync_kind), " arg_name=", str(e.arg_name),
      " labels=", str(e.arg_labels));
}

// Serves the text in two reads split at `split`, then the rest in big
// reads: an event straddles the buffer border exactly there.
class SplitByteSource : public ByteSource {
 public:
  SplitByteSource(std::string data, size_t split)
      : data_(std::move(data)), split_(split) {}
  size_t Read(char* out, size_t capacity) override {
    const size_t limit = position_ < split_ ? split_ : data_.size();
    const size_t n = std::min(capacity, limit - position_);
    std::memcpy(out, data_.data() + position_, n);
    position_ += n;
    return n;
  }

 private:
  std::string data_;
  size_t split_;
  size_t position_ = 0;
};

struct Outcome {
  std::vector<std::string> events;
  bool failed = false;
  bool truncated = false;
  std::string error;
  uint64_t offset = 0;  // where the tokenizer stood at the end
  bool operator==(const Outcome&) const = default;
};

// Reads `[event, event, ...]` with ReadKinetoEvent, as the reader does.
Outcome ReadEvents(ByteSource* source) {
  JsonTokenizer tokens(source);
  Outcome out;
  KinetoEvent event;
  KeptStrings kept;
  JsonToken t = tokens.Next();
  if (t == JsonToken::kArrayBegin) {
    for (;;) {
      t = tokens.Next();
      if (t == JsonToken::kArrayEnd || t == JsonToken::kError) break;
      if (t != JsonToken::kObjectBegin) {
        out.events.push_back(absl::StrCat("token ", static_cast<int>(t)));
        continue;
      }
      kept.Clear();
      if (!ReadKinetoEvent(tokens, &event, &kept)) break;
      out.events.push_back(Describe(event));
    }
    if (t == JsonToken::kArrayEnd) t = tokens.Next();
  }
  out.failed = tokens.failed();
  out.truncated = tokens.truncated();
  out.error = tokens.error();
  out.offset = tokens.failed() ? tokens.error_offset() : tokens.offset();
  return out;
}

Outcome ReadInOneBuffer(const std::string& json) {
  StringByteSource source(json);
  return ReadEvents(&source);
}

// No event is ever whole in the buffer: every one goes token by token.
Outcome ReadByteByByte(const std::string& json) {
  StringByteSource source(json, 1);
  return ReadEvents(&source);
}

// Events whose text the scanner takes from a buffer that holds all of it.
size_t EventsScanned(const std::string& json) {
  StringByteSource source(json);
  JsonTokenizer tokens(&source);
  KinetoEvent event;
  KeptStrings kept;
  size_t scanned = 0;
  if (tokens.Next() != JsonToken::kArrayBegin) return 0;
  for (;;) {
    const JsonToken t = tokens.Next();
    if (t != JsonToken::kObjectBegin) return scanned;
    const size_t n = ScanBufferedKinetoEvent(tokens.BufferedText(), &event);
    if (n > 0) {
      ++scanned;
      tokens.ConsumeRestOfObject(n);
    } else if (!ReadKinetoEvent(tokens, &event, &kept)) {
      return scanned;
    }
  }
}

const char* const kEvents[] = {
    R"js({"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, at::detail::Array<char*, 2> >(int, at::native::CUDAFunctorOnSelf_add<float>, at::detail::Array<char*, 2>)", "pid": 0, "tid": 7, "ts": 1712195495406752.8, "dur": 3.521, "args": {"External id": 123, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 4567, "registers per thread": 32, "shared memory": 0, "blocks per SM": 0.0012, "warps per SM": 1e-3, "grid": [1, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 0}})js",
    R"js({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1102,"tid":1102,"ts":1712195495406740,"dur":5,"args":{"External id":123,"cbid":211,"correlation":4567}})js",
    R"js({
    "ph": "X", "cat": "cpu_op", "name": "aten::to(\"cuda\") {x}]", "pid": 1102, "tid": 1102,
    "ts": 1712195495406700.25, "dur": 40.5,
    "args": {
      "External id": 122, "Ev Idx": 3, "Input Dims": [[32, 3, 224, 224], [], [{"a": "]}"}]], "Input type": ["float", "", "\"quoted\" ]}"]
    }
  })js",
    R"js({"name": "thread_name", "ph": "M", "ts": 0, "pid": 1102, "tid": "1102", "args": {"name": "python3 \u00e9t\u00e9 \ud83d\ude80"}})js",
    R"js({"ph": "X", "cat": "python_function", "name": "train.py(10): étape 🚀 — 名前", "pid": "Spans", "tid": "stream 7 7", "ts": "1712195495406700.5", "dur": 1})js",
    R"js({"ph": "i", "cat": "user_mark", "s": "t", "name": "x", "pid": 1, "tid": 2, "ts": 5, "args": {"flag": true, "none": null, "off": false, "neg": -0.5e+3}})js",
    R"js({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 20, "ts": 1103, "dur": 0, "args": {"cuda_sync_kind": "Stream Wait Event", "stream": 20, "wait_on_stream": "7", "correlation": 107, "device": 0, "rank": 3, "labels": "GPU 0"}})js",
    R"js({"ph": ["X"], "cat": {"k": 1}, "name": 12, "pid": true, "tid": null, "ts": [], "dur": {}, "args": [1, 2]})js",
    R"js({"ph": "X", "args": {"grid": [4294967296, -1, 2.5, 7], "block": {"x": 1}, "bytes": 18446744073709551615, "stream": "s12"}, "ts": 1e3, "dur": 0.0005})js",
    R"js({})js",
    R"js({ "ph" : "X" , "ts" : 0 , "args" : { } , "cat" : "" })js",
    R"js({"ph": "X", "ts": 1, "name": "a", "name": "b", "args": {"correlation": 1, "correlation": "2"}})js",
    R"js({"ph": "f", "id": 101, "pid": 0, "tid": 7, "ts": 1040.001, "cat": "ac2g", "name": "ac2g", "bp": "e"})js",
    // Numbers at the one-pass reader's limits (plain_decimal.h): 18 and 19
    // digits, beyond 9e15 µs, rounding, fractions in integer fields.
    R"js({"ph": "X", "pid": 123456789012345678, "tid": 1234567890123456789, "ts": 9000000000000001.5, "dur": 0.00049999, "args": {"correlation": 18446744073709551615, "External id": 2.5, "device": 0, "stream": 12345678901234567, "bytes": 99999999.5, "rank": 0.0, "queued": 123456789012345678901234}})js",
    R"js({"ph": "X", "pid": 0, "tid": 10000000, "ts": 1712195497620994.9025, "dur": 12345678.12345678, "args": {"correlation": 87654321, "wait_on_stream": 8}})js",
};

std::string Document(const std::vector<std::string>& events) {
  std::string json = "[";
  for (size_t i = 0; i < events.size(); ++i) {
    if (i > 0) json += ",\n  ";
    json += events[i];
  }
  return json + "]";
}

TEST(KinetoEventScannerTest, ReadsEveryEventAsTheTokenizerDoes) {
  std::vector<std::string> events(std::begin(kEvents), std::end(kEvents));
  const std::string json = Document(events);
  const Outcome whole = ReadInOneBuffer(json);
  EXPECT_FALSE(whole.failed) << whole.error;
  ASSERT_EQ(whole.events.size(), events.size());
  EXPECT_EQ(whole, ReadByteByByte(json));
  // The first event as the reader sees it.
  EXPECT_EQ(whole.events[0].substr(0, 69),
            "ph=X cat=kernel name=void at::native::vectorized_elementwise_"
            "kernel<4");
  EXPECT_NE(whole.events[0].find("ts=1/1712195495406752800 dur=1/3521 "
                                 "corr=1/4567 ext=1/123 dev=1/0 "
                                 "stream=1/7"),
            std::string::npos)
      << whole.events[0];
  EXPECT_NE(whole.events[0].find("grid=1,1,1 block=128,1,1"),
            std::string::npos);
  // Escapes in names are decoded (by the token-by-token path).
  EXPECT_NE(whole.events[2].find("name=aten::to(\"cuda\") {x}]"),
            std::string::npos);
  EXPECT_NE(whole.events[3].find("arg_name=python3 \xC3\xA9t\xC3\xA9 "
                                 "\xF0\x9F\x9A\x80"),
            std::string::npos);
  // UTF-8 passes through byte for byte.
  EXPECT_NE(whole.events[4].find("name=train.py(10): étape 🚀 — 名前"),
            std::string::npos);
}

TEST(KinetoEventScannerTest, TakesTheEventsItCanAndDeclinesEscapes) {
  // Events 2 (escaped quote in the name) and 3 (escapes in args.name) are
  // left to the token-by-token path; every other event is scanned.
  std::vector<std::string> events(std::begin(kEvents), std::end(kEvents));
  EXPECT_EQ(EventsScanned(Document(events)), events.size() - 2);
  KinetoEvent event;
  // Declined: the closing brace is not in the buffer yet.
  const std::string cut =
      R"js("ph": "X", "ts": 1, "args": {"correlation": 1})js";
  EXPECT_EQ(ScanBufferedKinetoEvent(cut, &event), 0u);
  // A number at the very end of the buffer may go on.
  EXPECT_EQ(ScanBufferedKinetoEvent(R"js("ts": 12)js", &event), 0u);
  const std::string whole = cut + "} ,";
  EXPECT_EQ(ScanBufferedKinetoEvent(whole, &event), cut.size() + 1);
  EXPECT_EQ(event.ts_ns, 1000);
  EXPECT_EQ(event.correlation.value, 1);
}

TEST(KinetoEventScannerTest, MalformedEventsGiveTheTokenizersErrors) {
  // Every deletion of one byte and several insertions at every position of
  // each event, inside a document with a good event before and after.
  const std::string before = kEvents[1];
  const std::string after = kEvents[12];
  size_t variants = 0;
  size_t failures = 0;
  for (const char* text : kEvents) {
    const std::string event = text;
    for (size_t i = 0; i < event.size(); ++i) {
      std::vector<std::string> mutated;
      mutated.push_back(event.substr(0, i) + event.substr(i + 1));
      for (const char* insert : {"\"", "\\", "}", "]", ",", ":", "1", "-", "e",
                                 ".", "x", " ", "{", "[", "\x01"}) {
        mutated.push_back(event.substr(0, i) + insert + event.substr(i));
      }
      for (const std::string& m : mutated) {
        const std::string json = Document({before, m, after});
        const Outcome whole = ReadInOneBuffer(json);
        ASSERT_EQ(whole, ReadByteByByte(json)) << json;
        ++variants;
        failures += whole.failed ? 1 : 0;
      }
    }
  }
  // Most mutations break the JSON; both readings agree on every error.
  EXPECT_GT(variants, 30000u);
  EXPECT_GT(failures, 15000u);
}

TEST(KinetoEventScannerTest, TruncatedLastEventIsReportedLikeTheTokenizer) {
  const std::vector<std::string> events = {kEvents[0], kEvents[2], kEvents[5]};
  const std::string json = Document(events);
  const size_t last = json.rfind(kEvents[5]);
  // Every prefix that stops before the last event's closing brace.
  for (size_t cut = last; cut < json.size() - 2; ++cut) {
    const std::string prefix = json.substr(0, cut);
    const Outcome whole = ReadInOneBuffer(prefix);
    EXPECT_TRUE(whole.truncated) << prefix;
    EXPECT_EQ(whole.events.size(), 2u) << prefix;
    EXPECT_EQ(whole.offset, prefix.size());
    ASSERT_EQ(whole, ReadByteByByte(prefix)) << prefix;
  }
}

TEST(KinetoEventScannerTest, EventsSplitAtEveryBufferBorderReadTheSame) {
  // A read that ends at every byte of the second and third events: the
  // event that straddles the border goes token by token, the others are
  // scanned, and all read as in one buffer.
  std::vector<std::string> events = {kEvents[1], kEvents[0], kEvents[4],
                                     kEvents[6]};
  const std::string json = Document(events);
  const Outcome whole = ReadInOneBuffer(json);
  ASSERT_FALSE(whole.failed);
  const size_t from = json.find(kEvents[0]);
  const size_t to = json.find(kEvents[6]);
  for (size_t split = from; split <= to; ++split) {
    SplitByteSource source(json, split);
    ASSERT_EQ(ReadEvents(&source), whole) << "split at " << split;
  }
}

TEST(KinetoEventScannerTest, EveryEventOfTheSharedTracesReadsTheSame) {
  const std::vector<std::string> traces = {
      "hta_ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
      "tracelens_h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
      "hta_critical_path/alexnet/"
      "benchmark_result_2869224_1695835535_trace.json.gz",
  };
  size_t checked = 0;
  for (const std::string& relative : traces) {
    const std::string path = kineto_test::SharedTrace(relative);
    if (path.empty()) {
      GTEST_SKIP() << "shared traces not found (../shared/traces)";
    }
    const std::string json =
        kineto_test::Gunzip(kineto_test::ReadFileBytes(path));
    // The traceEvents array of the document.
    const size_t begin = json.find('[', json.find("\"traceEvents\""));
    ASSERT_NE(begin, std::string::npos);
    StringByteSource whole_source(json.substr(begin));
    StringByteSource byte_source(json.substr(begin), 1);
    JsonTokenizer whole(&whole_source);
    JsonTokenizer bytes(&byte_source);
    ASSERT_EQ(whole.Next(), JsonToken::kArrayBegin);
    ASSERT_EQ(bytes.Next(), JsonToken::kArrayBegin);
    KinetoEvent a;
    KinetoEvent b;
    KeptStrings kept_a;
    KeptStrings kept_b;
    for (;;) {
      const JsonToken t = whole.Next();
      ASSERT_EQ(bytes.Next(), t);
      if (t != JsonToken::kObjectBegin) break;
      kept_a.Clear();
      kept_b.Clear();
      ASSERT_TRUE(ReadKinetoEvent(whole, &a, &kept_a)) << whole.error();
      ASSERT_TRUE(ReadKinetoEvent(bytes, &b, &kept_b)) << bytes.error();
      ASSERT_EQ(Describe(a), Describe(b)) << relative;
      ASSERT_EQ(whole.offset(), bytes.offset());
      ++checked;
    }
    EXPECT_GT(EventsScanned(json.substr(begin)), 0u);
  }
  // ResNet 66,000 JSON events, Qwen and AlexNet a few thousand more.
  EXPECT_GT(checked, 70000u);
}

}  // namespace
}  // namespace feedprof::kineto
