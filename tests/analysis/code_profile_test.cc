// Where each thread role spent its time by stack (HostCode): self, total
// and user-line times and folded stacks worked out by hand for nested
// Python, operator and CUDA-call events and for sampled stacks; roles; the
// fallback without stacks; and, on the TraceLens traces, every location's
// total checked against the union of its events' intervals computed here.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "feedprof/analysis.h"
#include "feedprof/kineto_reader.h"
#include "feedprof/report.h"
#include "gtest/gtest.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"
#include "timeline/python_frame_name.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

constexpr RangeSource kPython = RangeSource::kPythonFunction;
constexpr RangeSource kOp = RangeSource::kCpuOp;
constexpr int32_t kOtherTid = TimelineBuilder::kTid + 1;
constexpr int32_t kLoaderTid = TimelineBuilder::kTid + 2;

const RoleCodeProfile* RoleOf(const HostCode& c, ThreadRole role) {
  for (const RoleCodeProfile& r : c.roles) {
    if (r.role == role) return &r;
  }
  return nullptr;
}

const CodeLocationTime* Row(const std::vector<CodeLocationTime>& rows,
                            const std::string& location) {
  for (const CodeLocationTime& r : rows) {
    if (r.location == location) return &r;
  }
  return nullptr;
}

std::map<std::string, TimeNs> Folded(const HostCode& code,
                                     const RoleCodeProfile& role) {
  std::map<std::string, TimeNs> out;
  for (const FoldedStack& s : role.stacks) {
    std::vector<std::string> labels;
    for (const uint32_t f : s.frames) labels.push_back(code.frames[f].label);
    out[absl::StrJoin(labels, ";")] += s.self_ns;
  }
  return out;
}

// The launching thread: main.py <module> [0, 100] > step [10, 60] >
// torch's _call_impl [20, 40] > aten::linear [22, 38] > cudaLaunchKernel
// [25, 30]; step recurses [45, 55]; log [70, 80].
Timeline Nested() {
  TimelineBuilder b;
  b.Range("main.py(1): <module>", 0, 100, kPython);
  b.Range("train.py(10): step", 10, 60, kPython);
  b.Range("torch/nn/modules/module.py(1501): _call_impl", 20, 40, kPython);
  b.Range("aten::linear", 22, 38, kOp);
  b.Launch(25, 30, 31, 90);
  b.Range("train.py(10): step", 45, 55, kPython);
  b.Range("train.py(12): log", 70, 80, kPython);
  // A thread that launches nothing, and the pin-memory thread.
  b.Range("util.py(3): poll", 0, 50, kPython, TimelineBuilder::kPid, kOtherTid);
  b.Range("torch/utils/data/_utils/pin_memory.py(20): _pin_memory_loop", 0, 30,
          kPython, TimelineBuilder::kPid, kLoaderTid);
  Thread loader;
  loader.pid = TimelineBuilder::kPid;
  loader.tid = kLoaderTid;
  loader.name = "pt_data_pin";
  b.timeline().threads.push_back(loader);
  return b.Take();
}

