// The batched, multi-threaded way of reading traceEvents against the serial
// way, on inputs that force the batched path: small tokenizer buffers and
// batches so that events straddle every buffer and batch border, one to
// three event threads, and every kind of element the splitter leaves to the
// tokenizer (non-objects, long and deep events, escapes the scanner
// declines, the closing ']'). Both ways must give the same timeline, the
// same error with the same byte offset, and the same salvage of a truncated
// or corrupt file.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "feedprof/kineto_reader.h"
#include "gtest/gtest.h"
#include "kineto/kineto_read_options.h"
#include "kineto/trace_events_array.h"
#include "tests/kineto/kineto_test_files.h"

namespace feedprof::kineto {
namespace {

using kineto_test::Gzip;
using kineto_test::SharedTrace;
using kineto_test::WriteTempFile;

// Every field the mapper writes, in order.
std::string Describe(const Timeline& t) {
  std::string out;
  auto name = [&](StringId id) { return std::string(t.strings.Get(id)); };
  for (const Process& p : t.processes) {
    absl::StrAppend(&out, "process ", p.pid, " ", p.rank, " ", p.world_size,
                    " ", p.command, " ", p.start, " ", p.end, "\n");
  }
  for (const Thread& th : t.threads) {
    absl::StrAppend(&out, "thread ", th.pid, " ", th.tid, " ", th.name, " ",
                    th.is_main, "\n");
  }
  for (const Device& d : t.devices) {
    absl::StrAppend(&out, "device ", d.id, " ", d.pid, " ", d.name, " ",
                    d.sm_count, " ", d.memory_bytes, "\n");
  }
  for (const GpuOp& o : t.gpu_ops) {
    absl::StrAppend(
        &out, "op ", o.start, " ", o.end, " ", o.correlation, " ", o.bytes, " ",
        o.stream, " ", o.pid, " ", o.device, " ", name(o.name), " ",
        static_cast<int>(o.kind), " ", static_cast<int>(o.copy_kind), " ",
        static_cast<int>(o.src_kind), " ", static_cast<int>(o.dst_kind), " ",
        o.launch, ":", t.LaunchOf(o).grid[0], ",", t.LaunchOf(o).grid[1], ",",
        t.LaunchOf(o).grid[2], " ", t.LaunchOf(o).block[0], ",",
        t.LaunchOf(o).block[1], ",", t.LaunchOf(o).block[2], "\n");
  }
  for (const ApiCall& c : t.api_calls) {
    absl::StrAppend(&out, "call ", c.start, " ", c.end, " ", c.correlation, " ",
                    c.bytes, " ", c.pid, " ", c.tid, " ", name(c.name), " ",
                    static_cast<int>(c.domain), "\n");
  }
  for (const SyncRecord& s : t.syncs) {
    absl::StrAppend(&out, "sync ", s.start, " ", s.end, " ", s.correlation, " ",
                    s.stream, " ", s.pid, " ", s.tid, " ", s.device, " ",
                    static_cast<int>(s.type), "\n");
  }
  for (const Range& r : t.ranges) {
    absl::StrAppend(&out, "range ", r.start, " ", r.end, " ", r.pid, " ", r.tid,
                    " ", name(r.name), " ", name(r.domain), " ", r.depth, " ",
                    static_cast<int>(r.source), "\n");
  }
  for (const Mark& m : t.marks) {
    absl::StrAppend(&out, "mark ", m.ts, " ", m.pid, " ", m.tid, " ",
                    name(m.name), "\n");
  }
  const Availability& a = t.available;
  absl::StrAppend(&out, "available ", a.api_calls, a.correlation,
                  a.sync_records, a.ranges, "\n");
  for (const std::string& w : t.warnings)
    absl::StrAppend(&out, "warn ", w, "\n");
  return out;
}

std::string Outcome(const absl::StatusOr<Timeline>& read) {
  if (!read.ok()) return absl::StrCat("error ", read.status().ToString());
  return Describe(*read);
}

KinetoReadOptions Serial() {
  KinetoReadOptions o;
  o.event_threads = 0;
  return o;
}

KinetoReadOptions Batched(int threads, size_t batch_bytes,
                          size_t buffer_bytes) {
  KinetoReadOptions o;
  o.event_threads = threads;
  o.threads_from_file_bytes = 0;
  o.batch_bytes = batch_bytes;
  o.buffer_bytes = buffer_bytes;
  return o;
}

// The ways of reading the batched path is tested with: tiny and normal
// batches and buffers, one to three threads.
std::vector<KinetoReadOptions> BatchedVariants() {
  return {Batched(1, 1, 256),         Batched(2, 700, 4096),
          Batched(3, 4096, 1024),     Batched(1, 64 * 1024, 1 << 20),
          Batched(3, 300, 64 * 1024), Batched(2, 512 * 1024, 1 << 20)};
}

TEST(KinetoBatchBytesTest, BatchesGrowWithTheTextReadUpToTheLargest) {
  TraceEventsBatching batching;  // from 64 KiB up to 256 KiB
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  EXPECT_EQ(BatchBytesAt(batching, 0), 64 * 1024u);
  EXPECT_EQ(BatchBytesAt(batching, 64 * kMiB), 64 * 1024u);
  EXPECT_EQ(BatchBytesAt(batching, 100 * kMiB), 100 * 1024u);
  EXPECT_EQ(BatchBytesAt(batching, 256 * kMiB), 256 * 1024u);
  EXPECT_EQ(BatchBytesAt(batching, 8192 * kMiB), 256 * 1024u);
  // A start above the largest is kept whole; tiny batches stay tiny until
  // the text read is 1024 times their size.
  batching.batch_bytes = 512 * 1024;
  EXPECT_EQ(BatchBytesAt(batching, 8192 * kMiB), 512 * 1024u);
  batching.batch_bytes = 1;
  EXPECT_EQ(BatchBytesAt(batching, 1023), 1u);
  EXPECT_EQ(BatchBytesAt(batching, 300 * 1024), 300u);
}

// The object elements of a trace: `pairs` launches with their kernels and
// the kinds of events that take the tokenizer's way inside a batch (escapes
// in decoded strings) or outside one (long and deep events), plus UTF-8
// names and brackets and quotes inside strings.
std::vector<std::string> TraceObjects(int pairs) {
  std::vector<std::string> objects = {
      R"({"name": "process_name", "ph": "M", "ts": 1, "pid": 7, "tid": 0,
 "args": {"name": "python3 \u00e9"}})",
      R"({"name": "process_labels", "ph": "M", "ts": 1, "pid": 7, "tid": 0,
"args": {"labels": "CPU"}})",
      R"({"name": "thread_name", "ph": "M", "ts": 1, "pid": 7, "tid": 7,
