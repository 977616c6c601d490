// Where threads produced their own input (see input_production.h).
#include "analysis/input_production.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "absl/strings/ascii.h"
#include "analysis/quantile.h"
#include "analysis/range_digest.h"
#include "timeline/thread_key.h"

namespace feedprof::analysis {
namespace {

constexpr std::string_view kInputNamePrefixes[] = {
    "data_load", "dataload",    "load_batch", "load_data",      "next_batch",
    "get_batch", "fetch_batch", "read_batch", "input_pipeline",
};
constexpr std::string_view kDataLoadingPaths[] = {
    "torch/utils/data/",
    "torchdata/",
    "webdataset/",
};

// A sample stands for its period around its time.
InputSpan SampleSpan(const StackSample& s, TimeNs weight) {
  return {s.pid, s.tid, s.ts - weight / 2, s.ts - weight / 2 + weight};
}

}  // namespace

bool NamesInputLoading(std::string_view name) {
  std::string n = absl::AsciiStrToLower(std::string(name));
  for (char& c : n) {
    if (c == ' ' || c == '.' || c == '-') c = '_';
  }
  if (n.find("dataloader") != std::string::npos) return true;
  for (std::string_view p : kInputNamePrefixes) {
    if (std::string_view(n).substr(0, p.size()) == p) return true;
  }
  return false;
}

bool InDataLoadingCode(std::string_view path) {
  for (std::string_view p : kDataLoadingPaths) {
    if (path.find(p) != std::string_view::npos) return true;
  }
  return false;
}

std::pair<const InputSpan*, const InputSpan*> InputProduction::Of(
    int32_t pid, int32_t tid) const {
  const auto key = [](const InputSpan& s) { return std::tie(s.pid, s.tid); };
  const auto lo = std::lower_bound(
      spans.begin(), spans.end(), std::make_pair(pid, tid),
      [&](const InputSpan& s, const std::pair<int32_t, int32_t>& k) {
        return key(s) < std::tie(k.first, k.second);
      });
  auto hi = lo;
  while (hi != spans.end() && hi->pid == pid && hi->tid == tid) ++hi;
  return {spans.data() + (lo - spans.begin()),
          spans.data() + (hi - spans.begin())};
}

InputProduction FindInputProduction(const Timeline& timeline,
                                    const std::vector<uint32_t>& range_indices,
                                    const std::vector<int32_t>& pids,
                                    const Window& window) {
  InputProduction out;
  std::vector<InputSpan> spans;
  const auto add = [&](InputEvidence evidence, InputSpan s) {
    s.start = std::max(s.start, window.start);
    s.end = std::min(s.end, window.end);
    if (s.end <= s.start) return;
    out.by_evidence[static_cast<size_t>(evidence)] += s.end - s.start;
    spans.push_back(s);
  };
  for (uint32_t i : range_indices) {
    const Range& r = timeline.ranges[i];
    if (!PidSelected(pids, r.pid)) continue;
    const InputSpan s{r.pid, r.tid, r.start, r.end};
    if (r.source == RangeSource::kDataLoader) {
      add(InputEvidence::kDataLoaderOp, s);
    } else if (r.source == RangeSource::kPythonFunction) {
      add(InputEvidence::kDataLoadingCode, s);
    } else {
      add(InputEvidence::kInputAnnotation, s);
    }
  }

  // Stack samples in data-loading code, each for its period (its weight,
  // else the median gap between its thread's samples).
  std::vector<int8_t> site_loads(timeline.call_sites.size(), -1);  // memo
  const auto loads = [&](uint32_t site) {
    int8_t& known = site_loads[site];
    if (known < 0) {
      known = 0;
      for (const Frame& f : timeline.call_sites[site].frames) {
        if (f.kind == FrameKind::kPython &&
            InDataLoadingCode(timeline.strings.Get(f.file))) {
          known = 1;
          break;
        }
      }
    }
    return known == 1;
  };
  std::map<uint64_t, std::vector<const StackSample*>> threads;
  for (const StackSample& s : timeline.stack_samples) {
    if (!PidSelected(pids, s.pid) || s.ts < window.start || s.ts > window.end ||
        s.stack >= timeline.call_sites.size()) {
      continue;
    }
    threads[timeline::ThreadKey(s.pid, s.tid)].push_back(&s);
  }
  for (const auto& [key, samples] : threads) {
    std::vector<TimeNs> times;
    bool any = false;
    for (const StackSample* s : samples) {
      times.push_back(s->ts);
      any = any || loads(s->stack);
    }
    if (!any) continue;
    const TimeNs period = MedianGap(std::move(times));
    for (const StackSample* s : samples) {
      const TimeNs weight = s->weight_ns > 0 ? s->weight_ns : period;
      if (weight > 0 && loads(s->stack)) {
        add(InputEvidence::kDataLoadingSamples, SampleSpan(*s, weight));
      }
    }
  }

  // Each thread's spans merged.
  std::sort(spans.begin(), spans.end(),
            [](const InputSpan& a, const InputSpan& b) {
              return std::tie(a.pid, a.tid, a.start) <
                     std::tie(b.pid, b.tid, b.start);
            });
  for (const InputSpan& s : spans) {
    InputSpan* last = out.spans.empty() ? nullptr : &out.spans.back();
    if (last != nullptr && last->pid == s.pid && last->tid == s.tid &&
        s.start <= last->end) {
      last->end = std::max(last->end, s.end);
    } else {
      out.spans.push_back(s);
    }
  }
  return out;
}

}  // namespace feedprof::analysis
