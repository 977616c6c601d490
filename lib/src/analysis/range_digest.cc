// DigestRanges (range_digest.h). The steps are found as docs/metrics.md,
// "Steps", says: the user's --step-range NAME; PyTorch's ProfilerStep#N;
// NVTX/annotation ranges whose whole name is a step name ("step",
// "train_step", "iteration", "Step 12", "iter#3", ...). Names that merely
// contain "step" ("optimizer.step", "domain-step") are not loop steps.
// Among step names the one with ranges at depth 0 wins, then the most
// frequent, then the longest in total; a name seen once is no loop.
#include "analysis/range_digest.h"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <utility>

#include "analysis/input_production.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {
namespace {

// The step name `name` stands for ("step" for "Step 12", "train_step" for
// "train_step#3"), "" when it is no step name. Case-insensitive; a trailing
// number with an optional separator (space, '#', '_', '-', ':') is the step
// index.
std::string StepNameKey(std::string_view name) {
  std::string lower(name);
  for (char& ch : lower) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  size_t end = lower.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(lower[end - 1]))) {
    --end;
  }
  const bool numbered = end < lower.size();
  if (numbered) {
    while (end > 0 && (lower[end - 1] == ' ' || lower[end - 1] == '#' ||
                       lower[end - 1] == '_' || lower[end - 1] == '-' ||
                       lower[end - 1] == ':')) {
      --end;
    }
  }
  lower.resize(end);
  static constexpr std::string_view kStepNames[] = {
      "step",       "train_step",      "training_step",
      "train step", "training step",   "iteration",
      "iter",       "train_iteration", "train iteration"};
  for (std::string_view known : kStepNames) {
    if (lower == known) return lower;
  }
  return "";
}

// For each interned name, whether it starts with `prefix`: looked up once
// per name instead of once per range (ranges are tens of millions on a big
// trace, their names a few thousand).
template <typename Predicate>
std::vector<bool> NamesWhere(const StringTable& strings, const Predicate& p) {
  std::vector<bool> out(strings.size());
  for (StringId id = 0; id < strings.size(); ++id) out[id] = p(strings.Get(id));
  return out;
}

std::vector<bool> NamesStartingWith(const StringTable& strings,
                                    std::string_view prefix) {
  return NamesWhere(strings, [prefix](std::string_view name) {
    return name.starts_with(prefix);
  });
}

// Ranges with a step name (StepNameKey), grouped by that name; the group
// with depth-0 ranges, then the most ranges, then the longest in total
// wins. Groups of one range are no loop. Sets `source` to "range:NAME".
template <typename InScope>
std::vector<const Range*> StepNamedRanges(const Timeline& tl,
                                          const InScope& in_scope,
                                          std::string* source) {
  struct Group {
    std::string key;
    StringId name = 0;  // the first name as written, for the report
    bool one_name = true;
    bool top_level = false;
    uint64_t count = 0;
    TimeNs total = 0;
  };
  std::vector<Group> groups;
  // Per interned name: index into groups, -1 not a step name, -2 unseen.
  std::vector<int32_t> group_of(tl.strings.size(), -2);
  for (const Range& r : tl.ranges) {
    if (!in_scope(r) || r.name >= group_of.size() ||
        (r.source != RangeSource::kNvtx &&
         r.source != RangeSource::kUserAnnotation)) {
      continue;
    }
    int32_t& g = group_of[r.name];
    if (g == -2) {
      const std::string key = StepNameKey(tl.strings.Get(r.name));
      g = -1;
      if (!key.empty()) {
        for (size_t i = 0; i < groups.size(); ++i) {
          if (groups[i].key == key) g = static_cast<int32_t>(i);
        }
        if (g < 0) {
          groups.push_back({key, r.name});
          g = static_cast<int32_t>(groups.size() - 1);
        }
      }
    }
    if (g < 0) continue;
    Group& group = groups[static_cast<size_t>(g)];
    group.one_name &= group.name == r.name;
    group.top_level |= r.depth == 0;
    ++group.count;
    AddTime(&group.total, r.end - r.start);
  }
  const Group* best = nullptr;
  int32_t best_index = -1;
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    if (g.count < 2) continue;
    const bool better = best == nullptr ||
                        std::tie(g.top_level, g.count, g.total) >
                            std::tie(best->top_level, best->count, best->total);
    if (better) {
      best = &g;
      best_index = static_cast<int32_t>(i);
    }
  }
  std::vector<const Range*> chosen;
  if (best == nullptr) return chosen;
  // "range:train_step", or the common name of "Step 1", "Step 2": "step".
  *source = "range:" + (best->one_name ? std::string(tl.strings.Get(best->name))
                                       : best->key);
  for (const Range& r : tl.ranges) {
    if (in_scope(r) && r.name < group_of.size() &&
        group_of[r.name] == best_index &&
        (r.source == RangeSource::kNvtx ||
         r.source == RangeSource::kUserAnnotation) &&
        (!best->top_level || r.depth == 0)) {
      chosen.push_back(&r);
    }
  }
  return chosen;
}

