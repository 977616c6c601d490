// Builds the analyzer's view of a timeline (see prepared_timeline.h).
#include "analysis/prepared_timeline.h"

#include <algorithm>
#include <future>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/time_sum.h"
#include "common/correlation_index.h"
#include "common/parallel_for.h"
#include "common/recent_key_cache.h"
#include "platform/usable_cores.h"
#include "timeline/time_limits.h"

namespace feedprof::analysis {
namespace {

constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::max();
constexpr uint32_t kNoTable = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kNoThread = std::numeric_limits<uint32_t>::max();

// Correlation ids of one process → API call index (-1: none).
struct CorrelationTable {
  int32_t pid = 0;
  uint64_t min = std::numeric_limits<uint64_t>::max();
  uint64_t max = 0;
  uint64_t count = 0;
  common::CorrelationIndex index{0, 0, 0};

  int32_t Find(uint64_t corr) const {
    const uint32_t i = index.Find(corr);
    return i == common::CorrelationIndex::kNone ? -1 : static_cast<int32_t>(i);
  }
};

// Which of two calls with one correlation id launched the op: the runtime
// call over a driver call it made (CUPTI and Nsight record both), else the
// outer one (starts first, or ends last when they start together).
bool PreferredLauncher(const ApiCall& a, const ApiCall& b) {
  const bool a_runtime = a.domain == ApiDomain::kRuntime;
  const bool b_runtime = b.domain == ApiDomain::kRuntime;
  if (a_runtime != b_runtime) return a_runtime;
  if (a.start != b.start) return a.start < b.start;
  return a.end > b.end;
}

}  // namespace

size_t PreparedTimeline::PassThreads(uint64_t events) {
  return events >= kParallelPassesMinEvents ? platform::UsableCores() : 1;
}

uint64_t PreparedTimeline::CountEvents(const Timeline& timeline) {
  return timeline.gpu_ops.size() + timeline.api_calls.size() +
         timeline.syncs.size() + timeline.ranges.size() +
         timeline.marks.size() + timeline.thread_samples.size() +
         timeline.process_samples.size() + timeline.system_samples.size() +
         timeline.disk_samples.size() + timeline.nfs_samples.size() +
         timeline.counters.size();
}

absl::StatusOr<PreparedTimeline> PreparedTimeline::Build(
    const Timeline& timeline, const AnalysisOptions& options,
    const std::vector<int32_t>& pids, Timeline* releasable) {
  PreparedTimeline p;
  p.timeline_ = &timeline;
  p.releasable_ = releasable == &timeline ? releasable : nullptr;
  p.pids_ = pids;
  if (p.pids_.empty() && options.rank.has_value()) {
    std::vector<int32_t> ranks;
    for (const Process& proc : timeline.processes) {
      if (proc.rank == *options.rank) p.pids_.push_back(proc.pid);
      if (proc.rank >= 0) ranks.push_back(proc.rank);
    }
    // Forked children (DataLoader workers) belong to their rank.
    for (size_t added = 1; added > 0 && !p.pids_.empty();) {
      added = 0;
      for (const Process& proc : timeline.processes) {
        const bool parent_in = std::find(p.pids_.begin(), p.pids_.end(),
                                         proc.ppid) != p.pids_.end();
        const bool in = std::find(p.pids_.begin(), p.pids_.end(), proc.pid) !=
                        p.pids_.end();
        if (parent_in && !in && proc.rank < 0) {
          p.pids_.push_back(proc.pid);
          ++added;
        }
      }
    }
    if (p.pids_.empty()) {
      std::sort(ranks.begin(), ranks.end());
      ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
      return absl::NotFoundError(
          ranks.empty()
              ? absl::StrCat("no process with rank ", *options.rank,
                             ": the trace has no rank information (not a "
                             "distributed run, or the ranks were not "
                             "recorded). Run without --rank.")
              : absl::StrCat("no process with rank ", *options.rank,
                             " in the trace; ranks present: ",
                             absl::StrJoin(ranks, ", "),
                             ". Pick one of those with --rank."));
    }
  }
  std::sort(p.pids_.begin(), p.pids_.end());

  // Trace extent: earliest GPU op, API call or range of the selected
  // processes (host samples may start long before, at process start). A
  // trace without GPU work is the recording itself: its host samples count.
  TimeNs first = kNoTime, last = std::numeric_limits<TimeNs>::min();
  bool any_gpu_op = false;
  for (const GpuOp& op : timeline.gpu_ops) {
    if (!p.Selected(op.pid)) continue;
    any_gpu_op = true;
    first = std::min(first, op.start);
    last = std::max(last, op.end);
  }
  if (!any_gpu_op) {
    for (const ThreadSample& s : timeline.thread_samples) {
      if (!p.Selected(s.pid)) continue;
      first = std::min(first, s.ts);
      last = std::max(last, s.ts);
    }
  }
  for (const ApiCall& call : timeline.api_calls) {
    if (!p.Selected(call.pid)) continue;
    first = std::min(first, call.start);
    last = std::max(last, call.end);
  }
  // Host ranges (steps, annotations) belong to the trace too.
  for (const Range& r : timeline.ranges) {
    if (!p.Selected(r.pid)) continue;
    first = std::min(first, r.start);
    last = std::max(last, r.end);
  }
  if (first == kNoTime) first = last = 0;
  p.window_.trace_start = first;
  p.window_.trace_end = last;
  // --from/--to are user input: the window's ends are kept within the times
  // readers keep (timeline/time_limits.h), so that no later difference of
  // window times overflows, whatever offsets were passed.
  const auto window_time = [first](TimeNs relative) {
    return std::clamp(SaturatingAdd(first, relative), -timeline::kMaxAbsTimeNs,
                      timeline::kMaxAbsTimeNs);
  };
  p.window_.start = options.from ? window_time(*options.from) : first;
  p.window_.end = options.to ? window_time(*options.to) : last;
  p.window_.restricted = options.from.has_value() || options.to.has_value();
  if (p.window_.restricted && p.window_.end <= p.window_.start) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the window [", p.window_.start - first, " ns, ", p.window_.end - first,
        " ns] relative to the trace start is empty; "
        "the trace lasts ",
        last - first, " ns. Pass --from below --to."));
  }

  p.events_ = CountEvents(timeline);
  p.range_digest_ =
      DigestRanges(timeline, p.pids_, p.window_, options.step_range_name);
  p.user_code_ = options.user_code;
  p.code_spans_ =
      CodeSpans::Build(timeline, p.range_digest_.python_ranges, p.user_code_);
  std::vector<uint32_t>().swap(p.range_digest_.python_ranges);
  p.code_profiles_ = CodeProfiles::Build(timeline, p.range_digest_.stack_ranges,
                                         p.pids_, p.window_, p.user_code_);
  std::vector<uint32_t>().swap(p.range_digest_.stack_ranges);
  p.input_production_ = FindInputProduction(
      timeline, p.range_digest_.input_ranges, p.pids_, p.window_);
  std::vector<uint32_t>().swap(p.range_digest_.input_ranges);
  // Nothing reads the ranges or marks from here on: where the owner let
  // them go, the views below take their place.
  if (p.releasable_ != nullptr) {
    std::vector<Range>().swap(p.releasable_->ranges);
    std::vector<Mark>().swap(p.releasable_->marks);
  }
  p.ClassifyNames();
  const bool exclude = !options.include_pre_window &&
                       timeline.available.correlation &&
                       !timeline.api_calls.empty();
  p.JoinCorrelations();
  // The devices' and the threads' views read only the join's tables and
  // each fill their own members: side by side on a big trace.
  if (p.events_ >= kParallelPassesMinEvents) {
    std::future<void> devices = std::async(
        std::launch::async, [&p, exclude] { p.BuildDevices(exclude); });
    p.BuildThreads();
    devices.get();
  } else {
    p.BuildDevices(exclude);
    p.BuildThreads();
  }
  return p;
}