"args": {"name": "main \"thread\""}})",
  };
  for (int i = 0; i < pairs; ++i) {
    const int64_t ts = 1000 + int64_t{i} * 10;
    const int corr = 100 + i;
    std::string op_name = absl::StrCat("op_", i, " \xe5\x90\x8d\xc3\xa9");
    if (i % 7 == 3) absl::StrAppend(&op_name, " \\\"quoted\\\" \\\\ [x]");
    objects.push_back(absl::StrCat(
        R"({"ph": "X", "cat": "cpu_op", "name": ")", op_name,
        R"(", "pid": 7, "tid": 7, "ts": )", ts, R"(, "dur": 8.5,
          "args": {"External id": )",
        i,
        R"(, "Input Dims": [[1, 2], []], "Concrete Inputs": ["}]\"[{", ""]}})"));
    objects.push_back(absl::StrCat(
        R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": )",
        ts + 1, R"(, "dur": 2, "args": {"correlation": )", corr, "}}"));
    std::string args = absl::StrCat(
        R"({"device": 0, "stream": )", 7 + i % 3, R"(, "correlation": )", corr,
        R"(, "grid": [)", i % 50 + 1, R"(, 1, 1], "block": [128, 1, 1])");
    if (i % 11 == 5) {  // longer than the small buffers' split limit
      absl::StrAppend(&args, R"(, "note": ")", std::string(3000, 'n'), "\"");
    }
    if (i % 13 == 6) {  // deeper than the splitter takes
      absl::StrAppend(&args, R"(, "deep": )", std::string(40, '['),
                      std::string(40, ']'));
    }
    objects.push_back(
        absl::StrCat(R"({"ph": "X", "cat": "kernel", "name": "kernel_)", i % 5,
                     R"(", "pid": 0, "tid": 7, "ts": )", ts + 3,
                     R"(, "dur": 4, "args": )", args, "}}"));
  }
  objects.push_back(
      R"({"ph": "i", "cat": "user_annotation", "name": "mark", "pid": 7,
"tid": 7, "ts": 5, "s": "t"})");
  return objects;
}