// For each step (sorted by start then end), the thread of the first range
// of the timeline with its pid, start and end.
std::vector<int32_t> StepThreads(const Timeline& tl,
                                 const std::vector<Range>& steps) {
  using Key = std::tuple<int32_t, TimeNs, TimeNs>;
  std::vector<std::pair<Key, size_t>> keys;  // sorted, with the step's index
  keys.reserve(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    keys.push_back({{steps[i].pid, steps[i].start, steps[i].end}, i});
  }
  std::sort(keys.begin(), keys.end());
  std::vector<int32_t> tids(steps.size(), -1);
  if (keys.empty()) return tids;
  // Most ranges are not steps: a bit per hashed start time passes them
  // over unsearched.
  constexpr int kStartBits = 16;
  const auto start_bit = [](TimeNs start) {
    return static_cast<size_t>(
        (static_cast<uint64_t>(start) * 0x9E3779B97F4A7C15ull) >>
        (64 - kStartBits));
  };
  std::vector<uint64_t> step_starts((size_t{1} << kStartBits) / 64, 0);
  for (const auto& k : keys) {
    const size_t bit = start_bit(std::get<1>(k.first));
    step_starts[bit / 64] |= uint64_t{1} << (bit % 64);
  }
  for (const Range& r : tl.ranges) {
    const size_t bit = start_bit(r.start);
    if ((step_starts[bit / 64] >> (bit % 64) & 1) == 0) continue;
    const Key key{r.pid, r.start, r.end};
    auto it = std::lower_bound(keys.begin(), keys.end(), key,
                               [](const std::pair<Key, size_t>& e,
                                  const Key& k) { return e.first < k; });
    // Every step with this key takes the thread of its first range.
    for (; it != keys.end() && it->first == key; ++it) {
      if (tids[it->second] < 0) tids[it->second] = r.tid;
    }
  }
  return tids;
}

}  // namespace

bool PidSelected(const std::vector<int32_t>& pids, int32_t pid) {
  return pids.empty() || std::binary_search(pids.begin(), pids.end(), pid);
}

RangeDigest DigestRanges(const Timeline& timeline,
                         const std::vector<int32_t>& pids, const Window& window,
                         std::string_view step_range_name) {
  const Timeline& tl = timeline;
  const Window& w = window;
  RangeDigest digest;
  auto overlaps_window = [&](const Range& r) {
    return r.end >= w.start && r.start <= w.end;
  };
  auto in_scope = [&](const Range& r) {
    return PidSelected(pids, r.pid) && overlaps_window(r) && r.end > r.start;
  };

  // ProfilerStep#N ranges, or the user's --step-range NAME prefix (never
  // empty); a name the string table does not hold is "", no step.
  const std::string_view step_prefix = step_range_name.empty()
                                           ? std::string_view("ProfilerStep#")
                                           : step_range_name;
  const std::vector<bool> step_name =
      NamesStartingWith(tl.strings, step_prefix);
  const auto is_step = [&](const Range& r) {
    const bool named = r.name < step_name.size() && step_name[r.name];
    return step_range_name.empty()
               ? r.source == RangeSource::kProfilerStep || named
               : named;
  };
  // Ranges that say a thread produced input (input_production.h).
  const std::vector<bool> input_name =
      NamesWhere(tl.strings, NamesInputLoading);
  const std::vector<bool> loading_code =
      NamesWhere(tl.strings, InDataLoadingCode);
  const auto produces_input = [&](const Range& r) {
    const auto named = [&](const std::vector<bool>& v) {
      return r.name < v.size() && v[r.name];
    };
    switch (r.source) {
      case RangeSource::kDataLoader:
        return true;
      case RangeSource::kPythonFunction:
        return named(loading_code);
      case RangeSource::kNvtx:
      case RangeSource::kUserAnnotation:
        return named(input_name);
      case RangeSource::kProfilerStep:
      case RangeSource::kCpuOp:
        return false;
    }
    return false;
  };
  std::vector<const Range*> chosen;
  for (uint32_t i = 0; i < tl.ranges.size(); ++i) {
    const Range& r = tl.ranges[i];
    if (!PidSelected(pids, r.pid)) continue;
    digest.in_window += overlaps_window(r);
    if (r.source == RangeSource::kPythonFunction) {
      digest.python_ranges.push_back(i);
    }
    if (r.source == RangeSource::kPythonFunction ||
        r.source == RangeSource::kCpuOp) {
      digest.stack_ranges.push_back(i);
    }
    if (produces_input(r)) digest.input_ranges.push_back(i);
    if (r.source == RangeSource::kDataLoader) {
      const TimeNs d = std::min(r.end, w.end) - std::max(r.start, w.start);
      if (d > 0) {
        AddTime(&digest.dataloader_ns, d);
        ++digest.dataloader_ranges;
      }
    }
    if (!in_scope(r)) continue;
    if (is_step(r)) chosen.push_back(&r);
  }
  if (!step_range_name.empty()) {
    digest.step_source = "user:" + std::string(step_range_name);
  } else if (!chosen.empty()) {
    digest.step_source = "ProfilerStep";
  } else {
    chosen = StepNamedRanges(tl, in_scope, &digest.step_source);
  }
  if (chosen.empty()) {
    digest.step_source.clear();
    return digest;
  }
  std::sort(chosen.begin(), chosen.end(), [](const Range* a, const Range* b) {
    return a->start != b->start ? a->start < b->start : a->end < b->end;
  });
  // The same step recorded twice (a CPU op and an annotation): keep one.
  chosen.erase(std::unique(chosen.begin(), chosen.end(),
                           [](const Range* a, const Range* b) {
                             return a->start == b->start && a->end == b->end &&
                                    a->pid == b->pid;
                           }),
               chosen.end());
  digest.steps.reserve(chosen.size());
  for (const Range* r : chosen) digest.steps.push_back(*r);
  digest.step_tids = StepThreads(tl, digest.steps);
  return digest;
}

}  // namespace feedprof::analysis