TEST(HostCode, SelfTotalAndUserTimesOfNestedEvents) {
  const Report r = MustAnalyze(Nested());
  const HostCode& c = r.host_code;
  ASSERT_TRUE(c.available);
  EXPECT_EQ(c.basis, CodeProfileBasis::kStackTimeline);
  const RoleCodeProfile* launching = RoleOf(c, ThreadRole::kLaunching);
  ASSERT_NE(launching, nullptr);
  EXPECT_EQ(launching->threads, 1u);
  EXPECT_EQ(launching->located_ns, Us(100));
  struct Expect {
    std::string location;
    double self_us, total_us;
    bool user;
  };
  // By self time, then location.
  const std::vector<Expect> top = {
      {"<module> (main.py:1)", 40, 100, true},
      {"step (train.py:10)", 30, 50, true},  // recursion counted once
      {"aten::linear", 11, 16, false},
      {"log (train.py:12)", 10, 10, true},
      {"cudaLaunchKernel", 5, 5, false},
      {"_call_impl (torch/nn/modules/module.py:1501)", 4, 20, false},
  };
  ASSERT_EQ(launching->top.size(), top.size());
  for (size_t i = 0; i < top.size(); ++i) {
    SCOPED_TRACE(top[i].location);
    EXPECT_EQ(launching->top[i].location, top[i].location);
    EXPECT_EQ(launching->top[i].self_ns, Us(top[i].self_us));
    EXPECT_EQ(launching->top[i].total_ns, Us(top[i].total_us));
    EXPECT_EQ(launching->top[i].user_code, top[i].user);
  }
  // The innermost user line at each moment: torch's frames, the operator
  // and the CUDA call go to step, which called them.
  ASSERT_EQ(launching->user_lines.size(), 3u);
  EXPECT_EQ(launching->user_lines[0].location, "step (train.py:10)");
  EXPECT_EQ(launching->user_lines[0].self_ns, Us(30 + 4 + 11 + 5));
  EXPECT_EQ(launching->user_lines[1].location, "<module> (main.py:1)");
  EXPECT_EQ(launching->user_lines[1].self_ns, Us(40));
  EXPECT_EQ(launching->user_lines[2].self_ns, Us(10));

  const std::string m = "<module> (main.py:1)", s = "step (train.py:10)",
                    ci = "_call_impl (torch/nn/modules/module.py:1501)";
  EXPECT_EQ(
      Folded(c, *launching),
      (std::map<std::string, TimeNs>{
          {m, Us(40)},
          {m + ";" + s, Us(20)},
          {m + ";" + s + ";" + s, Us(10)},
          {m + ";" + s + ";" + ci, Us(4)},
          {m + ";" + s + ";" + ci + ";aten::linear", Us(11)},
          {m + ";" + s + ";" + ci + ";aten::linear;cudaLaunchKernel", Us(5)},
          {m + ";log (train.py:12)", Us(10)},
      }));
  EXPECT_EQ(launching->other_ns, 0);

  const RoleCodeProfile* other = RoleOf(c, ThreadRole::kOther);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->located_ns, Us(50));
  ASSERT_EQ(other->top.size(), 1u);
  EXPECT_EQ(other->top[0].location, "poll (util.py:3)");
  const RoleCodeProfile* loader = RoleOf(c, ThreadRole::kDataLoader);
  ASSERT_NE(loader, nullptr);
  EXPECT_EQ(loader->located_ns, Us(30));
  EXPECT_TRUE(loader->user_lines.empty());

  const std::string json = WriteJsonReport(r);
  EXPECT_NE(json.find("\"host_code\": {"), std::string::npos);
  EXPECT_NE(json.find("\"role\": \"launching\""), std::string::npos);
  EXPECT_NE(json.find("\"location\": \"aten::linear\",\n            "
                      "\"user_code\": false,\n            \"kind\": "
                      "\"operator\""),
            std::string::npos)
      << json;
  const std::string text = WriteTextReport(r, {});
  EXPECT_NE(text.find("Where the launching threads (1) spent 100 µs"),
            std::string::npos)
      << text;
}

TEST(HostCode, EachFrameHasTheKindTheAnalysisGaveIt) {
  const Report r = MustAnalyze(Nested());
  const auto kind = [&r](const std::string& label) {
    for (const CodeFrame& f : r.host_code.frames) {
      if (f.label == label) return f.kind;
    }
    ADD_FAILURE() << "no frame " << label;
    return CodeFrameKind::kNative;
  };
  EXPECT_EQ(kind("<module> (main.py:1)"), CodeFrameKind::kUserCode);
  EXPECT_EQ(kind("step (train.py:10)"), CodeFrameKind::kUserCode);
  EXPECT_EQ(kind("_call_impl (torch/nn/modules/module.py:1501)"),
            CodeFrameKind::kPython);
  EXPECT_EQ(kind("aten::linear"), CodeFrameKind::kOperator);
  EXPECT_EQ(kind("cudaLaunchKernel"), CodeFrameKind::kCudaCall);
}

// --user-code / --not-user-code: the rule moves the user lines.
TEST(HostCode, TheUserCodeRuleOverridesWhichLinesAreTheUsers) {
  AnalysisOptions not_train;
  not_train.user_code.not_user = {"train.py"};
  const Report without_train = MustAnalyze(Nested(), not_train);
  const RoleCodeProfile* launching =
      RoleOf(without_train.host_code, ThreadRole::kLaunching);
  ASSERT_NE(launching, nullptr);
  ASSERT_EQ(launching->user_lines.size(), 1u);
  EXPECT_EQ(launching->user_lines[0].location, "<module> (main.py:1)");
  EXPECT_EQ(launching->user_lines[0].self_ns, Us(100));

  AnalysisOptions torch_nn;
  torch_nn.user_code.user = {"torch/nn/"};
  const Report with_torch_nn = MustAnalyze(Nested(), torch_nn);
  launching = RoleOf(with_torch_nn.host_code, ThreadRole::kLaunching);
  ASSERT_NE(launching, nullptr);
  const CodeLocationTime* call_impl = Row(
      launching->user_lines, "_call_impl (torch/nn/modules/module.py:1501)");
  ASSERT_NE(call_impl, nullptr);
  EXPECT_EQ(call_impl->self_ns, Us(4 + 11 + 5));
  const CodeLocationTime* step =
      Row(launching->user_lines, "step (train.py:10)");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->self_ns, Us(30));
}