// The document around `objects`, with non-object elements and odd
// whitespace between some of them.
std::string TraceDocument(const std::vector<std::string>& objects) {
  std::string doc = R"({"schemaVersion": 1, "traceEvents": [)";
  for (size_t i = 0; i < objects.size(); ++i) {
    if (i > 0) doc += i % 5 == 0 ? " ,\n\t" : ",";
    if (i % 97 == 50) doc += "[1, {\"x\": 2}], 3, \"s\", null, ";
    doc += objects[i];
  }
  doc += R"(],
  "deviceProperties": [{"id": 0, "name": "GPU \"zero\"", "numSms": 132,
                        "totalGlobalMem": 85029158912}],
  "distributedInfo": {"rank": 2, "world_size": 4}})";
  return doc;
}

// Reads `path` serially and every batched way; all must agree. Returns
// the serial outcome.
absl::StatusOr<Timeline> ReadEveryWay(const std::string& path) {
  auto serial = ReadKinetoTraceWithOptions(path, Serial());
  const std::string expected = Outcome(serial);
  for (const KinetoReadOptions& o : BatchedVariants()) {
    EXPECT_EQ(Outcome(ReadKinetoTraceWithOptions(path, o)), expected)
        << path << ": " << o.event_threads << " threads, batches of "
        << o.batch_bytes << ", buffer " << o.buffer_bytes;
  }
  return serial;
}

constexpr int kPairs = 600;
// Objects: 3 metadata, 3 per pair, 1 mark.
constexpr size_t kObjects = 3 + 3 * kPairs + 1;

TEST(KinetoParallelReaderTest, SameTimelineAsTheSerialPath) {
  const std::vector<std::string> objects = TraceObjects(kPairs);
  ASSERT_EQ(objects.size(), kObjects);
  const std::string doc = TraceDocument(objects);
  auto read = ReadEveryWay(WriteTempFile("parallel.json", doc));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->gpu_ops.size(), size_t{kPairs});
  EXPECT_EQ(read->api_calls.size(), size_t{kPairs});
  EXPECT_EQ(read->ranges.size(), size_t{kPairs});
  EXPECT_EQ(read->marks.size(), 1u);
  ASSERT_EQ(read->processes.size(), 1u);
  EXPECT_EQ(read->processes[0].command, "python3 \xc3\xa9");
  EXPECT_EQ(read->processes[0].rank, 2);
  EXPECT_EQ(read->processes[0].world_size, 4);
  ASSERT_EQ(read->devices.size(), 1u);
  EXPECT_EQ(read->devices[0].name, "GPU \"zero\"");
  EXPECT_EQ(read->devices[0].sm_count, 132u);
  // Escaped names decoded, multi-byte UTF-8 kept whole.
  EXPECT_EQ(read->strings.Get(read->ranges[3].name),
            "op_3 \xe5\x90\x8d\xc3\xa9 \"quoted\" \\ [x]");
  EXPECT_EQ(read->strings.Get(read->ranges[4].name),
            "op_4 \xe5\x90\x8d\xc3\xa9");
  // The long and the deep kernels were read whole too.
  EXPECT_EQ(read->LaunchOf(read->gpu_ops[5]).grid[0], 6u);
  EXPECT_EQ(read->LaunchOf(read->gpu_ops[6]).grid[0], 7u);
  EXPECT_EQ(read->LaunchOf(read->gpu_ops[599]).grid[0], 50u);
  EXPECT_EQ(read->gpu_ops[599].correlation, 699u);
  // And through gzip.
  auto gz = ReadEveryWay(WriteTempFile("parallel.json.gz", Gzip(doc)));
  ASSERT_TRUE(gz.ok()) << gz.status();
  EXPECT_EQ(Describe(*gz), Describe(*read));
}