bool PreparedTimeline::Selected(int32_t pid) const {
  return PidSelected(pids_, pid);
}

void PreparedTimeline::ClassifyNames() {
  const StringTable& strings = timeline_->strings;
  api_class_.assign(strings.size(), ApiClass::kOther);
  for (StringId id = 0; id < strings.size(); ++id) {
    api_class_[id] = ClassifyApiName(strings.Get(id));
  }
}

void PreparedTimeline::JoinCorrelations() {
  const auto& calls = timeline_->api_calls;
  const auto& ops = timeline_->gpu_ops;
  op_api_.assign(ops.size(), -1);
  api_op_.assign(calls.size(), -1);

  // Each correlated call's table, found once here: a session's processes'
  // calls interleave in time, so the process changes from call to call, and
  // every worker below reads every call's entry.
  std::vector<CorrelationTable> tables;
  std::unordered_map<int32_t, uint32_t> table_of_pid;
  std::vector<uint32_t> table_of_call(calls.size(), kNoTable);
  common::RecentKeyCache<uint32_t> recent_tables;
  for (size_t i = 0; i < calls.size(); ++i) {
    const ApiCall& call = calls[i];
    if (call.correlation == 0) continue;
    const uint32_t k =
        recent_tables.Get(static_cast<uint32_t>(call.pid), [&](uint64_t) {
          const auto [it, inserted] = table_of_pid.try_emplace(
              call.pid, static_cast<uint32_t>(tables.size()));
          if (inserted) {
            tables.emplace_back();
            tables.back().pid = call.pid;
          }
          return it->second;
        });
    CorrelationTable& table = tables[k];
    table.min = std::min(table.min, call.correlation);
    table.max = std::max(table.max, call.correlation);
    ++table.count;
    table_of_call[i] = k;
  }
  const auto preferred = [&calls](uint32_t a, uint32_t b) {
    return PreferredLauncher(calls[a], calls[b]);
  };
  // Each process's index built, filled and sealed by one worker, the
  // processes shared out in groups of about as many calls on a big trace
  // (a session has one per process): each worker reads every call's table
  // and adds its own processes' calls, in the same order as one worker
  // would.
  std::vector<uint64_t> call_counts;
  call_counts.reserve(tables.size());
  for (const CorrelationTable& t : tables) call_counts.push_back(t.count);
  common::ParallelForOwnerGroups(
      call_counts, PassThreads(events_),
      [&](uint32_t group, const std::vector<uint32_t>& group_of) {
        for (size_t k = 0; k < tables.size(); ++k) {
          CorrelationTable& t = tables[k];
          if (group_of[k] == group) {
            t.index = common::CorrelationIndex(t.count, t.min, t.max);
          }
        }
        for (size_t i = 0; i < calls.size(); ++i) {
          const uint32_t k = table_of_call[i];
          if (k == kNoTable || group_of[k] != group) continue;
          tables[k].index.Add(calls[i].correlation, static_cast<uint32_t>(i),
                              preferred);
        }
        for (size_t k = 0; k < tables.size(); ++k) {
          if (group_of[k] == group) tables[k].index.Seal(preferred);
        }
      });
  std::vector<uint32_t>().swap(table_of_call);
  const auto table_of = [&](int32_t pid) -> const CorrelationTable* {
    const auto it = table_of_pid.find(pid);
    return it == table_of_pid.end() ? nullptr : &tables[it->second];
  };

  // A process's ops come in about the order of their launches, and so of
  // their ids: each process's search starts where its last one ended.
  std::vector<common::CorrelationIndex::Cursor> cursors;
  cursors.reserve(tables.size());
  for (const CorrelationTable& t : tables) cursors.emplace_back(t.index);
  // A session's processes' ops interleave: each one's cursor found by pid
  // in a few slots, not a hash map, op after op.
  common::RecentKeyCache<common::CorrelationIndex::Cursor*> recent_cursors;
  for (size_t i = 0; i < ops.size(); ++i) {
    const GpuOp& op = ops[i];
    if (op.correlation == 0) continue;
    common::CorrelationIndex::Cursor* cursor =
        recent_cursors.Get(static_cast<uint32_t>(op.pid), [&](uint64_t) {
          const CorrelationTable* t = table_of(op.pid);
          return t == nullptr
                     ? nullptr
                     : &cursors[static_cast<size_t>(t - tables.data())];
        });
    int32_t api = -1;
    if (cursor != nullptr) {
      const uint32_t found = cursor->Find(op.correlation);
      api = found == common::CorrelationIndex::kNone
                ? -1
                : static_cast<int32_t>(found);
    } else {
      // The reader gave GPU ops a pid no API call has (a device pseudo
      // process): match the id in any process.
      for (const CorrelationTable& t : tables) {
        api = t.Find(op.correlation);
        if (api >= 0) break;
      }
    }
    op_api_[i] = api;
    if (api >= 0) {
      int32_t& back = api_op_[static_cast<size_t>(api)];
      if (back < 0 || op.start < ops[static_cast<size_t>(back)].start) {
        back = static_cast<int32_t>(i);
      }
    }
  }
}

