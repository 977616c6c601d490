#include "kineto/kineto_event_mapper.h"

#include <algorithm>
#include <functional>
#include <set>
#include <span>
#include <string_view>

#include "common/correlation_index.h"
#include "common/parallel_for.h"
#include "common/stable_time_sort.h"
#include "kineto/kineto_python_stacks.h"
#include "kineto/kineto_time.h"
#include "timeline/cuda_names.h"
#include "timeline/range_nesting.h"
#include "timeline/time_limits.h"

namespace feedprof::kineto {
namespace {

enum class Category : uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kRuntime,
  kDriver,
  kSync,
  kCpuOp,
  kUserAnnotation,
  kGpuUserAnnotation,
  kPythonFunction,
  kProfilerSpan,  // Kineto's own "Trace" span
  kOther,
};

Category Classify(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return Category::kKernel;
  if (cat == "cuda_runtime" || cat == "Runtime") return Category::kRuntime;
  if (cat == "cpu_op" || cat == "Operator") return Category::kCpuOp;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return Category::kMemcpy;
  if (cat == "gpu_memset" || cat == "Memset") return Category::kMemset;
  if (cat == "cuda_driver") return Category::kDriver;
  if (cat == "cuda_sync") return Category::kSync;
  if (cat == "python_function") return Category::kPythonFunction;
  if (cat == "user_annotation") return Category::kUserAnnotation;
  if (cat == "gpu_user_annotation") return Category::kGpuUserAnnotation;
  if (cat == "Trace") return Category::kProfilerSpan;
  return Category::kOther;
}

MemoryKind ParseMemoryKind(std::string_view text) {
  // Trim spaces.
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text == "Pageable") return MemoryKind::kPageable;
  if (text == "Pinned") return MemoryKind::kPinned;
  if (text == "Device") return MemoryKind::kDevice;
  if (text == "Array") return MemoryKind::kArray;
  if (text == "Managed") return MemoryKind::kManaged;
  if (text == "Device Static") return MemoryKind::kDeviceStatic;
  if (text == "Managed Static") return MemoryKind::kManagedStatic;
  return MemoryKind::kUnknown;
}

// The "(A -> B)" or "(B)" part of a memcpy/memset name.
void ParseMemoryKinds(std::string_view name, MemoryKind* src, MemoryKind* dst) {
  const size_t open = name.rfind('(');
  const size_t close = name.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos ||
      close < open) {
    return;
  }
  const std::string_view inside = name.substr(open + 1, close - open - 1);
  const size_t arrow = inside.find("->");
  if (arrow == std::string_view::npos) {
    *dst = ParseMemoryKind(inside);
    return;
  }
  *src = ParseMemoryKind(inside.substr(0, arrow));
  *dst = ParseMemoryKind(inside.substr(arrow + 2));
}

SyncType ParseSyncType(std::string_view kind) {
  if (kind == "Stream Sync") return SyncType::kStreamSynchronize;
  if (kind == "Event Sync") return SyncType::kEventSynchronize;
  if (kind == "Context Sync") return SyncType::kContextSynchronize;
  if (kind == "Stream Wait Event") return SyncType::kStreamWaitEvent;
  return SyncType::kUnknown;
}

bool IsProfilerStep(std::string_view name) {
  return name.substr(0, 13) == "ProfilerStep#";
}

bool IsDataLoader(std::string_view name) {
  return name.substr(0, 21) == "enumerate(DataLoader)" ||
         name.find("DataLoader") != std::string_view::npos;
}

// True when the event's start and end (ts + dur, a negative dur counting
// as 0) both lie within ±timeline::kMaxAbsTimeNs, so that computing its end
// and any later time difference cannot overflow.
bool TimesInRange(const KinetoEvent& e) {
  if (!timeline::TimeInRange(e.ts_ns)) return false;
  const int64_t dur = std::max<int64_t>(e.dur_ns, 0);
  return dur <= timeline::kMaxAbsTimeNs - e.ts_ns;
}