// Where object `index` starts in `doc` (TraceDocument's layout).
size_t ObjectOffset(const std::string& doc,
                    const std::vector<std::string>& objects, size_t index) {
  size_t at = 0;
  for (size_t i = 0; i <= index; ++i) {
    at = doc.find(objects[i], at);
    if (i < index) at += objects[i].size();
  }
  return at;
}

TEST(KinetoParallelReaderTest, AnErrorInTheMiddleIsTheSerialError) {
  const std::vector<std::string> objects = TraceObjects(kPairs);
  const std::string doc = TraceDocument(objects);
  struct Damage {
    std::string what;
    size_t object;
    std::string find;      // in that object
    std::string replace;   // what replaces it
    size_t error_after;    // the error's byte after the first changed one
    std::string expected;  // the message after "at byte N: "
  };
  // Objects 3 + 3i, 4 + 3i and 5 + 3i are pair i's cpu_op, launch and
  // kernel.
  const std::vector<Damage> damages = {
      {"a stray byte after a value", 902, R"("dur": 4)", R"("dur": 4x)", 0,
       "expected ',' or '}', found 'x'"},
      {"an invalid escape the scanner leaves to the tokenizer", 999,
       "cpu_op\", \"name\": \"op_", "cpu_op\", \"name\": \"\\qop_", 0,
       "invalid escape \\q in a string"},
      {"a malformed number", 1201, R"("ts": )", R"("ts": -.)", 1,
       "malformed number: expected a digit"},
      {"a closing bracket for a value", 700, R"("correlation": )",
       R"("correlation": ])", 0, "expected a value, found ']'"},
      // Mismatched brackets: the splitter stops there and leaves the rest
      // to the tokenizer, which finds them where the serial read does.
      {"an array closed by '}'", 704, R"(, 1, 1], "block")",
       R"(, 1, 1}, "block")", 0, "expected ',' or ']', found '}'"},
      {"an event closed by ']'", 802, "}}", "}]", 0,
       "expected ',' or '}', found ']'"},
  };
  for (const Damage& d : damages) {
    const size_t object_at = ObjectOffset(doc, objects, d.object);
    const size_t found = doc.find(d.find, object_at);
    ASSERT_LT(found, object_at + objects[d.object].size()) << d.what;
    std::string bad = doc;
    bad.replace(found, d.find.size(), d.replace);
    size_t at = found;
    while (bad[at] == doc[at]) ++at;
    at += d.error_after;
    const std::string path = WriteTempFile("damaged.json", bad);
    auto read = ReadEveryWay(path);
    ASSERT_FALSE(read.ok()) << d.what;
    EXPECT_EQ(
        read.status().message(),
        absl::StrCat(path, ": malformed JSON at byte ", at, ": ", d.expected,
                     "; the file is damaged or is not a JSON trace"))
        << d.what;
  }
  // A missing comma between two events in the middle.
  const size_t second = ObjectOffset(doc, objects, 1501);
  std::string bad = doc;
  ASSERT_EQ(bad[second - 1], ',');
  bad[second - 1] = ' ';
  const std::string path = WriteTempFile("no_comma.json", bad);
  auto read = ReadEveryWay(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(),
            absl::StrCat(path, ": malformed JSON at byte ", second,
                         ": expected ',' or ']', found '{'; the file is "
                         "damaged or is not a JSON trace"));
}

