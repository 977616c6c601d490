// End to end: Python stacks sampled in every thread by the host sampling
// thread, without the GIL, in real CPython processes of every version the
// machine has (FEEDPROF_TEST_PYTHONS). The scripts are the files
// tests/e2e/python_stacks_*.py:
//
// - the hot line of a CPU-bound function (2 threads and the main thread)
//   is the top location of `feedprof analyze --format json`;
// - a storm at 1 kHz for 10 s (deep recursion and exceptions, generators
//   and coroutines, thread churn, code compiled at run time,
//   sub-interpreters, forks) prints what it prints without the library and
//   exits with the same code;
// - interpreter shutdown with daemon threads deep in Python code, 5 times;
// - thousands of short threads ending while they are read;
// - FEEDPROF_PYTHON_STACKS_HZ=0 leaves every sample without a stack.
#include <stdio.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/trace_file.h"
#include "tests/testing/json_test_parser.h"
#include "tests/testing/python_interpreters.h"

namespace feedprof::e2e {
namespace {

using testing::JsonValue;
using testing::ParseJson;

const std::string kScriptDir = FEEDPROF_SOURCE_DIR "/tests/e2e";
const std::string kCliPath = FEEDPROF_BINARY_DIR "/tools/feedprof";

std::string Script(const std::string& name) {
  return kScriptDir + "/python_stacks_" + name + ".py";
}

struct PythonRun {
  bool finished = false;  // false: still running after the timeout
  ExitStatus status;
  pid_t pid = 0;
  std::string out;
  std::string err;
  double seconds = 0;
};

// Runs `python script args...` with `env`; output files under `prefix`.
PythonRun RunPython(const std::string& python, const std::string& script,
                    const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env,
                    const std::string& prefix, int timeout_ms) {
  std::vector<std::string> argv = {python, script};
  argv.insert(argv.end(), args.begin(), args.end());
  PythonRun run;
  const auto start = std::chrono::steady_clock::now();
  ChildProcess process(argv, env, prefix);
  run.pid = process.pid();
  run.finished = process.Wait(timeout_ms, &run.status);
  run.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  run.out = process.Stdout();
  run.err = process.Stderr();
  return run;
}

// Without the library: no LD_PRELOAD, no FEEDPROF_* from outside.
std::map<std::string, std::string> PlainEnv() {
  return {{"LD_PRELOAD", ""},
          {"FEEDPROF_OUTPUT_DIR", ""},
          {"FEEDPROF_SESSION_DIR", ""},
          {"FEEDPROF_SAMPLING_HZ", ""},
          {"FEEDPROF_PYTHON_STACKS_HZ", ""}};
}

// Recording into `traces` at `sampling_hz`, Python stacks at `python_hz`
// ("" leaves the defaults).
std::map<std::string, std::string> LibraryEnv(const std::string& traces,
                                              const std::string& sampling_hz,
                                              const std::string& python_hz) {
  auto env = RecordingEnv(traces);
  env["FEEDPROF_SAMPLING_HZ"] = sampling_hz;
  env["FEEDPROF_PYTHON_STACKS_HZ"] = python_hz;
  return env;
}

// What a run under the library may print on stderr besides the script's
// own lines: "feedprof: trace written to ..." and nothing that tells of a
// crash, an abort or a warning.
void ExpectCleanStderr(const std::string& err, const std::string& what) {
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("feedprof:", 0) == 0) {
      EXPECT_EQ(line.rfind("feedprof: trace written to ", 0), 0u)
          << what << ": unexpected library line: " << line;
    }
  }
  for (const char* bad :
       {"Fatal Python error", "Segmentation fault", "Traceback", "Aborted",
        "core dumped", "AddressSanitizer", "warning", "Warning"}) {
    EXPECT_EQ(err.find(bad), std::string::npos)
        << what << ": stderr holds \"" << bad << "\":\n"
        << err;
  }
}

// What one trace file says about Python stacks, read through
// `feedprof dump`.
struct StackSummary {
  bool dumped = false;
  uint32_t pid = 0;
  // The last python_stacks line: it holds the totals.
  bool has_status = false;
  std::string state;
  uint64_t stacks = 0;
  uint64_t torn = 0;
  uint64_t truncated = 0;
  size_t thread_samples = 0;
  size_t samples_with_stack = 0;
  std::set<uint32_t> tids_with_stack;
  size_t stack_node_lines = 0;
  std::set<uint64_t> node_ids;
  size_t nodes_with_unknown_parent = 0;  // parent not announced before
  // Nodes without a file or function name (a code object read while it
  // changed), and nodes of the storm's run-time code ("<storm-K>") named
  // after another K's function; the first of each.
  size_t nodes_without_name = 0;
  std::string first_without_name;
  size_t compiled_mismatches = 0;
  std::string first_compiled_mismatch;
  std::set<uint64_t> used_ids;
};