int32_t ClampToInt32(int64_t v) {
  if (v > INT32_MAX) return INT32_MAX;
  if (v < INT32_MIN) return INT32_MIN;
  return static_cast<int32_t>(v);
}

// The launching call of each correlation id: the first call that carries
// it, as the trace lists them.
class CallByCorrelation {
 public:
  explicit CallByCorrelation(const std::vector<ApiCall>& calls)
      : calls_(calls),
        index_(common::CorrelationIndex::OfFirstCalls(
            calls.size(),
            [&calls](size_t i) { return calls[i].correlation; })) {}

  // The call for `correlation`, or nullptr (and for 0, which means none).
  const ApiCall* Find(uint64_t correlation) const {
    const uint32_t i = index_.Find(correlation);
    return i == common::CorrelationIndex::kNone ? nullptr : &calls_[i];
  }

 private:
  const std::vector<ApiCall>& calls_;
  common::CorrelationIndex index_;
};

}  // namespace

int32_t KinetoEventMapper::HostId(const IdField& id) {
  if (!id.present) return 0;
  if (!id.is_string) return ClampToInt32(id.number);
  auto it = string_ids_.find(id.text);
  if (it != string_ids_.end()) return it->second;
  const auto synthetic = -static_cast<int32_t>(string_ids_.size()) - 1;
  string_ids_.emplace(id.text, synthetic);
  return synthetic;
}

void KinetoEventMapper::Add(const KinetoEvent& e) {
  ++counts_.events;
  if (e.ph == 'M') {
    AddMetadata(e);
    return;
  }
  if (e.ph == 'i' || e.ph == 'I') {
    if (!e.has_ts || e.name == "[memory]") {
      ++counts_.other;
      return;
    }
    if (!TimesInRange(e)) {
      ++counts_.time_out_of_range;
      return;
    }
    Mark mark;
    mark.ts = e.ts_ns;
    mark.pid = HostId(e.pid);
    mark.tid = HostId(e.tid);
    mark.name = timeline_->strings.Intern(e.name);
    mark.domain = timeline_->strings.Intern(e.cat);
    timeline_->marks.push_back(mark);
    ++counts_.marks;
    return;
  }
  if (e.ph != 'X') {
    ++counts_.other;  // flow arrows (ac2g, fwdbwd), counters, ...
    return;
  }
  if (!e.has_ts) {
    ++counts_.without_timestamp;
    return;
  }
  if (!TimesInRange(e)) {
    ++counts_.time_out_of_range;
    return;
  }
  switch (Classify(e.cat)) {
    case Category::kKernel:
      AddGpuOp(e, GpuOpKind::kKernel);
      return;
    case Category::kMemcpy:
      AddGpuOp(e, GpuOpKind::kMemcpy);
      return;
    case Category::kMemset:
      AddGpuOp(e, GpuOpKind::kMemset);
      return;
    case Category::kRuntime:
      AddApiCall(e, ApiDomain::kRuntime);
      return;
    case Category::kDriver:
      AddApiCall(e, ApiDomain::kDriver);
      return;
    case Category::kSync:
      AddSync(e);
      return;
    case Category::kCpuOp:
      AddRange(e, RangeSource::kCpuOp);
      return;
    case Category::kUserAnnotation:
      AddRange(e, RangeSource::kUserAnnotation);
      return;
    case Category::kPythonFunction:
      AddRange(e, RangeSource::kPythonFunction);
      return;
    case Category::kGpuUserAnnotation:
      ++counts_.gpu_annotations_dropped;
      return;
    case Category::kProfilerSpan: {
      const TimeNs end = e.ts_ns + std::max<int64_t>(e.dur_ns, 0);
      window_start_ = has_window_ ? std::min(window_start_, e.ts_ns) : e.ts_ns;
      window_end_ = has_window_ ? std::max(window_end_, end) : end;
      has_window_ = true;
      ++counts_.other;
      return;
    }
    case Category::kOther:
      ++counts_.other;
      return;
  }
}