TEST(HostCode, TheWindowClipsTheTime) {
  AnalysisOptions options;
  options.from = Us(50);  // trace starts at 0
  const Report r = MustAnalyze(Nested(), options);
  const RoleCodeProfile* launching =
      RoleOf(r.host_code, ThreadRole::kLaunching);
  ASSERT_NE(launching, nullptr);
  EXPECT_EQ(launching->located_ns, Us(50));
  const CodeLocationTime* step = Row(launching->top, "step (train.py:10)");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->total_ns, Us(10));
}

TEST(HostCode, SampledStacksWeighTheirPeriod) {
  TimelineBuilder b;
  // Launches around the samples: the window spans them.
  b.Launch(0, 1, 2, 3);
  b.Launch(3000, 3001, 3002, 3010);
  Timeline t = b.Take();
  const auto frame = [&t](const char* function, const char* module) {
    Frame f;
    f.kind = FrameKind::kNative;
    f.function = t.strings.Intern(function);
    f.module = t.strings.Intern(module);
    return f;
  };
  CallSite busy;  // innermost first
  busy.frames = {frame("memcpy", "/usr/lib/x86_64-linux-gnu/libc.so.6"),
                 frame("Decode", "/opt/app/bin/server"),
                 frame("main", "/opt/app/bin/server")};
  CallSite idle;
  idle.frames = {frame("main", "/opt/app/bin/server")};
  t.call_sites.push_back(busy);
  t.call_sites.push_back(idle);
  // Samples 1 ms apart, no period given: each stands for 1 ms.
  for (int i = 0; i < 4; ++i) {
    StackSample s;
    s.ts = Us(1000.0 * i);
    s.pid = TimelineBuilder::kPid;
    s.tid = TimelineBuilder::kTid;
    s.stack = i < 3 ? 1 : 2;
    t.stack_samples.push_back(s);
  }
  const Report r = MustAnalyze(std::move(t));
  ASSERT_TRUE(r.host_code.available);
  EXPECT_EQ(r.host_code.basis, CodeProfileBasis::kStackSamples);
  const RoleCodeProfile* launching =
      RoleOf(r.host_code, ThreadRole::kLaunching);
  ASSERT_NE(launching, nullptr);
  EXPECT_EQ(launching->located_ns, Us(4000));
  ASSERT_GE(launching->top.size(), 2u);
  EXPECT_EQ(launching->top[0].location, "memcpy (libc.so.6)");
  EXPECT_EQ(launching->top[0].self_ns, Us(3000));
  EXPECT_FALSE(launching->top[0].user_code);
  // libc is not the user's: the program's Decode is the line to look at.
  ASSERT_EQ(launching->user_lines.size(), 2u);
  EXPECT_EQ(launching->user_lines[0].location, "Decode (server)");
  EXPECT_EQ(launching->user_lines[0].self_ns, Us(3000));
  EXPECT_EQ(launching->user_lines[1].location, "main (server)");
  EXPECT_EQ(launching->user_lines[1].self_ns, Us(1000));
}

TEST(HostCode, NotAvailableWithoutStacks) {
  TimelineBuilder b;
  b.Launch(0, 2, 5, 10);
  b.Range("step#1", 0, 20);  // NVTX: not a stack
  const Report r = MustAnalyze(b.Take());
  EXPECT_FALSE(r.host_code.available);
  EXPECT_NE(WriteJsonReport(r).find("\"host_code\": null"), std::string::npos);
  EXPECT_EQ(WriteTextReport(r, {}).find("Where the"), std::string::npos);
}

// One 1 ms kernel per step, then 5 ms of host work before the next launch
// inside data.py's load(), the launch inside train.py's step(); the samples
// say whether the host computed or waited for the disk.
Timeline HostBoundInPython(ThreadState state) {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 20; ++i) {
    b.Range("train.py(9): step", t, t + 5, kPython);
    b.Launch(t, t + 5, t + 10, t + 1010);
    b.Range("data.py(5): load", t + 10, t + 6010, kPython);
    t += 6010;
  }
  b.Sample(0, 0, state);
  b.Sample(t, state == ThreadState::kRunning ? t : 0, state);
  return b.Take();
}

bool HasStepStartingWith(const Report& r, const std::string& prefix) {
  for (const std::string& step : r.verdict.next_steps) {
    if (step.starts_with(prefix)) return true;
  }
  return false;
}