// The unsigned number after `key` in `line`; false when `key` is absent.
bool NumberAfter(const std::string& line, const std::string& key,
                 uint64_t* value) {
  const size_t at = line.find(key);
  if (at == std::string::npos) return false;
  *value = std::strtoull(line.c_str() + at + key.size(), nullptr, 10);
  return true;
}

std::string NodeText(const JsonValue& node) {
  return "{id " + std::to_string(node.Uint("id")) + ", parent " +
         std::to_string(node.Uint("parent_id")) + ", file \"" +
         node.Str("file") + "\", function \"" + node.Str("function") +
         "\", line " + std::to_string(node.Uint("line")) + "}";
}

// The names python_stacks_storm.py gives the code it compiles as
// "<storm-K>": made_K, its inner_K and generator expression, the module.
bool CompiledNameMatches(const std::string& file, const std::string& function) {
  const std::string k = file.substr(7, file.size() - 8);  // "<storm-" K ">"
  for (const std::string& name :
       {std::string("<module>"), "made_" + k, "inner_" + k,
        std::string("<genexpr>"), "made_" + k + ".<locals>.inner_" + k,
        "made_" + k + ".<locals>.<genexpr>"}) {
    if (function == name) return true;
  }
  return false;
}

void CheckNames(const JsonValue& node, StackSummary* s) {
  const std::string file = node.Str("file");
  const std::string function = node.Str("function");
  if (file.empty() || function.empty()) {
    if (s->nodes_without_name++ == 0) s->first_without_name = NodeText(node);
  }
  if (!function.empty() && file.rfind("<storm-", 0) == 0 &&
      file.back() == '>' && !CompiledNameMatches(file, function)) {
    if (s->compiled_mismatches++ == 0) {
      s->first_compiled_mismatch = NodeText(node);
    }
  }
}

StackSummary SummarizeTrace(const std::string& path) {
  StackSummary s;
  const std::string command = kCliPath + " dump '" + path + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return s;
  char* buffer = nullptr;
  size_t capacity = 0;
  ssize_t n;
  while ((n = getline(&buffer, &capacity, pipe)) > 0) {
    const std::string line(buffer, static_cast<size_t>(n));
    if (line.rfind("{\"type\":\"thread_sample\"", 0) == 0) {
      ++s.thread_samples;
      uint64_t id = 0;
      uint64_t tid = 0;
      if (NumberAfter(line, "\"python_stack_id\":", &id) && id != 0) {
        ++s.samples_with_stack;
        s.used_ids.insert(id);
        if (NumberAfter(line, "\"tid\":", &tid)) {
          s.tids_with_stack.insert(static_cast<uint32_t>(tid));
        }
      }
    } else if (line.rfind("{\"type\":\"stack_nodes\"", 0) == 0) {
      ++s.stack_node_lines;
      const auto json = ParseJson(line.substr(0, line.find_last_of('}') + 1));
      const JsonValue* nodes = json ? json->Find("nodes") : nullptr;
      if (nodes == nullptr) continue;
      for (const JsonValue& node : nodes->items) {
        CheckNames(node, &s);
        const uint64_t parent = node.Uint("parent_id");
        if (parent != 0 && s.node_ids.count(parent) == 0) {
          ++s.nodes_with_unknown_parent;
        }
        s.node_ids.insert(node.Uint("id"));
      }
    } else if (line.rfind("{\"type\":\"python_stacks\"", 0) == 0) {
      const auto json = ParseJson(line.substr(0, line.find_last_of('}') + 1));
      if (!json) continue;
      s.has_status = true;
      s.state = json->Str("state");
      s.stacks = json->Uint("stacks");
      s.torn = json->Uint("torn");
      s.truncated = json->Uint("truncated");
    } else if (line.rfind("{\"type\":\"header\"", 0) == 0) {
      uint64_t pid = 0;
      if (NumberAfter(line, "\"pid\":", &pid)) {
        s.pid = static_cast<uint32_t>(pid);
      }
    }
  }
  free(buffer);
  s.dumped = pclose(pipe) == 0;
  return s;
}

