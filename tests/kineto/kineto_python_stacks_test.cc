// Python stacks of a Kineto trace's CUDA calls: the python_function names
// parsed into frames, each call given the functions around it on its thread
// (innermost first, one site per distinct stack), and, on the shared
// TraceLens traces recorded with with_stack=True, every call's stack checked
// against a search of all the trace's Python functions written here.
#include "kineto/kineto_python_stacks.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "feedprof/kineto_reader.h"
#include "gtest/gtest.h"
#include "tests/kineto/kineto_test_files.h"

namespace feedprof::kineto {
namespace {

using kineto_test::SharedTrace;
using kineto_test::WriteTempFile;

std::string FrameName(const Timeline& t, const Frame& f) {
  if (f.file == 0) return std::string(t.strings.Get(f.function));
  return absl::StrCat(std::string(t.strings.Get(f.file)), "(", f.line,
                      "): ", std::string(t.strings.Get(f.function)));
}

// The site of a call, innermost frame first, as the trace named them.
std::vector<std::string> SiteNames(const Timeline& t, const ApiCall& c) {
  std::vector<std::string> names;
  if (c.call_site == 0) return names;
  for (const Frame& f : t.call_sites.at(c.call_site).frames) {
    names.push_back(FrameName(t, f));
  }
  return names;
}

const ApiCall& CallNamed(const Timeline& t, const std::string& name) {
  for (const ApiCall& c : t.api_calls) {
    if (t.strings.Get(c.name) == name) return c;
  }
  ADD_FAILURE() << "no call " << name;
  static const ApiCall kNone;
  return kNone;
}

TEST(PythonFrameOf, FileLineAndFunction) {
  StringTable strings;
  const Frame f =
      PythonFrameOf("moca/library/profiling/profile.py(34): run", strings);
  EXPECT_EQ(strings.Get(f.file), "moca/library/profiling/profile.py");
  EXPECT_EQ(f.line, 34u);
  EXPECT_EQ(strings.Get(f.function), "run");
  // A parenthesis in the file name: the line is the last one before "): ".
  const Frame g = PythonFrameOf("a(b)/c.py(7): f(x)", strings);
  EXPECT_EQ(strings.Get(g.file), "a(b)/c.py");
  EXPECT_EQ(g.line, 7u);
  EXPECT_EQ(strings.Get(g.function), "f(x)");
}

TEST(PythonFrameOf, OtherNamesAreFunctionsWithoutAFile) {
  StringTable strings;
  for (const char* name :
       {"<built-in method item of Tensor object>", "nn.Module: Linear_0",
        "f.py(abc): g", "f.py(): g", "(3): g", "plain"}) {
    const Frame f = PythonFrameOf(name, strings);
    EXPECT_EQ(f.file, 0u) << name;
    EXPECT_EQ(f.line, 0u) << name;
    EXPECT_EQ(strings.Get(f.function), name);
  }
}

// Thread 1: main.py(1) > train.py(10) > <built-in item> holds a
// cudaStreamSynchronize and, later, a second one in the same stack;
// train.py(10) alone holds a launch; a memcpy outside every function.
// Thread 2: its own function around a cudaMalloc. A function on thread 2
// at the time of thread 1's sync is not on thread 1's stack.
constexpr char kTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "python_function", "name": "main.py(1): <module>",
   "pid": 5, "tid": 1, "ts": 0, "dur": 1000},
  {"ph": "X", "cat": "python_function", "name": "train.py(10): step",
   "pid": 5, "tid": 1, "ts": 10, "dur": 500},
  {"ph": "X", "cat": "python_function",
   "name": "<built-in method item of Tensor object>",
   "pid": 5, "tid": 1, "ts": 100, "dur": 50},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize",
   "pid": 5, "tid": 1, "ts": 110, "dur": 20, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
   "pid": 5, "tid": 1, "ts": 200, "dur": 5, "args": {"correlation": 2}},
  {"ph": "X", "cat": "python_function",
   "name": "<built-in method item of Tensor object>",
   "pid": 5, "tid": 1, "ts": 300, "dur": 50},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize",
   "pid": 5, "tid": 1, "ts": 310, "dur": 20, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy",
   "pid": 5, "tid": 1, "ts": 2000, "dur": 5, "args": {"correlation": 4}},
  {"ph": "X", "cat": "python_function", "name": "loader.py(3): fetch",
   "pid": 5, "tid": 2, "ts": 100, "dur": 400},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMalloc",
   "pid": 5, "tid": 2, "ts": 120, "dur": 5, "args": {"correlation": 5}}
]})";