TEST(HostCode, APreprocessingVerdictNamesWhereTheGpuWaited) {
  const Report r = MustAnalyze(HostBoundInPython(ThreadState::kRunning));
  ASSERT_EQ(r.verdict.primary, VerdictClass::kPreprocessingBound);
  ASSERT_FALSE(r.verdict.next_steps.empty());
  EXPECT_TRUE(r.verdict.next_steps[0].starts_with(
      "While the GPU waited for the host, the launching thread was in load "
      "(data.py:5) ("))
      << r.verdict.next_steps[0];
  // The profiler advice gives way to the line.
  for (const std::string& step : r.verdict.next_steps) {
    EXPECT_EQ(step.find("py-spy"), std::string::npos) << step;
  }
}

TEST(HostCode, AnIoVerdictNamesTheReadingLine) {
  const Report r = MustAnalyze(HostBoundInPython(ThreadState::kDiskWait));
  ASSERT_EQ(r.verdict.primary, VerdictClass::kIoBound);
  EXPECT_TRUE(HasStepStartingWith(
      r,
      "While the GPU waited for the host, the launching thread was in load "
      "(data.py:5) ("));
  bool reads = false;
  for (const std::string& step : r.verdict.next_steps) {
    reads |=
        step.find("start with the reads these lines make") != std::string::npos;
  }
  EXPECT_TRUE(reads);
}

// 200 launches back to back, each from train.py:9: the launch-bound steps
// name the line the launches come from.
TEST(HostCode, ALaunchVerdictNamesWhereTheLaunchesComeFrom) {
  TimelineBuilder b;
  Timeline& t = b.timeline();
  CallSite site;
  site.python = true;
  Frame f;
  f.kind = FrameKind::kPython;
  f.file = t.strings.Intern("train.py");
  f.function = t.strings.Intern("step");
  f.line = 9;
  site.frames = {f};
  t.call_sites.push_back(site);
  for (int i = 0; i < 200; ++i) {
    const double at = 10.0 * i;
    b.Launch(at, at + 10, at + 8, at + 13);
    t.api_calls.back().call_site = 1;
  }
  const Report r = MustAnalyze(b.Take());
  ASSERT_EQ(r.verdict.primary, VerdictClass::kLaunchBound);
  ASSERT_EQ(r.launch.sites.size(), 1u);
  EXPECT_EQ(r.launch.sites[0].location, "step (train.py:9)");
  EXPECT_EQ(r.launch.sites[0].count, 200u);
  EXPECT_EQ(r.launch.sites[0].api_ns, Us(200 * 10));
  EXPECT_TRUE(HasStepStartingWith(r,
                                  "Most launches come from step (train.py:9) "
                                  "(200 calls): fuse or capture"));
}