// Every stack id a sample uses was announced in the file, and every node's
// parent before the node.
void ExpectStackIdsAnnounced(const StackSummary& s, const std::string& what) {
  size_t unknown = 0;
  uint64_t first_unknown = 0;
  for (uint64_t id : s.used_ids) {
    if (s.node_ids.count(id) == 0) {
      if (unknown++ == 0) first_unknown = id;
    }
  }
  EXPECT_EQ(unknown, 0u) << what << ": " << unknown
                         << " stack ids used but never announced (first: "
                         << first_unknown << ")";
  EXPECT_EQ(s.nodes_with_unknown_parent, 0u)
      << what << ": nodes whose parent was not announced before them";
}

std::string Describe(const StackSummary& s) {
  std::ostringstream out;
  out << "pid " << s.pid << ": state " << s.state << ", stacks " << s.stacks
      << ", torn " << s.torn << ", truncated " << s.truncated
      << ", thread samples " << s.thread_samples << " (" << s.samples_with_stack
      << " with a stack, " << s.tids_with_stack.size() << " threads), nodes "
      << s.node_ids.size();
  if (s.nodes_without_name != 0) {
    out << " (" << s.nodes_without_name << " without a name)";
  }
  return out.str();
}

std::string Version(const std::string& python) {
  FILE* pipe = popen((python + " -c 'import sys; print(\"%d.%d.%d\" % "
                               "sys.version_info[:3])' 2>/dev/null")
                         .c_str(),
                     "r");
  if (pipe == nullptr) return "?";
  char text[64] = {};
  const size_t n = fread(text, 1, sizeof text - 1, pipe);
  pclose(pipe);
  std::string version(text, n);
  while (!version.empty() &&
         std::isspace(static_cast<unsigned char>(version.back())) != 0) {
    version.pop_back();
  }
  return version;
}

// Facts worth seeing in the test's output (counts, times), one line each.
void Note(const std::string& python, const std::string& text) {
  std::cout << "[   NOTE   ] " << python << " (" << Version(python)
            << "): " << text << std::endl;
}

class PythonStacksE2eTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    python_ = GetParam();
    if (access(python_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << python_ << " is not there";
    }
    dir_ = MakeTempDir("pystacks");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    if (dir_.empty() || HasFailure()) return;  // kept to look at
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string python_;
  std::string dir_;
};

// 1. The hot line is found: default rates (100 Hz), 1.5 s of CPU-bound
// work in 3 threads.
TEST_P(PythonStacksE2eTest, HotLineIsTheTopLocation) {
  const std::string script = Script("hot");
  const int hot_line = testing::LineWithMarker(script, "# HOT_LINE");
  ASSERT_GT(hot_line, 0);
  const std::string traces = dir_ + "/traces";
  const PythonRun run =
      RunPython(python_, script, {"1.5"}, LibraryEnv(traces, "", ""),
                dir_ + "/hot", 120000);
  ASSERT_TRUE(run.finished);
  ASSERT_TRUE(run.status.exited) << run.err;
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.out, "hot True\n");
  ExpectCleanStderr(run.err, "hot");

  const auto files = FindTraceFiles(traces);
  ASSERT_EQ(files.size(), 1u);
  const StackSummary s = SummarizeTrace(files[0]);
  ASSERT_TRUE(s.dumped);
  EXPECT_EQ(s.pid, static_cast<uint32_t>(run.pid));
  ASSERT_TRUE(s.has_status);
  EXPECT_EQ(s.state, "python_stacks_on");
  EXPECT_GT(s.stacks, 0u);
  EXPECT_GE(s.tids_with_stack.size(), 3u) << Describe(s);
  ExpectStackIdsAnnounced(s, "hot");

  FILE* pipe =
      popen((kCliPath + " analyze --format json '" + traces + "' 2>/dev/null")
                .c_str(),
            "r");
  ASSERT_NE(pipe, nullptr);
  std::string json_text;
  char chunk[8192];
  while (size_t n = fread(chunk, 1, sizeof chunk, pipe)) {
    json_text.append(chunk, n);
  }
  ASSERT_EQ(pclose(pipe), 0);
  const auto json = ParseJson(json_text);
  ASSERT_TRUE(json.has_value()) << json_text.substr(0, 2000);
  const JsonValue* host_code = json->Find("host_code");
  ASSERT_NE(host_code, nullptr);
  EXPECT_EQ(host_code->Str("basis"), "stack_samples");
  const JsonValue* roles = host_code->Find("roles");
  ASSERT_NE(roles, nullptr);
  ASSERT_FALSE(roles->items.empty());
  // Over every role: the sampled CPU time, and each location's self time.
  uint64_t located_ns = 0;
  std::map<std::string, uint64_t> self_ns;
  for (const JsonValue& role : roles->items) {
    located_ns += role.Uint("located_ns");
    const JsonValue* top = role.Find("top");
    ASSERT_NE(top, nullptr);
    for (const JsonValue& entry : top->items) {
      self_ns[entry.Str("location")] += entry.Uint("self_ns");
    }
  }
  std::string best;
  for (const auto& [location, ns] : self_ns) {
    if (best.empty() || ns > self_ns[best]) best = location;
  }
  const std::string expected =
      "inner_hot (" + script + ":" + std::to_string(hot_line) + ")";
  EXPECT_EQ(best, expected) << json_text.substr(0, 4000);
  ASSERT_GT(located_ns, 0u);
  const double share =
      static_cast<double>(self_ns[expected]) / static_cast<double>(located_ns);
  EXPECT_GE(share, 0.5) << expected << ": " << self_ns[expected] << " of "
                        << located_ns << " ns";
  Note(python_, "hot line " + expected + ": " +
                    std::to_string(static_cast<int>(share * 100)) + "% of " +
                    std::to_string(located_ns / 1000000) + " ms sampled; " +
                    Describe(s) + "; run " + std::to_string(run.seconds) +
                    " s");
}