void KinetoEventMapper::AddGpuOp(const KinetoEvent& e, GpuOpKind kind) {
  GpuOp op;
  op.start = e.ts_ns;
  op.end = e.ts_ns + std::max<int64_t>(e.dur_ns, 0);
  op.kind = kind;
  op.name = timeline_->strings.Intern(e.name);
  if (e.correlation.present) {
    op.correlation = static_cast<uint64_t>(e.correlation.value);
  } else if (e.external_id.present) {
    op.correlation = static_cast<uint64_t>(e.external_id.value);
  }
  if (e.bytes.present && e.bytes.value > 0) {
    op.bytes = static_cast<uint64_t>(e.bytes.value);
  }
  if (e.device.present) {
    op.device = ClampToInt32(e.device.value);
  } else if (e.pid.present && !e.pid.is_string) {
    op.device = ClampToInt32(e.pid.number);
  }
  int64_t stream = -1;
  if (e.stream.present) {
    stream = e.stream.value;
  } else if (e.tid.present) {
    if (!e.tid.is_string) {
      stream = e.tid.number;
    } else if (!FirstIntegerIn(e.tid.text, &stream)) {
      stream = -1;
    }
  }
  op.stream = stream;
  switch (kind) {
    case GpuOpKind::kKernel: {
      LaunchShape shape;
      std::copy(std::begin(e.grid), std::end(e.grid), std::begin(shape.grid));
      std::copy(std::begin(e.block), std::end(e.block),
                std::begin(shape.block));
      op.launch = timeline_->launch_shapes.Intern(shape);
      ++counts_.kernels;
      break;
    }
    case GpuOpKind::kMemcpy:
      op.copy_kind = timeline::FindCopyKind(e.name);
      ParseMemoryKinds(e.name, &op.src_kind, &op.dst_kind);
      ++counts_.memcpys;
      break;
    case GpuOpKind::kMemset:
      ParseMemoryKinds(e.name, &op.src_kind, &op.dst_kind);
      ++counts_.memsets;
      break;
  }
  timeline_->gpu_ops.push_back(op);
}

void KinetoEventMapper::AddApiCall(const KinetoEvent& e, ApiDomain domain) {
  ApiCall call;
  call.start = e.ts_ns;
  call.end = e.ts_ns + std::max<int64_t>(e.dur_ns, 0);
  if (e.correlation.present) {
    call.correlation = static_cast<uint64_t>(e.correlation.value);
  } else if (e.external_id.present) {
    call.correlation = static_cast<uint64_t>(e.external_id.value);
  }
  call.pid = HostId(e.pid);
  call.tid = HostId(e.tid);
  call.name = timeline_->strings.Intern(timeline::StripVersionSuffix(e.name));
  call.domain = domain;
  timeline_->api_calls.push_back(call);
  ++counts_.api_calls;
}

void KinetoEventMapper::AddSync(const KinetoEvent& e) {
  SyncRecord sync;
  sync.start = e.ts_ns;
  sync.end = e.ts_ns + std::max<int64_t>(e.dur_ns, 0);
  if (e.correlation.present) {
    sync.correlation = static_cast<uint64_t>(e.correlation.value);
  }
  sync.type =
      ParseSyncType(e.sync_kind.empty() ? std::string_view(e.name)
                                        : std::string_view(e.sync_kind));
  if (sync.type == SyncType::kUnknown) sync.type = ParseSyncType(e.name);
  if (e.stream.present) {
    sync.stream = e.stream.value;
  } else if (e.tid.present && !e.tid.is_string) {
    sync.stream = e.tid.number;
  }
  if (e.device.present) {
    sync.device = ClampToInt32(e.device.value);
  } else if (e.pid.present && !e.pid.is_string) {
    sync.device = ClampToInt32(e.pid.number);
  }
  timeline_->syncs.push_back(sync);
  ++counts_.syncs;
}