void PreparedTimeline::BuildDevices(bool exclude_unmatched) {
  const auto& ops = timeline_->gpu_ops;
  // Most traces have one device per process: size its array once.
  if (!ops.empty()) {
    devices_.emplace_back();
    devices_.back().pid = ops.front().pid;
    devices_.back().device = ops.front().device;
    devices_.back().ops.reserve(ops.size());
  }
  // A session's processes' ops interleave: each op's view is found by its
  // (pid, device) in a few slots, and the first start of each view's
  // matched ops kept beside it, instead of a search and a hash map per op.
  common::RecentKeyCache<uint32_t> recent_devices;
  std::vector<TimeNs> first_start(devices_.size(), kNoTime);
  for (size_t i = 0; i < ops.size(); ++i) {
    const GpuOp& op = ops[i];
    if (!Selected(op.pid)) continue;
    if (op.start > window_.end || op.end < window_.start) continue;
    // (pid, device) packed as a thread's (pid, tid).
    const uint32_t d =
        recent_devices.Get(ThreadKey(op.pid, op.device), [&](uint64_t) {
          for (size_t k = 0; k < devices_.size(); ++k) {
            if (devices_[k].pid == op.pid && devices_[k].device == op.device) {
              return static_cast<uint32_t>(k);
            }
          }
          devices_.emplace_back();
          devices_.back().pid = op.pid;
          devices_.back().device = op.device;
          first_start.push_back(kNoTime);
          return static_cast<uint32_t>(devices_.size() - 1);
        });
    DeviceView* cached = &devices_[d];
    OpRef ref;
    ref.start = std::max(op.start, window_.start);
    ref.end = std::max(ref.start, std::min(op.end, window_.end));
    ref.op = static_cast<uint32_t>(i);
    ref.api = op_api_[i];
    if (exclude_unmatched && ref.api < 0) {
      cached->excluded.push_back(ref);
      continue;
    }
    cached->ops.push_back(ref);
    first_start[d] = std::min(first_start[d], op.start);
  }
  for (size_t k = 0; k < devices_.size(); ++k) {
    if (first_start[k] == kNoTime) continue;
    auto [it, inserted] =
        first_gpu_start_.try_emplace(devices_[k].pid, first_start[k]);
    if (!inserted) it->second = std::min(it->second, first_start[k]);
  }
  std::erase_if(devices_, [](const DeviceView& d) {
    return d.ops.empty() && d.excluded.empty();
  });
  auto by_start = [](const OpRef& a, const OpRef& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  };
  for (DeviceView& d : devices_) {
    if (d.ops.capacity() > 2 * d.ops.size() + 1024) d.ops.shrink_to_fit();
    if (!std::is_sorted(d.ops.begin(), d.ops.end(), by_start)) {
      std::sort(d.ops.begin(), d.ops.end(), by_start);
    }
    if (!std::is_sorted(d.excluded.begin(), d.excluded.end(), by_start)) {
      std::sort(d.excluded.begin(), d.excluded.end(), by_start);
    }
  }
  std::sort(devices_.begin(), devices_.end(),
            [](const DeviceView& a, const DeviceView& b) {
              return a.pid != b.pid ? a.pid < b.pid : a.device < b.device;
            });
}