// 2. The storm at 1 kHz for 10 s: same stdout and exit code (7) with and
// without the library, stacks taken (and truncated: deeper than 128) in
// the main process and in each forked child.
TEST_P(PythonStacksE2eTest, StormAtOneKilohertzChangesNothing) {
  constexpr int kExitCode = 7;
  constexpr size_t kForks = 3;
  const std::string script = Script("storm");
  const std::vector<std::string> args = {"10"};
  const PythonRun plain =
      RunPython(python_, script, args, PlainEnv(), dir_ + "/plain", 180000);
  ASSERT_TRUE(plain.finished);
  ASSERT_TRUE(plain.status.exited) << plain.err;
  ASSERT_EQ(plain.status.code, kExitCode) << plain.out << plain.err;
  ASSERT_NE(plain.out.find("mismatches []\n"), std::string::npos) << plain.out;

  const std::string traces = dir_ + "/traces";
  const PythonRun run =
      RunPython(python_, script, args, LibraryEnv(traces, "1000", "1000"),
                dir_ + "/storm", 180000);
  ASSERT_TRUE(run.finished) << "still running after 180 s";
  ASSERT_TRUE(run.status.exited)
      << "killed by signal " << run.status.signal << "\n"
      << run.err;
  EXPECT_EQ(run.status.code, kExitCode) << run.err;
  EXPECT_EQ(run.out, plain.out);
  ExpectCleanStderr(run.err, "storm");

  const auto files = FindTraceFiles(traces);
  EXPECT_EQ(files.size(), 1 + kForks);
  bool found_main = false;
  size_t children = 0;
  std::string notes;
  for (const std::string& path : files) {
    TraceFile trace;
    std::string error;
    ASSERT_TRUE(ReadTraceFile(path, &trace, &error)) << path << ": " << error;
    EXPECT_EQ(trace.trailing_bytes, 0u) << path;
    EXPECT_TRUE(trace.has_footer) << path;
    const StackSummary s = SummarizeTrace(path);
    ASSERT_TRUE(s.dumped) << path;
    ExpectStackIdsAnnounced(s, path);
    // Code compiled at run time reuses the addresses of code just freed:
    // each node must still carry its own code's names.
    EXPECT_EQ(s.compiled_mismatches, 0u)
        << path << ": a node of run-time code named after other code, "
        << "the first: " << s.first_compiled_mismatch;
    EXPECT_EQ(s.nodes_without_name, 0u)
        << path << ": nodes without a file or function name (a code object "
        << "read while it was freed or built and taken for valid), the "
        << "first: " << s.first_without_name;
    ASSERT_TRUE(s.has_status) << path;
    EXPECT_EQ(s.state, "python_stacks_on") << path;
    EXPECT_GT(s.stacks, 0u) << Describe(s);
    if (s.pid == static_cast<uint32_t>(run.pid)) {
      found_main = true;
      // Deep recursion, beyond the frames kept.
      EXPECT_GT(s.truncated, 0u) << Describe(s);
      // The main thread, 2 recursing threads, the generator/coroutine
      // thread and the compiling thread at least.
      EXPECT_GE(s.tids_with_stack.size(), 5u) << Describe(s);
      notes = "main " + Describe(s) + notes;
    } else {
      ++children;
      notes += "; child " + Describe(s);
    }
  }
  EXPECT_TRUE(found_main);
  EXPECT_EQ(children, kForks);
  // The script's own stderr line: how often each activity repeated.
  std::string rounds;
  const size_t rounds_at = run.err.find("storm rounds:");
  if (rounds_at != std::string::npos) {
    rounds =
        run.err.substr(rounds_at, run.err.find('\n', rounds_at) - rounds_at);
  }
  Note(python_, "storm: " + notes + "; " + rounds + "; run " +
                    std::to_string(run.seconds) + " s (without " +
                    std::to_string(plain.seconds) + " s)");
}

