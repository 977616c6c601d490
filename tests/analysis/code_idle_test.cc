// GPU idle time by code location: each thread's Python code over time
// (CodeSpans, from python_function ranges) and the host-wait part of every
// idle gap given to where the launching thread was, with the numbers worked
// out by hand; then the same on the TraceLens traces, checked against the
// report's own idle split.
#include <numeric>
#include <string>
#include <vector>

#include "analysis/code_spans.h"
#include "feedprof/analysis.h"
#include "feedprof/kineto_reader.h"
#include "feedprof/report.h"
#include "gtest/gtest.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using analysis::CodeSpans;
using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

constexpr RangeSource kPython = RangeSource::kPythonFunction;

// Spans of thread (kPid, kTid) as (start µs, end µs, location) triples.
struct Span {
  double start_us;
  double end_us;
  std::string location;
  bool operator==(const Span&) const = default;
};
std::vector<Span> SpansOf(const Timeline& t) {
  std::vector<uint32_t> python;
  for (uint32_t i = 0; i < t.ranges.size(); ++i) {
    if (t.ranges[i].source == kPython) python.push_back(i);
  }
  const CodeSpans spans = CodeSpans::Build(t, python);
  // Each microsecond's location, runs of the same one joined.
  std::vector<Span> out;
  for (double us = 0; us < 200; us += 1) {
    std::string at;
    spans.ForEachOverlap(
        TimelineBuilder::kPid, TimelineBuilder::kTid, Us(us), Us(us + 1),
        [&](uint32_t location, TimeNs) { at = spans.locations()[location]; });
    if (at.empty()) continue;
    if (!out.empty() && out.back().location == at && out.back().end_us == us) {
      out.back().end_us = us + 1;
    } else {
      out.push_back({us, us + 1, at});
    }
  }
  return out;
}

TEST(CodeSpans, TheInnermostUserFrameAtEachMoment) {
  TimelineBuilder b;
  // main.py > train.py(10) step > torch/nn/module.py forward >
  // <built-in>; then a second user line; a gap with no Python at all.
  b.Range("main.py(1): <module>", 0, 100, kPython);
  b.Range("train.py(10): step", 10, 60, kPython);
  b.Range("torch/nn/modules/module.py(1501): _call_impl", 20, 40, kPython);
  b.Range("<built-in method item of Tensor object>", 25, 30, kPython);
  b.Range("train.py(12): log", 70, 80, kPython);
  b.Range("other.py(3): later", 150, 160, kPython);
  // Not Python: no effect.
  b.Range("step#1", 0, 200, RangeSource::kNvtx);
  Timeline t = b.Take();
  EXPECT_EQ(SpansOf(t), (std::vector<Span>{
                            {0, 10, "<module> (main.py:1)"},
                            {10, 60, "step (train.py:10)"},
                            {60, 70, "<module> (main.py:1)"},
                            {70, 80, "log (train.py:12)"},
                            {80, 100, "<module> (main.py:1)"},
                            {150, 160, "later (other.py:3)"},
                        }));
}

TEST(CodeSpans, OnlyFrameworkFramesGiveTheInnermost) {
  TimelineBuilder b;
  b.Range("threading.py(1032): _bootstrap", 0, 50, kPython);
  b.Range("torch/cuda/__init__.py(975): synchronize", 10, 20, kPython);
  Timeline t = b.Take();
  EXPECT_EQ(SpansOf(t),
            (std::vector<Span>{
                {0, 10, "_bootstrap (threading.py:1032)"},
                {10, 20, "synchronize (torch/cuda/__init__.py:975)"},
                {20, 50, "_bootstrap (threading.py:1032)"},
            }));
}

TEST(CodeSpans, OverlappingSiblingsStillGiveOrderedSpans) {
  TimelineBuilder b;
  // Malformed: b starts inside a and ends after it (no proper nesting).
  b.Range("a.py(1): a", 0, 30, kPython);
  b.Range("b.py(2): b", 20, 50, kPython);
  Timeline t = b.Take();
  const std::vector<Span> spans = SpansOf(t);
  ASSERT_FALSE(spans.empty());
  for (size_t i = 1; i < spans.size(); ++i) {
    EXPECT_LE(spans[i - 1].end_us, spans[i].start_us);
  }
  EXPECT_EQ(spans.front(), (Span{0, 20, "a (a.py:1)"}));
  EXPECT_EQ(spans.back().end_us, 50);
}