TimeNs PreparedTimeline::FirstGpuStart(int32_t pid) const {
  auto it = first_gpu_start_.find(pid);
  return it == first_gpu_start_.end() ? kNoTime : it->second;
}

SyncReason PreparedTimeline::SyncReasonOf(uint32_t api) const {
  const ApiCall& call = timeline_->api_calls[api];
  const int32_t op_index = api_op_[api];
  const GpuOp* op = op_index >= 0
                        ? &timeline_->gpu_ops[static_cast<size_t>(op_index)]
                        : nullptr;
  switch (ClassOf(call)) {
    case ApiClass::kExplicitSync:
      return SyncReason::kExplicit;
    case ApiClass::kMemcpySync:
      // A device-to-device cudaMemcpy returns before the copy ends.
      if (op != nullptr && op->copy_kind == CopyKind::kDtoD) {
        return SyncReason::kNone;
      }
      return SyncReason::kSynchronousCopy;
    case ApiClass::kMemcpyAsync:
      if (op != nullptr && IsPageableHostCopy(*op)) {
        return SyncReason::kPageableAsyncCopy;
      }
      return SyncReason::kNone;
    case ApiClass::kAlloc:
      return call.start > FirstGpuStart(call.pid)
                 ? SyncReason::kSteadyStateAlloc
                 : SyncReason::kNone;
    case ApiClass::kMemsetSync:
      if (op != nullptr && (op->dst_kind == MemoryKind::kPinned ||
                            op->dst_kind == MemoryKind::kManaged)) {
        return SyncReason::kSynchronousMemset;
      }
      return SyncReason::kNone;
    case ApiClass::kDeviceSetting:
      return SyncReason::kDeviceSetting;
    default:
      return SyncReason::kNone;
  }
}