// 3. Shutdown while sampling: daemon threads deep in Python code when the
// main thread returns, 5 times, after 0.2 to 0.6 s.
TEST_P(PythonStacksE2eTest, ShutdownWhileSamplingChangesNothing) {
  constexpr int kExitCode = 5;
  const std::string script = Script("shutdown");
  const PythonRun plain =
      RunPython(python_, script, {"0.2"}, PlainEnv(), dir_ + "/plain", 60000);
  ASSERT_TRUE(plain.finished);
  ASSERT_TRUE(plain.status.exited) << plain.err;
  ASSERT_EQ(plain.status.code, kExitCode) << plain.err;
  std::string notes;
  for (int i = 0; i < 5; ++i) {
    const std::string warmup = "0." + std::to_string(2 + i);
    const std::string traces = dir_ + "/traces" + std::to_string(i);
    const PythonRun run =
        RunPython(python_, script, {warmup}, LibraryEnv(traces, "1000", "1000"),
                  dir_ + "/run" + std::to_string(i), 60000);
    ASSERT_TRUE(run.finished) << "run " << i << " still running after 60 s";
    ASSERT_TRUE(run.status.exited)
        << "run " << i << " killed by signal " << run.status.signal << "\n"
        << run.err;
    EXPECT_EQ(run.status.code, kExitCode) << "run " << i << "\n" << run.err;
    EXPECT_EQ(run.out, plain.out) << "run " << i;
    ExpectCleanStderr(run.err, "shutdown run " + std::to_string(i));
    const auto files = FindTraceFiles(traces);
    ASSERT_EQ(files.size(), 1u) << "run " << i;
    const StackSummary s = SummarizeTrace(files[0]);
    ASSERT_TRUE(s.dumped);
    ASSERT_TRUE(s.has_status);
    EXPECT_EQ(s.state, "python_stacks_on");
    EXPECT_GT(s.stacks, 0u) << Describe(s);
    ExpectStackIdsAnnounced(s, "shutdown run " + std::to_string(i));
    notes += "; [" + warmup + " s: stacks " + std::to_string(s.stacks) +
             ", torn " + std::to_string(s.torn) + ", truncated " +
             std::to_string(s.truncated) + ", " +
             std::to_string(run.seconds).substr(0, 5) + " s]";
  }
  Note(python_, "shutdown x5" + notes);
}

// 4. Threads that end while they are read: 2400 short threads, 32 at a
// time, at 1 kHz.
TEST_P(PythonStacksE2eTest, ThreadsEndingMidReadChangeNothing) {
  constexpr int kExitCode = 4;
  const std::string script = Script("short_threads");
  const PythonRun plain =
      RunPython(python_, script, {}, PlainEnv(), dir_ + "/plain", 60000);
  ASSERT_TRUE(plain.finished);
  ASSERT_TRUE(plain.status.exited) << plain.err;
  ASSERT_EQ(plain.status.code, kExitCode) << plain.err;
  const std::string traces = dir_ + "/traces";
  const PythonRun run =
      RunPython(python_, script, {}, LibraryEnv(traces, "1000", "1000"),
                dir_ + "/run", 60000);
  ASSERT_TRUE(run.finished);
  ASSERT_TRUE(run.status.exited)
      << "killed by signal " << run.status.signal << "\n"
      << run.err;
  EXPECT_EQ(run.status.code, kExitCode) << run.err;
  EXPECT_EQ(run.out, plain.out);
  ExpectCleanStderr(run.err, "short threads");
  const auto files = FindTraceFiles(traces);
  ASSERT_EQ(files.size(), 1u);
  const StackSummary s = SummarizeTrace(files[0]);
  ASSERT_TRUE(s.dumped);
  ASSERT_TRUE(s.has_status);
  EXPECT_EQ(s.state, "python_stacks_on");
  EXPECT_GT(s.stacks, 0u) << Describe(s);
  ExpectStackIdsAnnounced(s, "short threads");
  Note(python_, "short threads: " + Describe(s) + "; run " +
                    std::to_string(run.seconds) + " s");
}

