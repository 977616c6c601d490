// Each host thread's time by stack (see code_profile.h).
#include "analysis/code_profile.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include "analysis/call_site_text.h"
#include "analysis/quantile.h"
#include "analysis/range_digest.h"
#include "analysis/time_sum.h"
#include "analysis/user_code.h"
#include "timeline/python_frame_name.h"
#include "timeline/thread_key.h"

namespace feedprof::analysis {
namespace {

// An interval of a thread's stack: a range or a CUDA call, clipped to the
// window.
struct StackEvent {
  TimeNs start = 0;
  TimeNs end = 0;
  uint32_t frame = 0;
};

// What a role's profile adds up, by frame.
struct FrameTimes {
  TimeNs self_ns = 0;
  TimeNs total_ns = 0;
  TimeNs user_ns = 0;
};

bool MoreTime(const CodeLocationTime& a, const CodeLocationTime& b) {
  return a.self_ns != b.self_ns ? a.self_ns > b.self_ns
                                : a.location < b.location;
}

// What a sampled stack's frame is.
CodeFrameKind SampledFrameKind(const Timeline& timeline, const CallSite& site,
                               const Frame& f, const UserCodeRule& rule) {
  if (site.python || f.kind == FrameKind::kPython) {
    return IsUserPythonFile(timeline.strings.Get(f.file), rule)
               ? CodeFrameKind::kUserCode
               : CodeFrameKind::kPython;
  }
  if (f.kind == FrameKind::kFrameworkOp) return CodeFrameKind::kOperator;
  return IsUserNativeModule(timeline.strings.Get(f.module), rule)
             ? CodeFrameKind::kUserCode
             : CodeFrameKind::kNative;
}

}  // namespace

// A role's threads merged: their trees into one, their frames' times.
struct CodeProfiles::RoleTally {
  uint32_t threads = 0;
  TimeNs located_ns = 0;
  std::unordered_map<uint32_t, FrameTimes> frames;
  ThreadTree tree;
};

uint32_t CodeProfiles::ThreadTree::Child(uint32_t parent, uint32_t frame) {
  const uint64_t key = (static_cast<uint64_t>(parent) << 32) | frame;
  auto [it, fresh] =
      children.try_emplace(key, static_cast<uint32_t>(nodes.size()));
  if (fresh) nodes.push_back(Node{parent, frame, 0});
  return it->second;
}

uint32_t CodeProfiles::FrameOf(std::string label, CodeFrameKind kind) {
  auto [it, fresh] =
      frame_index_.try_emplace(label, static_cast<uint32_t>(frames_.size()));
  if (fresh) frames_.push_back(FrameInfo{std::move(label), kind});
  return it->second;
}

CodeProfiles::ThreadTree& CodeProfiles::TreeOf(int32_t pid, int32_t tid) {
  auto [it, fresh] = thread_index_.try_emplace(
      timeline::ThreadKey(pid, tid), static_cast<uint32_t>(threads_.size()));
  if (fresh) {
    threads_.emplace_back();
    threads_.back().pid = pid;
    threads_.back().tid = tid;
  }
  return threads_[it->second];
}

CodeProfiles CodeProfiles::Build(const Timeline& timeline,
                                 const std::vector<uint32_t>& stack_ranges,
                                 const std::vector<int32_t>& pids,
                                 const Window& window,
                                 const UserCodeRule& rule) {
  CodeProfiles out;
  if (!stack_ranges.empty()) {
    out.basis_ = CodeProfileBasis::kStackTimeline;
    out.AddRanges(timeline, stack_ranges, pids, window, rule);
  } else if (!timeline.stack_samples.empty()) {
    out.basis_ = CodeProfileBasis::kStackSamples;
    out.AddSamples(timeline, pids, window, rule);
  }
  return out;
}

void CodeProfiles::AddRanges(const Timeline& timeline,
                             const std::vector<uint32_t>& stack_ranges,
                             const std::vector<int32_t>& pids,
                             const Window& window, const UserCodeRule& rule) {
  std::map<uint64_t, std::vector<StackEvent>> threads;
  std::unordered_map<StringId, uint32_t> frame_of_name;
  const auto clipped = [&window](TimeNs start, TimeNs end, StackEvent* e) {
    e->start = std::max(start, window.start);
    e->end = std::min(end, window.end);
    return e->end > e->start;
  };
  for (const uint32_t i : stack_ranges) {
    const Range& r = timeline.ranges[i];
    StackEvent e;
    if (!clipped(r.start, r.end, &e)) continue;
    auto [it, fresh] = frame_of_name.try_emplace(r.name, 0);
    if (fresh) {
      const std::string_view name = timeline.strings.Get(r.name);
      if (r.source == RangeSource::kPythonFunction) {
        const timeline::PythonFrameName f =
            timeline::ParsePythonFrameName(name);
        it->second =
            FrameOf(LineFrameText(f.function, f.file, f.line),
                    IsUserPythonFile(f.file, rule) ? CodeFrameKind::kUserCode
                                                   : CodeFrameKind::kPython);
      } else {
        it->second = FrameOf(std::string(name), CodeFrameKind::kOperator);
      }
    }
    e.frame = it->second;
    threads[timeline::ThreadKey(r.pid, r.tid)].push_back(e);
  }
  // The CUDA calls of those threads, as their innermost frames: time
  // blocked in a sync shows under the line that synchronized.
  std::unordered_map<StringId, uint32_t> frame_of_api;
  for (const ApiCall& c : timeline.api_calls) {
    if (!PidSelected(pids, c.pid)) continue;
    const auto it = threads.find(timeline::ThreadKey(c.pid, c.tid));
    StackEvent e;
    if (it == threads.end() || !clipped(c.start, c.end, &e)) continue;
    auto [f, fresh] = frame_of_api.try_emplace(c.name, 0);
    if (fresh) {
      f->second = FrameOf(std::string(timeline.strings.Get(c.name)),
                          CodeFrameKind::kCudaCall);
    }
    e.frame = f->second;
    it->second.push_back(e);
  }

  for (auto& [key, events] : threads) {
    std::stable_sort(events.begin(), events.end(),
                     [](const StackEvent& a, const StackEvent& b) {
                       return a.start != b.start ? a.start < b.start
                                                 : a.end > b.end;
                     });
    ThreadTree& tree = TreeOf(static_cast<int32_t>(key >> 32),
                              static_cast<int32_t>(key & 0xFFFFFFFFu));
    struct Open {
      TimeNs end;
      uint32_t node;
    };
    std::vector<Open> stack;
    TimeNs cursor = 0;
    const auto advance = [&](TimeNs t) {
      if (!stack.empty() && t > cursor) {
        AddTime(&tree.nodes[stack.back().node].self_ns, t - cursor);
      }
      cursor = std::max(cursor, t);
    };
    for (const StackEvent& e : events) {
      while (!stack.empty() && stack.back().end <= e.start) {
        advance(stack.back().end);
        stack.pop_back();
      }
      if (stack.empty()) cursor = std::max(cursor, e.start);
      advance(e.start);
      // An event that outlasts the one it starts in (overlapping
      // siblings, as a broken trace has them) ends with it.
      const TimeNs end =
          stack.empty() ? e.end : std::min(e.end, stack.back().end);
      if (end <= e.start) continue;
      stack.push_back(Open{
          end, tree.Child(stack.empty() ? 0 : stack.back().node, e.frame)});
    }
    while (!stack.empty()) {
      advance(stack.back().end);
      stack.pop_back();
    }
  }
}

void CodeProfiles::AddSamples(const Timeline& timeline,
                              const std::vector<int32_t>& pids,
                              const Window& window, const UserCodeRule& rule) {
  std::map<uint64_t, std::vector<const StackSample*>> threads;
  for (const StackSample& s : timeline.stack_samples) {
    if (!PidSelected(pids, s.pid) || s.ts < window.start || s.ts > window.end ||
        s.stack == 0 || s.stack >= timeline.call_sites.size()) {
      continue;
    }
    threads[timeline::ThreadKey(s.pid, s.tid)].push_back(&s);
  }
  std::unordered_map<uint64_t, uint32_t> frame_of;  // (site, depth)
  for (const auto& [key, samples] : threads) {
    std::vector<TimeNs> times;
    times.reserve(samples.size());
    for (const StackSample* s : samples) times.push_back(s->ts);
    const TimeNs period = MedianGap(std::move(times));
    ThreadTree& tree = TreeOf(static_cast<int32_t>(key >> 32),
                              static_cast<int32_t>(key & 0xFFFFFFFFu));
    for (const StackSample* s : samples) {
      const TimeNs weight = s->weight_ns > 0 ? s->weight_ns : period;
      if (weight <= 0) continue;
      const CallSite& site = timeline.call_sites[s->stack];
      uint32_t node = 0;
      for (size_t d = site.frames.size(); d-- > 0;) {
        const uint64_t at = (static_cast<uint64_t>(s->stack) << 16) | d;
        auto [it, fresh] = frame_of.try_emplace(at, 0);
        if (fresh) {
          const Frame& f = site.frames[d];
          it->second =
              FrameOf(FrameText(timeline, f,
                                site.python || f.kind == FrameKind::kPython),
                      SampledFrameKind(timeline, site, f, rule));
        }
        node = tree.Child(node, it->second);
      }
      if (node != 0) AddTime(&tree.nodes[node].self_ns, weight);
    }
  }
}

HostCode CodeProfiles::Finish(
    const std::function<ThreadRole(int32_t pid, int32_t tid)>& role_of) const {
  HostCode out;
  if (threads_.empty()) return out;
  out.basis = basis_;
  constexpr size_t kRoles = 3;
  std::vector<RoleTally> tallies(kRoles);
  // The thread's nodes merged into its role's tree, by its own node index.
  std::vector<uint32_t> role_node;
  // Which node last counted a frame's total: a frame that recurs on one
  // stack counts once.
  std::vector<uint32_t> counted(frames_.size(), 0);
  uint32_t stamp = 0;
  for (const ThreadTree& tree : threads_) {
    TimeNs located = 0;
    for (const Node& n : tree.nodes) AddTime(&located, n.self_ns);
    if (located == 0) continue;
    RoleTally& tally =
        tallies[static_cast<size_t>(role_of(tree.pid, tree.tid))];
    ++tally.threads;
    AddTime(&tally.located_ns, located);
    // A node's parent comes before it, so one pass maps the tree.
    role_node.assign(tree.nodes.size(), 0);
    for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
      const Node& n = tree.nodes[i];
      role_node[i] = tally.tree.Child(role_node[n.parent], n.frame);
      const TimeNs self = n.self_ns;
      if (self == 0) continue;
      AddTime(&tally.tree.nodes[role_node[i]].self_ns, self);
      AddTime(&tally.frames[n.frame].self_ns, self);
      ++stamp;
      bool user_found = false;
      for (uint32_t at = i; at != 0; at = tree.nodes[at].parent) {
        const uint32_t f = tree.nodes[at].frame;
        if (counted[f] != stamp) {
          counted[f] = stamp;
          AddTime(&tally.frames[f].total_ns, self);
        }
        if (!user_found && frames_[f].user()) {
          user_found = true;
          AddTime(&tally.frames[f].user_ns, self);
        }
      }
    }
  }
  // Frames as the report holds them: each used one once, by first use.
  std::vector<uint32_t> out_index(frames_.size(), UINT32_MAX);
  const auto frame_out = [&](uint32_t f) {
    if (out_index[f] == UINT32_MAX) {
      out_index[f] = static_cast<uint32_t>(out.frames.size());
      out.frames.push_back(CodeFrame{frames_[f].label, frames_[f].kind});
    }
    return out_index[f];
  };
  for (size_t r = 0; r < kRoles; ++r) {
    RoleTally& tally = tallies[r];
    if (tally.threads == 0) continue;
    RoleCodeProfile role;
    role.role = static_cast<ThreadRole>(r);
    role.threads = tally.threads;
    role.located_ns = tally.located_ns;
    for (const auto& [frame, t] : tally.frames) {
      const FrameInfo& info = frames_[frame];
      if (t.self_ns > 0) {
        role.top.push_back(
            {info.label, info.user(), info.kind, t.self_ns, t.total_ns});
      }
      if (t.user_ns > 0) {
        role.user_lines.push_back(
            {info.label, true, info.kind, t.user_ns, t.total_ns});
      }
    }
    for (auto* rows : {&role.top, &role.user_lines}) {
      std::sort(rows->begin(), rows->end(), MoreTime);
      if (rows->size() > kHostCodeRows) rows->resize(kHostCodeRows);
    }
    // The stacks: the role tree's nodes with time of their own, heaviest
    // first; equal times in node order, so the output is the same on
    // every run.
    const std::vector<Node>& nodes = tally.tree.nodes;
    std::vector<uint32_t> heavy;
    for (uint32_t i = 1; i < nodes.size(); ++i) {
      if (nodes[i].self_ns > 0) heavy.push_back(i);
    }
    std::stable_sort(heavy.begin(), heavy.end(), [&](uint32_t a, uint32_t b) {
      return nodes[a].self_ns > nodes[b].self_ns;
    });
    for (size_t k = 0; k < heavy.size(); ++k) {
      const Node& n = nodes[heavy[k]];
      if (k >= kFoldedStacksKept) {
        AddTime(&role.other_ns, n.self_ns);
        continue;
      }
      FoldedStack folded;
      folded.self_ns = n.self_ns;
      for (uint32_t at = heavy[k]; at != 0; at = nodes[at].parent) {
        folded.frames.push_back(nodes[at].frame);
      }
      std::reverse(folded.frames.begin(), folded.frames.end());
      for (uint32_t& f : folded.frames) f = frame_out(f);
      role.stacks.push_back(std::move(folded));
    }
    out.roles.push_back(std::move(role));
  }
  out.available = !out.roles.empty();
  return out;
}

}  // namespace feedprof::analysis