void KinetoEventMapper::AddRange(const KinetoEvent& e, RangeSource source) {
  if (source != RangeSource::kPythonFunction) {
    if (IsProfilerStep(e.name)) {
      source = RangeSource::kProfilerStep;
    } else if (IsDataLoader(e.name)) {
      source = RangeSource::kDataLoader;
    }
  }
  Range range;
  range.start = e.ts_ns;
  range.end = e.ts_ns + std::max<int64_t>(e.dur_ns, 0);
  range.pid = HostId(e.pid);
  range.tid = HostId(e.tid);
  range.name = timeline_->strings.Intern(e.name);
  range.domain = timeline_->strings.Intern(e.cat);
  range.source = source;
  timeline_->ranges.push_back(range);
  ++counts_.ranges;
}

void KinetoEventMapper::AddMetadata(const KinetoEvent& e) {
  const int32_t pid = HostId(e.pid);
  if (e.name == "process_name") {
    process_names_[pid] = std::string(e.arg_name);
  } else if (e.name == "process_labels") {
    process_labels_[pid] = std::string(e.arg_labels);
  } else if (e.name == "thread_name") {
    thread_names_[{pid, HostId(e.tid)}] = std::string(e.arg_name);
  }
}

void KinetoEventMapper::BuildProcessesAndThreads(int32_t main_pid) {
  auto is_gpu_pid = [&](int32_t pid) {
    auto it = process_labels_.find(pid);
    return it != process_labels_.end() && it->second.rfind("GPU", 0) == 0;
  };
  struct Extent {
    TimeNs start = INT64_MAX;
    TimeNs end = INT64_MIN;
  };
  std::map<int32_t, Extent> host_pids;
  std::set<std::pair<int32_t, int32_t>> host_threads;
  // Events come in long runs of one thread: the run's thread is looked up
  // once.
  std::pair<int32_t, int32_t> run_thread;
  Extent* run_extent = nullptr;  // nullptr: not a host thread, or no run yet
  bool in_run = false;
  auto note = [&](int32_t pid, int32_t tid, TimeNs start, TimeNs end) {
    if (!in_run || run_thread.first != pid || run_thread.second != tid) {
      in_run = true;
      run_thread = {pid, tid};
      run_extent = nullptr;
      if (pid < 0 || is_gpu_pid(pid)) return;
      run_extent = &host_pids[pid];
      host_threads.emplace(pid, tid);
    }
    if (run_extent == nullptr) return;
    run_extent->start = std::min(run_extent->start, start);
    run_extent->end = std::max(run_extent->end, end);
  };
  for (const ApiCall& c : timeline_->api_calls) {
    note(c.pid, c.tid, c.start, c.end);
  }
  for (const Range& r : timeline_->ranges) note(r.pid, r.tid, r.start, r.end);
  for (const auto& [pid, labels] : process_labels_) {
    if (pid >= 0 && labels == "CPU") host_pids.try_emplace(pid);
  }
  if (host_pids.empty() && !timeline_->gpu_ops.empty()) {
    host_pids.try_emplace(main_pid);
  }
  for (const auto& [pid, extent] : host_pids) {
    Process p;
    p.pid = pid;
    p.rank = rank_;
    p.world_size = world_size_;
    auto name = process_names_.find(pid);
    if (name != process_names_.end()) p.command = name->second;
    p.trace_path = timeline_->source_path;
    if (has_window_) {
      p.start = window_start_;
      p.end = window_end_;
    } else if (extent.start <= extent.end) {
      p.start = extent.start;
      p.end = extent.end;
    }
    timeline_->processes.push_back(std::move(p));
  }
  for (const auto& [key, name] : thread_names_) {
    if (host_pids.count(key.first) != 0) host_threads.insert(key);
  }
  for (const auto& [pid, tid] : host_threads) {
    if (host_pids.count(pid) == 0) continue;
    Thread t;
    t.pid = pid;
    t.tid = tid;
    t.is_main = pid == tid;
    auto name = thread_names_.find({pid, tid});
    if (name != thread_names_.end()) t.name = name->second;
    timeline_->threads.push_back(std::move(t));
  }
}