// 5. The off switch: no sample carries a stack, no node is announced, and
// the status says why.
TEST_P(PythonStacksE2eTest, OffSwitchLeavesNoStackIds) {
  const std::string traces = dir_ + "/traces";
  const PythonRun run =
      RunPython(python_, Script("hot"), {"0.5"},
                LibraryEnv(traces, "1000", "0"), dir_ + "/off", 60000);
  ASSERT_TRUE(run.finished);
  ASSERT_TRUE(run.status.exited) << run.err;
  ASSERT_EQ(run.status.code, 0) << run.err;
  ExpectCleanStderr(run.err, "off");
  const auto files = FindTraceFiles(traces);
  ASSERT_EQ(files.size(), 1u);
  const StackSummary s = SummarizeTrace(files[0]);
  ASSERT_TRUE(s.dumped);
  EXPECT_GT(s.thread_samples, 100u) << Describe(s);
  EXPECT_EQ(s.samples_with_stack, 0u) << Describe(s);
  EXPECT_EQ(s.stack_node_lines, 0u) << Describe(s);
  // docs/recording.md: the PythonStackStatus packet says why stacks are
  // off.
  EXPECT_TRUE(s.has_status) << "no python_stacks status line";
  if (s.has_status) {
    EXPECT_EQ(s.state, "python_stacks_disabled");
    EXPECT_EQ(s.stacks, 0u);
  }
  Note(python_, "off: " + Describe(s));
}

// 6. An interpreter older than 3.10 (FEEDPROF_TEST_OLD_PYTHON, when the
// machine has one): the program runs as before, the trace says why there
// are no stacks, and `analyze` says it once.
TEST(PythonStacksOldInterpreterTest, StacksOffWithTheReasonInTraceAndReport) {
  const std::string python = FEEDPROF_TEST_OLD_PYTHON;
  if (python.empty() || access(python.c_str(), X_OK) != 0) {
    GTEST_SKIP() << "no CPython older than 3.10 on this machine";
  }
  const std::string dir = MakeTempDir("pystacks-old");
  ASSERT_FALSE(dir.empty());
  const std::string traces = dir + "/traces";
  const PythonRun run =
      RunPython(python, Script("hot"), {"0.5"}, LibraryEnv(traces, "", ""),
                dir + "/old", 60000);
  ASSERT_TRUE(run.finished);
  ASSERT_TRUE(run.status.exited) << run.err;
  EXPECT_EQ(run.status.code, 0) << run.err;
  const auto files = FindTraceFiles(traces);
  ASSERT_EQ(files.size(), 1u);
  const StackSummary s = SummarizeTrace(files[0]);
  EXPECT_TRUE(s.has_status);
  EXPECT_EQ(s.state, "python_stacks_unsupported");
  EXPECT_EQ(s.samples_with_stack, 0u);
  const std::string report =
      testing::CommandOutput(kCliPath + " analyze '" + traces + "'");
  const size_t said = report.find("no Python stacks were recorded (CPython 3.");
  EXPECT_NE(said, std::string::npos) << report;
  EXPECT_NE(report.find("from 3.10 on", said), std::string::npos) << report;
  std::error_code ec;
  if (!HasFailure()) std::filesystem::remove_all(dir, ec);
}

INSTANTIATE_TEST_SUITE_P(
    Interpreters, PythonStacksE2eTest,
    ::testing::ValuesIn(testing::PythonInterpreters(FEEDPROF_TEST_PYTHONS)),
    testing::PythonTestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PythonStacksE2eTest);

}  // namespace
}  // namespace feedprof::e2e
