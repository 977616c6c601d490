// Each thread's Python code over time (see code_spans.h).
#include "analysis/code_spans.h"

#include <map>
#include <string_view>
#include <utility>

#include "analysis/call_site_text.h"
#include "analysis/user_code.h"
#include "timeline/python_frame_name.h"

namespace feedprof::analysis {
namespace {

// A Python function name's location as reports print it, and whether it is
// the user's code.
struct NameLocation {
  uint32_t location = 0;
  bool user = false;
};

}  // namespace

CodeSpans CodeSpans::Build(const Timeline& timeline,
                           const std::vector<uint32_t>& python_ranges,
                           const UserCodeRule& rule) {
  CodeSpans out;
  if (python_ranges.empty()) return out;
  const std::vector<Range>& ranges = timeline.ranges;
  // Each thread's ranges in the timeline's order (by start, longer first).
  std::map<uint64_t, std::vector<uint32_t>> threads;
  for (const uint32_t i : python_ranges) {
    threads[timeline::ThreadKey(ranges[i].pid, ranges[i].tid)].push_back(i);
  }
  std::unordered_map<StringId, NameLocation> by_name;
  std::unordered_map<std::string, uint32_t> location_index;
  const auto located = [&](StringId name) -> const NameLocation& {
    auto [it, fresh] = by_name.try_emplace(name);
    if (fresh) {
      const timeline::PythonFrameName frame =
          timeline::ParsePythonFrameName(timeline.strings.Get(name));
      auto [index, added] = location_index.try_emplace(
          LineFrameText(frame.function, frame.file, frame.line),
          static_cast<uint32_t>(out.locations_.size()));
      if (added) out.locations_.push_back(index->first);
      it->second.location = index->second;
      it->second.user = IsUserPythonFile(frame.file, rule);
    }
    return it->second;
  };

  for (const auto& [key, indices] : threads) {
    std::vector<CodeSpan>& spans = out.spans_[key];
    std::vector<uint32_t> stack;  // open ranges, innermost last
    // The time up to which the thread's spans are made (unset before its
    // first range).
    TimeNs cursor = 0;
    bool started = false;
    // The stack's location: its innermost user frame, else its innermost.
    const auto location = [&] {
      const auto frame = InnermostUserFrame(
          stack.rbegin(), stack.rend(),
          [&](uint32_t range) { return located(ranges[range].name).user; });
      return located(ranges[*frame].name).location;
    };
    // The stack held from `cursor` to `t`: one more span, or the last one
    // longer when its location is the same.
    const auto advance = [&](TimeNs t) {
      if (started && t <= cursor) return;
      if (started && !stack.empty()) {
        const uint32_t at = location();
        if (!spans.empty() && spans.back().location == at &&
            spans.back().end == cursor) {
          spans.back().end = t;
        } else {
          spans.push_back(CodeSpan{cursor, t, at});
        }
      }
      cursor = t;
      started = true;
    };
    const auto close_until = [&](TimeNs t) {
      while (!stack.empty() && ranges[stack.back()].end <= t) {
        advance(ranges[stack.back()].end);
        stack.pop_back();
      }
    };
    for (const uint32_t i : indices) {
      close_until(ranges[i].start);
      advance(ranges[i].start);
      stack.push_back(i);
    }
    while (!stack.empty()) {
      advance(ranges[stack.back()].end);
      stack.pop_back();
    }
    if (spans.empty()) out.spans_.erase(key);
  }
  return out;
}

const std::vector<CodeSpan>* CodeSpans::SpansOf(int32_t pid,
                                                int32_t tid) const {
  const auto it = spans_.find(timeline::ThreadKey(pid, tid));
  return it == spans_.end() ? nullptr : &it->second;
}

}  // namespace feedprof::analysis