// Two gaps on one GPU. The first, [10, 41] (kernel 1 ends at 10, the next
// launch starts at 40): 30 µs of host wait, 20 in data.py(5) load and 10 in
// train.py(9) step, then 1 µs of launch overhead. The second, [50, 60]
// (launch at 55): 5 µs of host wait in step, 5 µs of launch overhead.
Timeline TwoGaps() {
  TimelineBuilder b;
  b.Range("train.py(9): step", 0, 100, kPython);
  b.Range("data.py(5): load", 10, 30, kPython);
  b.Launch(0, 2, 5, 10);
  b.Launch(40, 41, 41, 50);
  b.Launch(55, 60, 60, 70);
  return b.Take();
}

TEST(IdleByCode, HostWaitGoesToWhereTheLaunchingThreadWas) {
  const Report r = MustAnalyze(TwoGaps());
  const IdleByCode& c = r.idle_by_code;
  ASSERT_TRUE(c.available);
  EXPECT_EQ(c.idle_ns, Us(31 + 10));
  EXPECT_EQ(c.host_wait_ns, Us(30 + 5));
  EXPECT_EQ(c.located_ns, Us(35));
  ASSERT_EQ(c.top.size(), 2u);
  EXPECT_EQ(c.top[0].location, "load (data.py:5)");
  EXPECT_EQ(c.top[0].idle_ns, Us(20));
  EXPECT_DOUBLE_EQ(c.top[0].idle_share, 20.0 / 41.0);
  EXPECT_EQ(c.top[1].location, "step (train.py:9)");
  EXPECT_EQ(c.top[1].idle_ns, Us(10 + 5));
  // JSON and text show the same fields.
  const std::string json = WriteJsonReport(r);
  EXPECT_NE(json.find("\"location\": \"load (data.py:5)\""), std::string::npos)
      << json;
  const std::string text = WriteTextReport(r, {});
  EXPECT_NE(text.find("GPU idle by code location"), std::string::npos);
  EXPECT_NE(text.find("load (data.py:5)"), std::string::npos);
}

TEST(IdleByCode, NotAvailableWithoutPythonFunctions) {
  TimelineBuilder b;
  b.Launch(0, 2, 5, 10);
  b.Launch(40, 41, 41, 50);
  const Report r = MustAnalyze(b.Take());
  EXPECT_FALSE(r.idle_by_code.available);
  EXPECT_TRUE(r.idle_by_code.top.empty());
  EXPECT_NE(WriteJsonReport(r).find("\"idle_by_code\": null"),
            std::string::npos);
  EXPECT_EQ(WriteTextReport(r, {}).find("GPU idle by code"), std::string::npos);
}

// On the TraceLens traces (with_stack=True): every runtime call came from
// Python, so all the host-wait idle has a location; it is the report's own
// host-wait idle (the host_wait_* causes of its devices); the rows add up to
// no more than it, largest first.
void ExpectIdleByCodeAddsUp(const std::string& name) {
  const std::string path = std::string(FEEDPROF_SHARED_TRACES_DIR) +
                           "/tracelens_h100/" + name + ".json.gz";
  absl::StatusOr<Timeline> t = ReadKinetoTrace(path);
  if (!t.ok()) GTEST_SKIP() << "shared trace not readable: " << t.status();
  const Report r = MustAnalyze(*t);
  const IdleByCode& c = r.idle_by_code;
  ASSERT_TRUE(c.available);
  TimeNs host_wait = 0, idle = 0;
  for (const DeviceReport& d : r.devices) {
    idle += d.idle_ns;
    for (IdleCause cause :
         {IdleCause::kHostWaitSync, IdleCause::kHostWaitCudaApi,
          IdleCause::kHostWaitOnCpu, IdleCause::kHostWaitOffCpuIo,
          IdleCause::kHostWaitOffCpuWait, IdleCause::kHostWaitUnknown}) {
      host_wait += d.idle_by_cause[cause];
    }
  }
  EXPECT_EQ(c.idle_ns, idle);
  EXPECT_EQ(c.host_wait_ns, host_wait);
  EXPECT_EQ(c.located_ns, c.host_wait_ns);
  ASSERT_FALSE(c.top.empty());
  TimeNs rows = 0;
  for (size_t i = 0; i < c.top.size(); ++i) {
    rows += c.top[i].idle_ns;
    if (i > 0) {
      EXPECT_GE(c.top[i - 1].idle_ns, c.top[i].idle_ns);
    }
    // The user's lines: the model code, not torch/.
    EXPECT_EQ(c.top[i].location.find("torch/"), std::string::npos)
        << c.top[i].location;
  }
  EXPECT_LE(rows, c.located_ns);
}

TEST(IdleByCode, TraceLensBertAddsUp) {
  ExpectIdleByCodeAddsUp("gaunernst_bert-small-uncased__1016001");
}

TEST(IdleByCode, TraceLensQwenAddsUp) {
  ExpectIdleByCodeAddsUp("Qwen_Qwen1.5-0.5B-Chat__1016005");
}

}  // namespace
}  // namespace feedprof