void PreparedTimeline::BuildThreads() {
  const auto& calls = timeline_->api_calls;
  // The index in threads_ of thread (pid, tid), added when new.
  auto thread_of = [this](int32_t pid, int32_t tid) -> uint32_t {
    auto [it, inserted] = thread_index_.try_emplace(
        ThreadKey(pid, tid), static_cast<uint32_t>(threads_.size()));
    if (inserted) {
      threads_.emplace_back();
      threads_.back().pid = pid;
      threads_.back().tid = tid;
    }
    return it->second;
  };
  // One read of the calls takes the window, each call's thread (counted,
  // for the threads' call lists to be sized first: growing them one push at
  // a time costs more, in copies and fresh pages, than the whole pass), and
  // whether the window is in the analysis' order: by start, the longer call
  // first when two start together, ties as held. The readers leave the
  // calls by start, and a session's processes have a few calls that start
  // together the other way round: their places are kept, to be sorted with
  // their threads below. Each read of the calls is hundreds of MB on a big
  // trace, and a session's threads' calls interleave: each call's thread is
  // found once, here, for the workers below that read every call's entry.
  std::vector<uint32_t> thread_of_call;
  api_window_.reserve(calls.size());
  thread_of_call.reserve(calls.size());
  bool by_start = true;
  std::vector<size_t> ties_out_of_order;  // window positions
  TimeNs last_start = 0, last_end = 0;
  common::RecentKeyCache<uint32_t> recent_threads;
  for (size_t i = 0; i < calls.size(); ++i) {
    const ApiCall& c = calls[i];
    if (!Selected(c.pid)) continue;
    if (c.start > window_.end || c.end < window_.start) continue;
    if (!api_window_.empty()) {
      by_start &= c.start >= last_start;
      if (c.start == last_start && c.end > last_end) {
        ties_out_of_order.push_back(api_window_.size());
      }
    }
    last_start = c.start;
    last_end = c.end;
    const uint32_t t =
        recent_threads.Get(ThreadKey(c.pid, c.tid),
                           [&](uint64_t) { return thread_of(c.pid, c.tid); });
    ++threads_[t].api_count;
    api_window_.push_back(static_cast<uint32_t>(i));
    thread_of_call.push_back(t);
  }
  if (!by_start || !ties_out_of_order.empty()) {
    OrderWindow(by_start, ties_out_of_order, thread_of_call);
  }
  api_top_.assign(calls.size(), -1);
  // Then fill them, the threads shared out in groups of about as many
  // calls, one group per worker on a big trace: each worker reads every
  // call's thread and takes its own threads' calls (each thread's calls
  // and api_top_ entries are written by one worker only, in the same order
  // as by one).
  std::vector<uint64_t> call_counts;
  call_counts.reserve(threads_.size());
  for (ThreadView& t : threads_) {
    call_counts.push_back(t.api_count);
    t.calls.reserve(t.api_count);
  }
  common::ParallelForOwnerGroups(
      call_counts, PassThreads(events_),
      [&](uint32_t group, const std::vector<uint32_t>& group_of) {
        FillThreadCalls(group, group_of, thread_of_call);
      });
  std::vector<uint32_t>().swap(thread_of_call);

  const auto& samples = timeline_->thread_samples;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (Selected(samples[i].pid)) samples_.push_back(static_cast<uint32_t>(i));
  }
  auto sample_less = [&samples](uint32_t a, uint32_t b) {
    const ThreadSample& x = samples[a];
    const ThreadSample& y = samples[b];
    if (x.pid != y.pid) return x.pid < y.pid;
    if (x.tid != y.tid) return x.tid < y.tid;
    return x.ts < y.ts;
  };
  if (!std::is_sorted(samples_.begin(), samples_.end(), sample_less)) {
    std::stable_sort(samples_.begin(), samples_.end(), sample_less);
  }
  for (size_t i = 0; i < samples_.size();) {
    const ThreadSample& s = samples[samples_[i]];
    size_t j = i;
    while (j < samples_.size() && samples[samples_[j]].pid == s.pid &&
           samples[samples_[j]].tid == s.tid) {
      ++j;
    }
    ThreadView& t = threads_[thread_of(s.pid, s.tid)];
    t.sample_begin = static_cast<uint32_t>(i);
    t.sample_end = static_cast<uint32_t>(j);
    i = j;
  }
}