// Each top location's total is the time it was on a stack: per thread, the
// union of the intervals of its events, summed over the role's threads.
void ExpectTotalsAreUnions(const std::string& name) {
  const std::string path = std::string(FEEDPROF_SHARED_TRACES_DIR) +
                           "/tracelens_h100/" + name + ".json.gz";
  absl::StatusOr<Timeline> t = ReadKinetoTrace(path);
  if (!t.ok()) GTEST_SKIP() << "shared trace not readable: " << t.status();
  // Intervals by (label, thread), from the ranges and CUDA calls.
  std::map<std::pair<std::string, uint64_t>,
           std::vector<std::pair<TimeNs, TimeNs>>>
      intervals;
  // The launching thread: the one that launched kernels.
  std::map<uint64_t, bool> stacked;
  for (const ApiCall& call : t->api_calls) {
    if (t->strings.Get(call.name).starts_with("cudaLaunchKernel")) {
      stacked[(static_cast<uint64_t>(call.pid) << 32) |
              static_cast<uint32_t>(call.tid)] = true;
    }
  }
  for (const Range& rg : t->ranges) {
    std::string label;
    if (rg.source == kPython) {
      const timeline::PythonFrameName f =
          timeline::ParsePythonFrameName(t->strings.Get(rg.name));
      label = f.file.empty()
                  ? std::string(f.function)
                  : absl::StrCat(std::string(f.function), " (",
                                 std::string(f.file), ":", f.line, ")");
    } else if (rg.source == kOp) {
      label = std::string(t->strings.Get(rg.name));
    } else {
      continue;
    }
    const uint64_t thread =
        (static_cast<uint64_t>(rg.pid) << 32) | static_cast<uint32_t>(rg.tid);
    if (!stacked.contains(thread)) continue;
    intervals[{label, thread}].push_back({rg.start, rg.end});
  }
  for (const ApiCall& call : t->api_calls) {
    const uint64_t thread = (static_cast<uint64_t>(call.pid) << 32) |
                            static_cast<uint32_t>(call.tid);
    if (!stacked.contains(thread)) continue;
    intervals[{std::string(t->strings.Get(call.name)), thread}].push_back(
        {call.start, call.end});
  }
  std::map<std::string, TimeNs> union_of;
  for (auto& [key, list] : intervals) {
    std::sort(list.begin(), list.end());
    TimeNs covered = 0, open_start = 0, open_end = -1;
    for (const auto& [s, e] : list) {
      if (s > open_end) {
        if (open_end > open_start) covered += open_end - open_start;
        open_start = s;
        open_end = e;
      } else {
        open_end = std::max(open_end, e);
      }
    }
    if (open_end > open_start) covered += open_end - open_start;
    union_of[key.first] += covered;
  }
  const Report r = MustAnalyze(*t);
  ASSERT_TRUE(r.host_code.available);
  // The launching thread, and tqdm's monitor thread as an other thread.
  ASSERT_EQ(r.host_code.roles.size(), 2u);
  const RoleCodeProfile& role = r.host_code.roles[0];
  EXPECT_EQ(role.role, ThreadRole::kLaunching);
  EXPECT_EQ(role.threads, 1u);
  EXPECT_EQ(r.host_code.roles[1].role, ThreadRole::kOther);
  TimeNs stacks = role.other_ns;
  for (const FoldedStack& s : role.stacks) stacks += s.self_ns;
  EXPECT_EQ(stacks, role.located_ns);
  ASSERT_FALSE(role.top.empty());
  for (size_t i = 0; i < role.top.size(); ++i) {
    const CodeLocationTime& row = role.top[i];
    SCOPED_TRACE(row.location);
    if (i > 0) {
      EXPECT_GE(role.top[i - 1].self_ns, row.self_ns);
    }
    EXPECT_LE(row.self_ns, row.total_ns);
    EXPECT_EQ(row.total_ns, union_of[row.location]);
  }
  ASSERT_FALSE(role.user_lines.empty());
  for (const CodeLocationTime& row : role.user_lines) {
    EXPECT_EQ(row.location.find("torch/"), std::string::npos) << row.location;
  }
}

// The Qwen trace's device syncs: the group names the user's line and keeps
// the whole stack under it, from the C function up to the interpreter.
TEST(HostCode, TraceLensSyncPointsKeepTheirWholeStack) {
  const std::string path = std::string(FEEDPROF_SHARED_TRACES_DIR) +
                           "/tracelens_h100/Qwen_Qwen1.5-0.5B-Chat__1016005"
                           ".json.gz";
  absl::StatusOr<Timeline> t = ReadKinetoTrace(path);
  if (!t.ok()) GTEST_SKIP() << "shared trace not readable: " << t.status();
  const Report r = MustAnalyze(*t);
  const SyncPoint* sync = nullptr;
  for (const SyncPoint& p : r.sync_points) {
    if (p.call_site ==
        "run_torch_profiler (moca/library/profiling/profile.py:34)") {
      sync = &p;
    }
  }
  ASSERT_NE(sync, nullptr);
  ASSERT_GE(sync->call_stack.size(), 4u);
  EXPECT_EQ(sync->call_stack.front(), "<built-in function _cuda_synchronize>");
  EXPECT_EQ(sync->call_stack[1], "synchronize (torch/cuda/__init__.py:975)");
  EXPECT_NE(std::find(sync->call_stack.begin(), sync->call_stack.end(),
                      sync->call_site),
            sync->call_stack.end());
  const std::string json = WriteJsonReport(r);
  EXPECT_NE(json.find("\"call_stack\": [\n        \"<built-in function "
                      "_cuda_synchronize>\""),
            std::string::npos);
  const std::string html = WriteHtmlReport(r);
  EXPECT_NE(html.find("<details class=\"stack\"><summary>run_torch_profiler "
                      "(moca/library/profiling/profile.py:34)</summary><ol>"
                      "<li>&lt;built-in function _cuda_synchronize&gt;</li>"),
            std::string::npos);
}

TEST(HostCode, TraceLensBertTotalsAreUnions) {
  ExpectTotalsAreUnions("gaunernst_bert-small-uncased__1016001");
}

TEST(HostCode, TraceLensQwenTotalsAreUnions) {
  ExpectTotalsAreUnions("Qwen_Qwen1.5-0.5B-Chat__1016005");
}

}  // namespace
}  // namespace feedprof
