// A module the reader tests and the stack benchmark load with ctypes into
// real interpreters: it exposes the recorder's line-table decoder and the
// Python stack sampler, and decodes what the sampler submits (StackNodes
// packets, interned strings) back into text.
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "feedprof.pb.h"
#include "preload/python/line_table.h"
#include "preload/python/python_runtime.h"
#include "preload/python/python_stack_sampler.h"

namespace {

namespace python = feedprof::preload::python;

struct Captured {
  std::map<uint32_t, std::string> strings;
  std::map<uint32_t, feedprof::trace::StackNode> nodes;
  feedprof::trace::PythonStackStatus status;
};

Captured& State() {
  static auto* state = new Captured();
  return *state;
}

uint32_t Intern(std::string_view text, void*) {
  auto& strings = State().strings;
  for (const auto& [id, value] : strings) {
    if (value == text) return id;
  }
  const auto id = static_cast<uint32_t>(strings.size() + 1);
  strings[id] = std::string(text);
  return id;
}

bool Submit(const uint8_t* bytes, size_t size, void*) {
  feedprof::trace::Packet packet;
  if (!packet.ParseFromArray(bytes, static_cast<int>(size))) return false;
  if (packet.has_stack_nodes()) {
    for (const auto& node : packet.stack_nodes().nodes()) {
      State().nodes[node.id()] = node;
    }
  }
  if (packet.has_python_stacks()) State().status = packet.python_stacks();
  return true;
}

python::PythonStackSampler& Sampler() {
  static auto* sampler = [] {
    auto* s = new python::PythonStackSampler();
    python::PythonStackSinks sinks;
    sinks.submit_packet = &Submit;
    sinks.intern_string = &Intern;
    s->Init(sinks);
    return s;
  }();
  return *sampler;
}

// "file:line:function|..." innermost first.
std::string StackText(uint32_t node) {
  std::string text;
  for (int depth = 0; node != 0 && depth < 10000; ++depth) {
    auto it = State().nodes.find(node);
    if (it == State().nodes.end()) return text + "<missing node>";
    if (!text.empty()) text += "|";
    text += State().strings[it->second.file_id()] + ":" +
            std::to_string(it->second.line()) + ":" +
            State().strings[it->second.function_id()];
    node = it->second.parent_id();
  }
  return text;
}

}  // namespace

#define PROBE_EXPORT extern "C" __attribute__((visibility("default")))

// The recorder's line for `offset`; format 0 is 3.10's table, 1 the 3.11+
// location table.
PROBE_EXPORT unsigned fp_line_of_offset(int format, const uint8_t* table,
                                        unsigned long size, int first_line,
                                        unsigned offset) {
  return python::LineOfOffset(format == 0
                                  ? python::LineTableFormat::kLineTable310
                                  : python::LineTableFormat::kLocations311,
                              table, size, first_line, offset);
}

// One sampling round: a line per thread with a stack,
// "tid<TAB>file:line:function|...", then "state=N stacks=N torn=N".
// Waits for the interpreter to be found (the sampler looks every 20 ms).
PROBE_EXPORT int fp_sample_round(char* out, int size) {
  python::ThreadStack stacks[python::PythonStackSampler::kMaxThreads];
  size_t n = 0;
  for (int attempt = 0; attempt < 200; ++attempt) {
    n = Sampler().SampleRound(stacks, python::PythonStackSampler::kMaxThreads);
    if (Sampler().state() != python::PythonStackState::kUnknown) break;
    usleep(25000);
  }
  Sampler().SubmitStatus();
  std::string text;
  for (size_t i = 0; i < n; ++i) {
    text += std::to_string(stacks[i].tid) + "\t" +
            StackText(stacks[i].stack_id) + "\n";
  }
  const auto& status = State().status;
  text += "state=" + std::to_string(status.state()) +
          " stacks=" + std::to_string(status.stacks()) +
          " torn=" + std::to_string(status.torn()) +
          " detail=" + status.detail() + "\n";
  std::snprintf(out, static_cast<size_t>(size), "%s", text.c_str());
  return static_cast<int>(n);
}

// Nanoseconds per stack read and interned (steady state: the same stack
// again) of thread `tid`, the best of `repeats` runs of `iterations`; -1
// when the thread has no stack.
PROBE_EXPORT double fp_time_stack_read(unsigned tid, int iterations,
                                       int repeats) {
  auto& sampler = Sampler();
  python::ThreadStack stacks[python::PythonStackSampler::kMaxThreads];
  sampler.SampleRound(stacks, python::PythonStackSampler::kMaxThreads);
  const uint64_t tstate = sampler.ThreadStateOf(tid);
  if (tstate == 0) return -1;
  double best = -1;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    uint32_t got = 0;
    for (int i = 0; i < iterations; ++i) {
      uint32_t thread = 0;
      uint64_t next = 0;
      got = sampler.SampleThread(tstate, &thread, &next);
    }
    const double ns = std::chrono::duration<double, std::nano>(
                          std::chrono::steady_clock::now() - start)
                          .count() /
                      iterations;
    if (got == 0) return -1;
    if (best < 0 || ns < best) best = ns;
  }
  sampler.FlushNodes();
  return best;
}

// The stack of thread `tid` as text (after fp_time_stack_read or a round).
PROBE_EXPORT int fp_stack_of(unsigned tid, char* out, int size) {
  auto& sampler = Sampler();
  const uint64_t tstate = sampler.ThreadStateOf(tid);
  uint32_t thread = 0;
  uint64_t next = 0;
  const uint32_t node =
      tstate != 0 ? sampler.SampleThread(tstate, &thread, &next) : 0;
  sampler.FlushNodes();
  std::snprintf(out, static_cast<size_t>(size), "%s", StackText(node).c_str());
  return node != 0;
}