TEST(AttachPythonCallSites, EachCallGetsTheFunctionsAroundItOnItsThread) {
  auto read = ReadKinetoTrace(WriteTempFile("python_stacks.json", kTrace));
  ASSERT_TRUE(read.ok()) << read.status();
  const Timeline& t = *read;
  EXPECT_TRUE(t.available.call_sites);
  const std::vector<std::string> item_stack = {
      "<built-in method item of Tensor object>", "train.py(10): step",
      "main.py(1): <module>"};
  EXPECT_EQ(SiteNames(t, CallNamed(t, "cudaStreamSynchronize")), item_stack);
  EXPECT_EQ(SiteNames(t, CallNamed(t, "cudaDeviceSynchronize")), item_stack);
  // The same stack is one site.
  EXPECT_EQ(CallNamed(t, "cudaStreamSynchronize").call_site,
            CallNamed(t, "cudaDeviceSynchronize").call_site);
  EXPECT_TRUE(
      t.call_sites.at(CallNamed(t, "cudaLaunchKernel").call_site).python);
  EXPECT_EQ(
      SiteNames(t, CallNamed(t, "cudaLaunchKernel")),
      (std::vector<std::string>{"train.py(10): step", "main.py(1): <module>"}));
  EXPECT_EQ(CallNamed(t, "cudaMemcpy").call_site, 0u);
  EXPECT_EQ(SiteNames(t, CallNamed(t, "cudaMalloc")),
            (std::vector<std::string>{"loader.py(3): fetch"}));
  // Sites: the empty one, the item stack, the launch's, the loader's.
  EXPECT_EQ(t.call_sites.size(), 4u);
}

TEST(AttachPythonCallSites, ATraceWithoutPythonFunctionsIsLeftAsItWas) {
  auto read = ReadKinetoTrace(
      WriteTempFile("no_python.json",
                    R"({"traceEvents": [{"ph": "X", "cat": "cuda_runtime",
      "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 1,
      "dur": 1, "args": {"correlation": 1}}]})"));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_FALSE(read->available.call_sites);
  EXPECT_EQ(read->call_sites.size(), 1u);
  EXPECT_EQ(read->api_calls.at(0).call_site, 0u);
}

// Every call's stack on a real trace, against a search of every Python
// function of the trace: those on the call's thread that started by the
// call's start and had not ended then, innermost (latest start, shorter
// first) first.
void ExpectStacksMatchASearch(const std::string& name) {
  const std::string path = SharedTrace("tracelens_h100/" + name + ".json.gz");
  if (path.empty()) {
    GTEST_SKIP() << "shared trace " << name << " not found under "
                 << FEEDPROF_SHARED_TRACES_DIR;
  }
  auto read = ReadKinetoTrace(path);
  ASSERT_TRUE(read.ok()) << read.status();
  const Timeline& t = *read;
  size_t with_site = 0;
  for (const ApiCall& c : t.api_calls) {
    std::vector<const Range*> around;
    for (const Range& r : t.ranges) {
      if (r.source == RangeSource::kPythonFunction && r.pid == c.pid &&
          r.tid == c.tid && r.start <= c.start && c.start < r.end) {
        around.push_back(&r);
      }
    }
    std::stable_sort(
        around.begin(), around.end(), [](const Range* a, const Range* b) {
          return a->start != b->start ? a->start > b->start
                                      : a->end - a->start < b->end - b->start;
        });
    std::vector<std::string> expected;
    for (const Range* r : around) {
      expected.emplace_back(t.strings.Get(r->name));
    }
    ASSERT_EQ(SiteNames(t, c), expected)
        << t.strings.Get(c.name) << " at " << c.start;
    with_site += expected.empty() ? 0 : 1;
  }
  // with_stack=True: every runtime call of these runs came from Python.
  EXPECT_EQ(with_site, t.api_calls.size());
  EXPECT_TRUE(t.available.call_sites);
}

TEST(AttachPythonCallSites, TraceLensBertStacksMatchASearch) {
  ExpectStacksMatchASearch("gaunernst_bert-small-uncased__1016001");
}

TEST(AttachPythonCallSites, TraceLensQwenStacksMatchASearch) {
  ExpectStacksMatchASearch("Qwen_Qwen1.5-0.5B-Chat__1016005");
}

}  // namespace
}  // namespace feedprof::kineto