void PreparedTimeline::OrderWindow(bool by_start,
                                   const std::vector<size_t>& ties,
                                   std::vector<uint32_t>& thread_of_call) {
  const auto& calls = timeline_->api_calls;
  const size_t n = api_window_.size();
  // The spans [first, end) to sort: the whole window, or each group of
  // calls that start together around a tie out of order.
  std::vector<std::pair<size_t, size_t>> spans;
  if (!by_start) {
    spans.emplace_back(0, n);
  } else {
    const auto start_at = [&](size_t k) { return calls[api_window_[k]].start; };
    for (const size_t k : ties) {
      if (!spans.empty() && k < spans.back().second) continue;
      size_t first = k;
      while (first > 0 && start_at(first - 1) == start_at(k)) --first;
      size_t end = k + 1;
      while (end < n && start_at(end) == start_at(k)) ++end;
      spans.emplace_back(first, end);
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> span;  // (call, its thread)
  for (const auto& [first, end] : spans) {
    span.clear();
    for (size_t m = first; m < end; ++m) {
      span.emplace_back(api_window_[m], thread_of_call[m]);
    }
    std::stable_sort(span.begin(), span.end(),
                     [&calls](const std::pair<uint32_t, uint32_t>& a,
                              const std::pair<uint32_t, uint32_t>& b) {
                       const ApiCall& x = calls[a.first];
                       const ApiCall& y = calls[b.first];
                       return x.start != y.start ? x.start < y.start
                                                 : x.end > y.end;
                     });
    for (size_t m = first; m < end; ++m) {
      api_window_[m] = span[m - first].first;
      thread_of_call[m] = span[m - first].second;
    }
  }
  // The threads by first call: every thread has a call in the window, and
  // the search stops once each is seen.
  std::vector<uint32_t> renumbered(threads_.size(), kNoThread);
  uint32_t seen = 0;
  bool moved = false;
  for (size_t k = 0; k < thread_of_call.size() && seen < threads_.size(); ++k) {
    uint32_t& number = renumbered[thread_of_call[k]];
    if (number == kNoThread) {
      number = seen++;
      moved |= number != thread_of_call[k];
    }
  }
  if (!moved) return;
  std::vector<ThreadView> threads(threads_.size());
  for (size_t t = 0; t < threads_.size(); ++t) {
    threads[renumbered[t]] = std::move(threads_[t]);
  }
  threads_ = std::move(threads);
  for (auto& [key, t] : thread_index_) t = renumbered[t];
  for (uint32_t& t : thread_of_call) t = renumbered[t];
}

void PreparedTimeline::FillThreadCalls(
    uint32_t group, const std::vector<uint32_t>& group_of,
    const std::vector<uint32_t>& thread_of_call) {
  const auto& calls = timeline_->api_calls;
  for (size_t k = 0; k < api_window_.size(); ++k) {
    const uint32_t thread = thread_of_call[k];
    if (group_of[thread] != group) continue;
    ThreadView& view = threads_[thread];
    const uint32_t index = api_window_[k];
    const ApiCall& c = calls[index];
    const SyncReason sync = SyncReasonOf(index);
    if (!view.calls.empty() && c.start < view.calls.back().end) {
      ThreadCall& outer = view.calls.back();  // nested: fold in
      outer.end = std::max(outer.end, c.end);
      if (outer.sync == SyncReason::kNone && sync != SyncReason::kNone) {
        outer.sync = sync;
        outer.sync_from_nested = true;
        view.nested_sync_apis.emplace_back(outer.api, index);
      }
      api_top_[index] = static_cast<int32_t>(outer.api);
      continue;
    }
    api_top_[index] = static_cast<int32_t>(index);
    view.calls.push_back(ThreadCall{c.start, c.end, index, sync, false});
  }
}

void PreparedTimeline::ReleaseViews() {
  // Swapped with empty ones: clear() keeps the capacity.
  std::vector<int32_t>().swap(op_api_);
  std::vector<int32_t>().swap(api_op_);
  std::vector<int32_t>().swap(api_top_);
  std::vector<DeviceView>().swap(devices_);
  std::vector<ThreadView>().swap(threads_);
  std::unordered_map<uint64_t, uint32_t>().swap(thread_index_);
  std::vector<uint32_t>().swap(samples_);
  std::vector<uint32_t>().swap(api_window_);
}

void PreparedTimeline::ReleaseUnreplayedEvents() {
  if (releasable_ == nullptr) return;
  Timeline& t = *releasable_;
  std::vector<SyncRecord>().swap(t.syncs);
  std::vector<ThreadSample>().swap(t.thread_samples);
  std::vector<ProcessSample>().swap(t.process_samples);
  std::vector<SystemSample>().swap(t.system_samples);
  std::vector<DiskSample>().swap(t.disk_samples);
  std::vector<NfsSample>().swap(t.nfs_samples);
  std::vector<CounterSample>().swap(t.counters);
  // The threads' samples read as none rather than out of range.
  std::vector<uint32_t>().swap(samples_);
  for (ThreadView& view : threads_) view.sample_begin = view.sample_end = 0;
}

uint32_t PreparedTimeline::SyncApiOf(const ThreadCall& call) const {
  if (!call.sync_from_nested) return call.api;
  const ApiCall& c = timeline_->api_calls[call.api];
  const ThreadView* t = FindThread(c.pid, c.tid);
  if (t == nullptr) return call.api;  // unreachable: the call is in a view
  const auto it = std::lower_bound(t->nested_sync_apis.begin(),
                                   t->nested_sync_apis.end(), call.api,
                                   [](const std::pair<uint32_t, uint32_t>& e,
                                      uint32_t api) { return e.first < api; });
  return it != t->nested_sync_apis.end() && it->first == call.api ? it->second
                                                                  : call.api;
}

const ThreadView* PreparedTimeline::FindThread(int32_t pid, int32_t tid) const {
  auto it = thread_index_.find(ThreadKey(pid, tid));
  return it == thread_index_.end() ? nullptr : &threads_[it->second];
}

}  // namespace feedprof::analysis
