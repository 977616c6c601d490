// Python stacks of a Kineto trace's CUDA calls (see kineto_python_stacks.h).
#include "kineto/kineto_python_stacks.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "timeline/python_frame_name.h"
#include "timeline/thread_key.h"

namespace feedprof::kineto {
namespace {

// The indices of one thread's Python ranges and API calls, each in the
// timeline's (start) order.
struct ThreadEvents {
  std::vector<uint32_t> frames;
  std::vector<uint32_t> calls;
};

}  // namespace

Frame PythonFrameOf(std::string_view name, StringTable& strings) {
  const timeline::PythonFrameName parsed = timeline::ParsePythonFrameName(name);
  Frame frame;
  frame.kind = FrameKind::kPython;
  if (!parsed.file.empty()) frame.file = strings.Intern(parsed.file);
  frame.line = parsed.line;
  frame.function = strings.Intern(parsed.function);
  return frame;
}

uint64_t AttachPythonCallSites(Timeline& timeline) {
  // By thread key, so that the sites are numbered the same on every run.
  std::map<uint64_t, ThreadEvents> threads;
  for (uint32_t i = 0; i < timeline.ranges.size(); ++i) {
    const Range& r = timeline.ranges[i];
    if (r.source != RangeSource::kPythonFunction) continue;
    threads[timeline::ThreadKey(r.pid, r.tid)].frames.push_back(i);
  }
  if (threads.empty()) return 0;
  for (uint32_t i = 0; i < timeline.api_calls.size(); ++i) {
    const ApiCall& c = timeline.api_calls[i];
    if (c.call_site != 0) continue;
    const auto it = threads.find(timeline::ThreadKey(c.pid, c.tid));
    if (it != threads.end()) it->second.calls.push_back(i);
  }

  // Each distinct name parsed once; each distinct stack (names, innermost
  // first) one call site.
  std::unordered_map<StringId, Frame> frame_of;
  std::map<std::vector<StringId>, uint32_t> site_of;
  std::vector<StringId> stack_names;
  uint64_t attached = 0;
  for (auto& [key, events] : threads) {
    // The ranges that contain the current call's start, outermost first:
    // ranges come by start (the longer first), so a range opens after
    // every range that contains it.
    std::vector<uint32_t> open;
    size_t next_frame = 0;
    for (const uint32_t call_index : events.calls) {
      ApiCall& call = timeline.api_calls[call_index];
      while (next_frame < events.frames.size() &&
             timeline.ranges[events.frames[next_frame]].start <= call.start) {
        const uint32_t frame = events.frames[next_frame++];
        while (!open.empty() && timeline.ranges[open.back()].end <=
                                    timeline.ranges[frame].start) {
          open.pop_back();
        }
        open.push_back(frame);
      }
      // The stack when the call started: ranges that ended by then are off
      // it.
      while (!open.empty() && timeline.ranges[open.back()].end <= call.start) {
        open.pop_back();
      }
      if (open.empty()) continue;
      stack_names.clear();
      for (auto frame = open.rbegin(); frame != open.rend(); ++frame) {
        stack_names.push_back(timeline.ranges[*frame].name);
      }
      auto [site, added] = site_of.try_emplace(
          stack_names, static_cast<uint32_t>(timeline.call_sites.size()));
      if (added) {
        CallSite call_site;
        call_site.python = true;
        call_site.frames.reserve(stack_names.size());
        for (const StringId name : stack_names) {
          auto [parsed, fresh] = frame_of.try_emplace(name);
          if (fresh) {
            parsed->second = PythonFrameOf(
                std::string(timeline.strings.Get(name)), timeline.strings);
          }
          call_site.frames.push_back(parsed->second);
        }
        timeline.call_sites.push_back(std::move(call_site));
      }
      call.call_site = site->second;
      ++attached;
    }
  }
  return attached;
}

}  // namespace feedprof::kineto