TEST(KinetoParallelReaderTest, ATruncatedLastEventKeepsTheEventsBefore) {
  const std::vector<std::string> objects = TraceObjects(kPairs);
  const std::string doc = TraceDocument(objects);
  // Cuts inside object 1234 (pair 410's launch) at several depths: the
  // 1234 objects before it are kept.
  const size_t object_at = ObjectOffset(doc, objects, 1234);
  for (const size_t into : {size_t{1}, size_t{30}, objects[1234].size() - 1}) {
    const size_t cut = object_at + into;
    const std::string path =
        WriteTempFile("truncated.json", doc.substr(0, cut));
    auto read = ReadEveryWay(path);
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_EQ(read->warnings.size(), 1u);
    EXPECT_EQ(read->warnings[0],
              absl::StrCat(path, ": JSON ends early at byte ", cut,
                           " (truncated?); analysed the 1234 events read "
                           "before it"));
    EXPECT_EQ(read->ranges.size(), 411u);
    EXPECT_EQ(read->api_calls.size(), 410u);
    EXPECT_EQ(read->gpu_ops.size(), 410u);
  }
  // Cut right after the last event's '}': the array never closes.
  const size_t last_end =
      ObjectOffset(doc, objects, kObjects - 1) + objects.back().size();
  const std::string path =
      WriteTempFile("unclosed.json", doc.substr(0, last_end));
  auto read = ReadEveryWay(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->warnings.size(), 1u);
  EXPECT_EQ(read->warnings[0],
            absl::StrCat(path, ": JSON ends early at byte ", last_end,
                         " (truncated?); analysed the ", kObjects,
                         " events read before it"));
}

TEST(KinetoParallelReaderTest, TruncatedAndCorruptGzipAsTheSerialPath) {
  const std::string gz = Gzip(TraceDocument(TraceObjects(kPairs)));
  auto cut = ReadEveryWay(
      WriteTempFile("cut.json.gz", gz.substr(0, gz.size() * 2 / 3)));
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_EQ(cut->warnings.size(), 2u);
  EXPECT_GT(cut->gpu_ops.size(), 100u);
  EXPECT_LT(cut->gpu_ops.size(), size_t{kPairs});
  int salvaged = 0;
  for (size_t at = gz.size() / 5; at < gz.size() - 20; at += gz.size() / 7) {
    std::string bad = gz;
    bad[at] = static_cast<char>(bad[at] ^ 0x5A);
    bad[at + 9] = static_cast<char>(bad[at + 9] ^ 0xA5);
    auto read = ReadEveryWay(WriteTempFile("corrupt.json.gz", bad));
    if (read.ok()) ++salvaged;
  }
  EXPECT_GT(salvaged, 0);
}

TEST(KinetoParallelReaderTest, SharedRealTracesAsTheSerialPath) {
  const std::vector<std::string> traces = {
      "hta_critical_path/alexnet/benchmark_result_2869224_1695835535_trace."
      "json.gz",
      "hta_critical_path/cuda_event_sync/event_sync_trace.json.gz",
      "hta_critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz",
      "hta_critical_path/simple_add/benchmark_result_493459_1694039959_"
      "trace.json.gz",
      "hta_cuda_graphs/rank0.json.gz",
      "hta_ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
      "tracelens_h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
      "tracelens_h100/gaunernst_bert-small-uncased__1016001.json.gz",
  };
  int read_count = 0;
  for (const std::string& relative : traces) {
    const std::string path = SharedTrace(relative);
    if (path.empty()) continue;
    auto serial = ReadKinetoTraceWithOptions(path, Serial());
    ASSERT_TRUE(serial.ok()) << serial.status();
    EXPECT_GT(serial->gpu_ops.size(), 0u) << relative;
    const std::string expected = Describe(*serial);
    for (const KinetoReadOptions& o :
         {Batched(2, 4096, 64 * 1024), Batched(3, 512 * 1024, 1 << 20)}) {
      EXPECT_EQ(Outcome(ReadKinetoTraceWithOptions(path, o)), expected)
          << relative;
    }
    // ReadKinetoTrace's own choice (batched on more than one core).
    EXPECT_EQ(Outcome(ReadKinetoTrace(path)), expected) << relative;
    ++read_count;
  }
  if (read_count == 0) {
    GTEST_SKIP() << "no shared Kineto trace found under ../shared/traces";
  }
  EXPECT_EQ(read_count, 8);
}

}  // namespace
}  // namespace feedprof::kineto