void KinetoEventMapper::Finish(size_t threads) {
  Timeline& t = *timeline_;
  // The process that issued the CUDA calls; GPU work without a matching call
  // is attributed to it.
  std::map<int32_t, uint64_t> calls_per_pid;
  for (size_t i = 0; i < t.api_calls.size();) {
    // One count per run of calls from one process.
    const int32_t pid = t.api_calls[i].pid;
    size_t end = i + 1;
    while (end < t.api_calls.size() && t.api_calls[end].pid == pid) ++end;
    calls_per_pid[pid] += end - i;
    i = end;
  }
  int32_t main_pid = 0;
  uint64_t best = 0;
  for (const auto& [pid, n] : calls_per_pid) {
    // Synthetic ids (string pids) only when nothing else issued calls.
    if (n > best || (pid >= 0 && main_pid < 0 && n == best)) {
      best = n;
      main_pid = pid;
    }
  }
  if (best == 0) {
    for (const auto& [pid, labels] : process_labels_) {
      if (labels == "CPU") {
        main_pid = pid;
        break;
      }
    }
  }

  const CallByCorrelation call_by_correlation(t.api_calls);
  bool any_matched = false;
  for (GpuOp& op : t.gpu_ops) {
    if (const ApiCall* call = call_by_correlation.Find(op.correlation)) {
      op.pid = call->pid;
      any_matched = true;
    } else {
      op.pid = main_pid;
    }
  }
  for (SyncRecord& s : t.syncs) {
    if (const ApiCall* call = call_by_correlation.Find(s.correlation)) {
      s.pid = call->pid;
      s.tid = call->tid;
    } else {
      s.pid = main_pid;
    }
  }

  std::set<int32_t> device_ids;
  for (const KinetoDeviceProperties& d : devices_) {
    if (!device_ids.insert(d.id).second) continue;
    Device device;
    device.id = d.id;
    device.pid = main_pid;
    device.name = d.name;
    device.sm_count = d.sm_count;
    device.memory_bytes = d.memory_bytes;
    t.devices.push_back(std::move(device));
  }
  for (const GpuOp& op : t.gpu_ops) {
    if (device_ids.insert(op.device).second) {
      Device device;
      device.id = op.device;
      device.pid = main_pid;
      t.devices.push_back(std::move(device));
    }
  }
  std::sort(t.devices.begin(), t.devices.end(),
            [](const Device& a, const Device& b) { return a.id < b.id; });

  BuildProcessesAndThreads(main_pid);

  // The vectors are sorted side by side on a big trace; each sort is
  // stable, so the order does not depend on the threads.
  using common::LongerFirstKey;
  using common::StartKey;
  const std::vector<size_t> sizes = {t.gpu_ops.size(), t.api_calls.size(),
                                     t.syncs.size(), t.ranges.size(),
                                     t.marks.size()};
  const std::function<void()> sorts[] = {
      [&t] {
        common::StableSortByKeys(std::span(t.gpu_ops), StartKey(),
                                 LongerFirstKey());
      },
      [&t] {
        common::StableSortByKeys(std::span(t.api_calls), StartKey(),
                                 LongerFirstKey());
      },
      [&t] {
        common::StableSortByKeys(std::span(t.syncs), StartKey(),
                                 LongerFirstKey());
      },
      [&t] { timeline::SortAndNestRanges(t.ranges); },
      [&t] {
        common::StableSortByKey(std::span<Mark>(t.marks),
                                [](const Mark& e) { return e.ts; });
      },
  };
  const size_t events = counts_.events;
  common::ParallelForLongestFirst(
      sizes, events >= common::kSideBySideFromEvents ? threads : 1,
      [&sorts](size_t job) { sorts[job](); });

  t.available.api_calls = !t.api_calls.empty();
  t.available.correlation = any_matched;
  t.available.sync_records = counts_.syncs > 0;
  t.available.ranges = !t.ranges.empty();
  t.available.host_samples = false;
  t.available.system_samples = false;
  // With Python functions in the trace (with_stack=True), the calls get
  // the Python stacks that issued them.
  t.available.call_sites = AttachPythonCallSites(t) > 0;
  t.available.gpu_counters = false;
}

}  // namespace feedprof::kineto
