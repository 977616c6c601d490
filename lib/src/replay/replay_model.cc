// Builds the what-if model of one process (see replay_model.h).
#include "replay/replay_model.h"

#include <algorithm>
#include <future>
#include <iterator>
#include <limits>
#include <string_view>
#include <tuple>
#include <utility>

#include "analysis/quantile.h"

namespace feedprof::replay {
namespace {

using analysis::ApiClass;
using analysis::SyncReason;

// An op that started this long after every constraint it has (its launch
// plus the typical launch latency, the previous op of its stream plus the
// typical back-to-back gap) waited for something else: the op on another
// stream of its device that ended last before it.
constexpr TimeNs kDependencySlackNs = 10'000;
// How far back the searches below walk before giving up.
constexpr int kSearchLimit = 256;
// From this many calls and ops a second thread helps the build more than
// starting it costs.
constexpr size_t kConcurrentBuildMinEvents = 100'000;
// The launch queue is taken as full only where the trace shows it plainly:
// at least this deep (CUDA queues about a thousand ops; a host a few ops
// ahead is not held by a queue), with at least this many held calls and
// this share of the enqueueing calls, which took at least this many times
// the median time of the others.
constexpr uint32_t kMinQueueDepth = 64;
constexpr uint64_t kMinHeldCalls = 8;
constexpr double kMinHeldShare = 0.005;
constexpr double kMinHeldSlowdown = 2.0;

// Device-wide syncs wait for every stream; the other blocking calls for
// the streams whose work ended while they blocked.
bool WaitsForEveryStream(std::string_view name) {
  return name.find("DeviceSynchronize") != std::string_view::npos ||
         name.find("CtxSynchronize") != std::string_view::npos;
}

}  // namespace

ReplayModel ReplayModel::Build(const analysis::PreparedTimeline& prepared,
                               int32_t pid,
                               const std::vector<SyncPoint>& sync_groups) {
  ReplayModel m(prepared, pid);
  size_t events = 0;
  for (const analysis::ThreadView& t : prepared.threads()) {
    if (t.pid == pid) events += t.calls.size();
  }
  for (const analysis::DeviceView& d : prepared.devices()) {
    if (d.pid == pid) events += d.ops.size() + d.excluded.size();
  }
  m.IndexCalls();
  // The passes paired below write disjoint fields and read only what the
  // passes before them set: on a big model each pair runs on two threads
  // (the calls beside the ops, then the op constraints beside the
  // blocking calls and the order).
  if (events >= kConcurrentBuildMinEvents) {
    std::future<void> ops_added =
        std::async(std::launch::async, [&m] { m.AddOps(); });
    m.AddThreads(sync_groups);
    ops_added.get();
    std::future<void> ops_resolved =
        std::async(std::launch::async, [&m] { m.ResolveOps(); });
    m.ResolveBlockingCalls();
    m.ResolveQueueHolds();  // reads the ops' times, not their constraints
    m.Order();
    ops_resolved.get();
  } else {
    m.AddThreads(sync_groups);
    m.AddOps();
    m.ResolveOps();
    m.ResolveBlockingCalls();
    m.ResolveQueueHolds();
    m.Order();
  }
  m.ReleaseBuildData();
  return m;
}

void ReplayModel::ReleaseBuildData() {
  call_of_api_.Clear();
  streams_ = {};
  devices_ = {};
  stream_of_op_ = {};
  by_end_ = {};
}

int32_t ReplayModel::CallOfApi(uint32_t api) const {
  return call_of_api_.Find(api);
}

int32_t ReplayModel::OpOfTimelineOp(uint32_t op) const {
  return op_of_op_.Find(op);
}

uint32_t ReplayModel::ThreadOfCall(uint32_t i) const {
  // The threads' call ranges follow each other in calls() order.
  const auto it = std::upper_bound(
      threads_.begin(), threads_.end(), i,
      [](uint32_t call, const ReplayThread& t) { return call < t.call_end; });
  return static_cast<uint32_t>(it - threads_.begin());
}

int32_t ReplayModel::MainThread() const {
  int32_t best = -1;
  uint32_t most = 0;
  for (size_t i = 0; i < threads_.size(); ++i) {
    const uint32_t n = threads_[i].call_end - threads_[i].call_begin;
    if (n > most) {
      most = n;
      best = static_cast<int32_t>(i);
    }
  }
  return best;
}

const ReplayThread* ReplayModel::FindThread(int32_t tid) const {
  for (const ReplayThread& t : threads_) {
    if (t.tid == tid) return &t;
  }
  return nullptr;
}

void ReplayModel::IndexCalls() {
  // The calls() index AddThreads gives each call.
  size_t count = 0;
  for (const analysis::ThreadView& t : prepared_->threads()) {
    if (t.pid == pid_) count += t.calls.size();
  }
  call_of_api_.Start(count, prepared_->timeline().api_calls.size());
  int32_t index = 0;
  for (const analysis::ThreadView& t : prepared_->threads()) {
    if (t.pid != pid_) continue;
    for (const analysis::ThreadCall& c : t.calls) {
      call_of_api_.Set(c.api, index++);
    }
  }
  call_of_api_.Finish();
}

void ReplayModel::AddThreads(const std::vector<SyncPoint>& sync_groups) {
  const Timeline& tl = prepared_->timeline();
  size_t count = 0;
  for (const analysis::ThreadView& t : prepared_->threads()) {
    if (t.pid == pid_) count += t.calls.size();
  }
  calls_.reserve(count);
  for (const analysis::ThreadView& t : prepared_->threads()) {
    if (t.pid != pid_ || t.calls.empty()) continue;
    ReplayThread rt;
    rt.tid = t.tid;
    rt.call_begin = static_cast<uint32_t>(calls_.size());
    for (size_t i = 0; i < t.calls.size(); ++i) {
      const analysis::ThreadCall& c = t.calls[i];
      // A thread's calls lie among the other threads' in the timeline.
      if (const auto* ahead = analysis::ElementAhead(t.calls, c)) {
        analysis::PrefetchRecord(&tl.api_calls[ahead->api]);
      }
      ReplayCall rc;
      rc.start = c.start;
      rc.end = c.end;
      rc.first_of_thread = i == 0;
      rc.api = c.api;
      rc.api_class = prepared_->ClassOf(tl.api_calls[c.api]);
      rc.sync = c.sync;
      if (c.sync != SyncReason::kNone &&
          c.sync != SyncReason::kLegacyDefaultStream) {
        const analysis::SyncGroupKey key = analysis::SyncGroupOf(*prepared_, c);
        const std::string_view api = tl.strings.Get(key.api);
        for (size_t g = 0; g < sync_groups.size(); ++g) {
          const SyncPoint& p = sync_groups[g];
          if (p.blocks_host && p.api == api &&
              p.reason == analysis::SyncReasonText(key.reason) &&
              p.call_site == key.call_site) {
            rc.sync_group = static_cast<int32_t>(g);
            break;
          }
        }
      }
      calls_.push_back(rc);
    }
    rt.call_end = static_cast<uint32_t>(calls_.size());
    threads_.push_back(rt);
  }
}

void ReplayModel::AddOps() {
  const Timeline& tl = prepared_->timeline();
  // The device's streams (few): stream id → index into streams_.
  std::vector<std::pair<int64_t, uint32_t>> stream_index;
  size_t count = 0;
  for (const analysis::DeviceView& d : prepared_->devices()) {
    if (d.pid == pid_) count += d.ops.size() + d.excluded.size();
  }
  ops_.reserve(count);
  stream_of_op_.reserve(count);
  op_of_op_.Start(count, tl.gpu_ops.size());
  for (const analysis::DeviceView& d : prepared_->devices()) {
    if (d.pid != pid_) continue;
    // Work launched before recording began still occupies its stream.
    stream_index.clear();
    // Both lists are sorted by start: they are merged as they are read.
    const auto by_start = [](const analysis::OpRef& a,
                             const analysis::OpRef& b) {
      return std::tie(a.start, a.end, a.op) < std::tie(b.start, b.end, b.op);
    };
    DeviceOps device;
    device.begin = static_cast<uint32_t>(ops_.size());
    size_t a = 0, x = 0;
    while (a < d.ops.size() || x < d.excluded.size()) {
      if (a < d.ops.size()) {
        analysis::PrefetchOpAhead(tl.gpu_ops, d.ops, d.ops[a]);
      }
      const bool take_excluded =
          a == d.ops.size() ||
          (x < d.excluded.size() && by_start(d.excluded[x], d.ops[a]));
      const analysis::OpRef& ref = take_excluded ? d.excluded[x++] : d.ops[a++];
      const GpuOp& g = tl.gpu_ops[ref.op];
      ReplayOp op;
      op.start = ref.start;
      op.end = ref.end;
      op.op = ref.op;
      op.kind = g.kind;
      op.excluded = take_excluded;
      if (ref.api >= 0) {
        const int32_t top = prepared_->TopOf(static_cast<uint32_t>(ref.api));
        if (top >= 0) op.call = CallOfApi(static_cast<uint32_t>(top));
      }
      uint32_t stream_at = 0;
      auto found = std::find_if(stream_index.begin(), stream_index.end(),
                                [&g](const std::pair<int64_t, uint32_t>& e) {
                                  return e.first == g.stream;
                                });
      if (found != stream_index.end()) {
        stream_at = found->second;
      } else {
        stream_at = static_cast<uint32_t>(streams_.size());
        stream_index.emplace_back(g.stream, stream_at);
        streams_.emplace_back();
      }
      const uint32_t index = static_cast<uint32_t>(ops_.size());
      std::vector<uint32_t>& stream = streams_[stream_at];
      if (!stream.empty()) op.previous = static_cast<int32_t>(stream.back());
      stream.push_back(index);
      stream_of_op_.push_back(stream_at);
      op_of_op_.Set(ref.op, static_cast<int32_t>(index));
      if (!op.excluded) {
        const TimeNs duration = op.end - op.start;
        op_ns_ += duration;
        if (op.call < 0) unlaunched_ns_ += duration;
      }
      ops_.push_back(op);
    }
    device.end = static_cast<uint32_t>(ops_.size());
    device.by_end = ByEnd(device.begin, device.end);
    devices_.push_back(std::move(device));
  }
  op_of_op_.Finish();
  // One device: its order is the process's (ProcessByEnd).
  if (devices_.size() > 1) {
    by_end_ = ByEnd(0, static_cast<uint32_t>(ops_.size()));
  }
}

std::vector<uint32_t> ReplayModel::ByEnd(uint32_t begin, uint32_t end) const {
  std::vector<uint32_t> out;
  out.reserve(end - begin);
  bool in_order = true;
  for (uint32_t i = begin; i + 1 < end && in_order; ++i) {
    in_order = ops_[i].end <= ops_[i + 1].end;  // ties: by index, as they are
  }
  if (in_order) {
    for (uint32_t i = begin; i < end; ++i) out.push_back(i);
    return out;
  }
  // Sorted as (end, index) pairs: the sort then reads contiguous memory.
  std::vector<std::pair<TimeNs, uint32_t>> keyed;
  keyed.reserve(end - begin);
  for (uint32_t i = begin; i < end; ++i) keyed.emplace_back(ops_[i].end, i);
  std::sort(keyed.begin(), keyed.end());
  for (const auto& k : keyed) out.push_back(k.second);
  return out;
}

void ReplayModel::ResolveOps() {
  // The floors: the launch latency of work submitted to an idle stream,
  // and the gap between queued ops of one stream, as this trace shows them.
  std::vector<TimeNs> launch_samples, back_to_back_samples;
  for (const ReplayOp& op : ops_) {
    if (op.call < 0) continue;
    const ReplayCall& c = calls_[static_cast<size_t>(op.call)];
    const ReplayOp* prev =
        op.previous >= 0 ? &ops_[static_cast<size_t>(op.previous)] : nullptr;
    if (prev == nullptr || prev->end <= c.start) {
      if (op.start >= c.start) launch_samples.push_back(op.start - c.start);
    } else if (c.end <= prev->end && op.start >= prev->end) {
      back_to_back_samples.push_back(op.start - prev->end);
    }
  }
  launch_floor_ = analysis::Quantile(launch_samples, 0.5);
  back_to_back_floor_ = analysis::Quantile(back_to_back_samples, 0.5);

  for (size_t device = 0; device < devices_.size(); ++device) {
    const DeviceOps& d = devices_[device];
    for (uint32_t i = d.begin; i < d.end; ++i) {
      ReplayOp& op = ops_[i];
      const ReplayCall* call =
          op.call >= 0 ? &calls_[static_cast<size_t>(op.call)] : nullptr;
      const ReplayOp* prev =
          op.previous >= 0 ? &ops_[static_cast<size_t>(op.previous)] : nullptr;
      if (call == nullptr && prev == nullptr) {
        op.fixed = true;
        continue;
      }
      // Each constraint's time at its floor; the latest one held the op.
      constexpr TimeNs kNone = std::numeric_limits<TimeNs>::min();
      TimeNs at_launch = kNone, at_previous = kNone;
      if (call != nullptr) {
        op.launch_offset = op.start - call->start;
        at_launch = call->start + std::min(launch_floor_, op.launch_offset);
      }
      if (prev != nullptr) {
        op.previous_offset = op.start - prev->end;
        at_previous =
            prev->end + std::min(back_to_back_floor_, op.previous_offset);
      }
      const TimeNs ready = std::max(at_launch, at_previous);
      TimeNs at_dependency = kNone;
      if (op.start - ready > kDependencySlackNs) {
        // The latest op of another stream that ended after the op was
        // otherwise ready and before it started.
        auto it = std::upper_bound(
            d.by_end.begin(), d.by_end.end(), op.start,
            [this](TimeNs t, uint32_t k) { return t < ops_[k].end; });
        for (int steps = 0; it != d.by_end.begin() && steps < kSearchLimit;
             ++steps) {
          --it;
          const ReplayOp& other = ops_[*it];
          if (other.end <= ready) break;
          if (stream_of_op_[*it] == stream_of_op_[i] || *it == i) continue;
          op.dependency = static_cast<int32_t>(*it);
          op.dependency_offset = op.start - other.end;
          at_dependency =
              other.end + std::min(back_to_back_floor_, op.dependency_offset);
          break;
        }
      }
      // The binding constraint keeps its recorded slack; the others their
      // floor (never more than their recorded slack, so the unedited
      // replay puts the op where it was).
      const TimeNs binding = std::max({at_launch, at_previous, at_dependency});
      if (call != nullptr && at_launch != binding) {
        op.launch_offset = std::min(launch_floor_, op.launch_offset);
      }
      if (prev != nullptr && at_previous != binding) {
        op.previous_offset = std::min(back_to_back_floor_, op.previous_offset);
      }
      if (op.dependency >= 0 && at_dependency != binding) {
        op.dependency_offset =
            std::min(back_to_back_floor_, op.dependency_offset);
      }
    }
  }
}

void ReplayModel::ResolveBlockingCalls() {
  const Timeline& tl = prepared_->timeline();
  const auto launch_time = [this](const ReplayOp& op) {
    return op.call >= 0 ? calls_[static_cast<size_t>(op.call)].start : op.start;
  };
  const std::vector<uint32_t>& by_end = ProcessByEnd();
  std::vector<uint32_t> waited_streams;
  for (ReplayCall& c : calls_) {
    if (!Blocking(c)) continue;
    c.wait = static_cast<uint32_t>(waits_.size());
    ReplayWait& wait = waits_.emplace_back();
    wait.awaited_begin = static_cast<uint32_t>(awaited_.size());
    waited_streams.clear();
    if (WaitsForEveryStream(tl.strings.Get(tl.api_calls[c.api].name))) {
      for (uint32_t s = 0; s < streams_.size(); ++s) {
        waited_streams.push_back(s);
      }
    } else {
      // The streams whose work, submitted by then, ended while it blocked.
      auto it = std::upper_bound(
          by_end.begin(), by_end.end(), c.start,
          [this](TimeNs t, uint32_t k) { return t < ops_[k].end; });
      for (; it != by_end.end() && ops_[*it].end <= c.end; ++it) {
        if (launch_time(ops_[*it]) > c.start) continue;
        const uint32_t s = stream_of_op_[*it];
        if (std::find(waited_streams.begin(), waited_streams.end(), s) ==
            waited_streams.end()) {
          waited_streams.push_back(s);
        }
      }
    }
    TimeNs last_end = std::numeric_limits<TimeNs>::min();
    for (uint32_t s : waited_streams) {
      // Its last op submitted by the call's start that ended by the call's
      // end: later work on that stream ends later.
      const std::vector<uint32_t>& stream = streams_[s];
      auto it = std::upper_bound(
          stream.begin(), stream.end(), c.end,
          [this](TimeNs t, uint32_t k) { return t < ops_[k].start; });
      for (int steps = 0; it != stream.begin() && steps < kSearchLimit;
           ++steps) {
        --it;
        const ReplayOp& op = ops_[*it];
        if (launch_time(op) > c.start || op.end > c.end) continue;
        awaited_.push_back(*it);
        last_end = std::max(last_end, op.end);
        break;
      }
    }
    wait.awaited_end = static_cast<uint32_t>(awaited_.size());
    c.blocked = last_end > c.start;
    wait.wake_ns = c.blocked ? c.end - last_end : 0;
  }
}

void ReplayModel::ResolveQueueHolds() {
  // The enqueueing calls (those that submitted an op without blocking),
  // each with the device of its first op, by call.
  std::vector<std::pair<uint32_t, uint32_t>> enqueued;  // (call, device)
  for (uint32_t d = 0; d < devices_.size(); ++d) {
    for (uint32_t i = devices_[d].begin; i < devices_[d].end; ++i) {
      const ReplayOp& op = ops_[i];
      if (op.call < 0 || op.excluded) continue;
      if (Blocking(calls_[static_cast<size_t>(op.call)])) continue;
      enqueued.emplace_back(static_cast<uint32_t>(op.call), d);
    }
  }
  std::sort(enqueued.begin(), enqueued.end());
  enqueued.erase(std::unique(enqueued.begin(), enqueued.end(),
                             [](const auto& a, const auto& b) {
                               return a.first == b.first;
                             }),
                 enqueued.end());
  launch_queue_.enqueueing_calls = enqueued.size();
  if (enqueued.empty()) return;

  // Per device, its ops' submission times (work with no launching call in
  // the model counts from the beginning), sorted.
  std::vector<std::vector<TimeNs>> submitted(devices_.size());
  for (size_t d = 0; d < devices_.size(); ++d) {
    const DeviceOps& dev = devices_[d];
    for (uint32_t i = dev.begin; i < dev.end; ++i) {
      const ReplayOp& op = ops_[i];
      submitted[d].push_back(op.call >= 0
                                 ? calls_[static_cast<size_t>(op.call)].start
                                 : std::numeric_limits<TimeNs>::min());
    }
    std::sort(submitted[d].begin(), submitted[d].end());
  }
  // Ops of device `d` submitted before `s` and not ended by `t` (t >= s).
  const auto outstanding = [&](size_t d, TimeNs s, TimeNs t) {
    const std::vector<uint32_t>& by_end = devices_[d].by_end;
    const auto before = static_cast<int64_t>(
        std::lower_bound(submitted[d].begin(), submitted[d].end(), s) -
        submitted[d].begin());
    const auto ended =
        static_cast<int64_t>(std::upper_bound(by_end.begin(), by_end.end(), t,
                                              [this](TimeNs v, uint32_t k) {
                                                return v < ops_[k].end;
                                              }) -
                             by_end.begin());
    return static_cast<uint32_t>(std::max<int64_t>(0, before - ended));
  };

  // A call blocked on the queue found `depth` ops outstanding at its start
  // and left with fewer: the depth is one more than the most ops any call
  // left outstanding.
  std::vector<uint32_t> at_start(enqueued.size());
  uint32_t most_left = 0;
  for (size_t k = 0; k < enqueued.size(); ++k) {
    const auto [call, d] = enqueued[k];
    const ReplayCall& c = calls_[call];
    at_start[k] = outstanding(d, c.start, c.start);
    launch_queue_.most_outstanding =
        std::max(launch_queue_.most_outstanding, at_start[k]);
    most_left = std::max(most_left, outstanding(d, c.start, c.end));
  }
  const uint32_t depth = most_left + 1;
  if (depth < kMinQueueDepth) return;
  std::vector<TimeNs> held_time, free_time;
  for (size_t k = 0; k < enqueued.size(); ++k) {
    const ReplayCall& c = calls_[enqueued[k].first];
    (at_start[k] >= depth ? held_time : free_time).push_back(c.end - c.start);
  }
  if (held_time.size() < kMinHeldCalls ||
      static_cast<double>(held_time.size()) <
          kMinHeldShare * static_cast<double>(enqueued.size()) ||
      (!free_time.empty() &&
       static_cast<double>(analysis::Quantile(held_time, 0.5)) <
           kMinHeldSlowdown *
               static_cast<double>(analysis::Quantile(free_time, 0.5)))) {
    return;
  }
  launch_queue_.depth = depth;

  // Each held call waits for the op whose end brought the outstanding ops
  // below the depth: of the ops submitted before it, the
  // (outstanding - depth + 1)-th to end after its start.
  for (size_t k = 0; k < enqueued.size(); ++k) {
    if (at_start[k] < depth) continue;
    ReplayCall& c = calls_[enqueued[k].first];
    const std::vector<uint32_t>& by_end = devices_[enqueued[k].second].by_end;
    auto it = std::upper_bound(
        by_end.begin(), by_end.end(), c.start,
        [this](TimeNs v, uint32_t j) { return v < ops_[j].end; });
    uint32_t to_end = at_start[k] - depth + 1;
    int32_t freed_by = -1;
    for (int steps = 0; it != by_end.end() && steps < kSearchLimit;
         ++it, ++steps) {
      const ReplayOp& op = ops_[*it];
      if (op.call >= 0 &&
          calls_[static_cast<size_t>(op.call)].start >= c.start) {
        continue;
      }
      if (--to_end == 0) {
        freed_by = static_cast<int32_t>(*it);
        break;
      }
    }
    // Its slot freed inside the call, or the trace says otherwise.
    if (freed_by < 0 || ops_[static_cast<size_t>(freed_by)].end > c.end) {
      continue;
    }
    c.queue_held = true;
    c.wait = static_cast<uint32_t>(waits_.size());
    ReplayWait& wait = waits_.emplace_back();
    wait.awaited_begin = static_cast<uint32_t>(awaited_.size());
    awaited_.push_back(static_cast<uint32_t>(freed_by));
    wait.awaited_end = static_cast<uint32_t>(awaited_.size());
    wait.wake_ns = c.end - ops_[static_cast<size_t>(freed_by)].end;
    ++launch_queue_.held_calls;
  }
}

namespace {

// An event with the recorded time the replay visits it at.
struct KeyedEvent {
  TimeNs key;
  ReplayEvent event;
};

bool Before(const KeyedEvent& a, const KeyedEvent& b) {
  // bits() orders by (kind, index).
  return a.key < b.key || (a.key == b.key && a.event.bits() < b.event.bits());
}

}  // namespace

void ReplayModel::Order() {
  // Each thread's events are in order by construction (a call's start, its
  // end when it blocks, the next call's start); each device's ops nearly
  // so. The order is their merge: O(n log runs) instead of a full sort.
  // (kind, index) names one event, so the sorted order is unique and any
  // merge of sorted runs gives it; the runs are read in place rather than
  // copied, and only a device whose ops are out of order is sorted apart.
  const auto op_key = [this](uint32_t i) {
    const ReplayOp& op = ops_[i];
    TimeNs key = op.start;
    if (op.call >= 0) {
      key = std::max(key, calls_[static_cast<size_t>(op.call)].start);
    }
    return key;
  };
  // A run: a thread's calls, a device's ops in place, or a device's ops
  // sorted apart.
  struct Run {
    enum class Kind : uint8_t { kThread, kDevice, kSorted } kind;
    uint32_t pos = 0;
    uint32_t end = 0;
    bool pending_end = false;  // kThread: the end of call `pos` is next
    std::vector<KeyedEvent> sorted;
  };
  const auto next = [&](Run& r, KeyedEvent* out) {
    switch (r.kind) {
      case Run::Kind::kThread: {
        if (r.pending_end) {
          *out = {calls_[r.pos].end, {ReplayEvent::Kind::kCallEnd, r.pos}};
          r.pending_end = false;
          ++r.pos;
          return true;
        }
        if (r.pos == r.end) return false;
        const ReplayCall& c = calls_[r.pos];
        *out = {HeldStart(c), {ReplayEvent::Kind::kCallStart, r.pos}};
        // A blocking call of no length ends where it starts (the replay
        // computes its end with its start).
        if (Blocking(c) && c.end > c.start) {
          r.pending_end = true;
        } else {
          ++r.pos;
        }
        return true;
      }
      case Run::Kind::kDevice:
        if (r.pos == r.end) return false;
        *out = {op_key(r.pos), {ReplayEvent::Kind::kOpStart, r.pos}};
        ++r.pos;
        return true;
      case Run::Kind::kSorted:
        if (r.pos == r.end) return false;
        *out = r.sorted[r.pos++];
        return true;
    }
    return false;
  };
  std::vector<Run> runs;
  runs.reserve(threads_.size() + devices_.size());
  size_t count = 0;
  for (const ReplayThread& t : threads_) {
    runs.push_back({Run::Kind::kThread, t.call_begin, t.call_end, false, {}});
  }
  for (const ReplayCall& c : calls_) {
    count += Blocking(c) && c.end > c.start ? 2 : 1;
  }
  for (const DeviceOps& d : devices_) {
    Run r{Run::Kind::kDevice, d.begin, d.end, false, {}};
    bool in_order = true;
    for (uint32_t i = d.begin; i + 1 < d.end && in_order; ++i) {
      in_order = op_key(i) <= op_key(i + 1);  // ties: by index, as they are
    }
    if (!in_order) {
      r.kind = Run::Kind::kSorted;
      r.sorted.reserve(d.end - d.begin);
      for (uint32_t i = d.begin; i < d.end; ++i) {
        r.sorted.push_back({op_key(i), {ReplayEvent::Kind::kOpStart, i}});
      }
      std::sort(r.sorted.begin(), r.sorted.end(), Before);
      r.pos = 0;
      r.end = static_cast<uint32_t>(r.sorted.size());
    }
    count += d.end - d.begin;
    runs.push_back(std::move(r));
  }
  order_.reserve(count);
  // The runs' heads; the earliest is taken until every run is empty. A
  // thread's events out of order (clocks that disagree) show as a head
  // before the event its run gave last: then the runs are merged as the
  // model always merged them.
  struct Head {
    KeyedEvent event;
    uint32_t run;
  };
  std::vector<Head> heads;
  heads.reserve(runs.size());
  for (uint32_t r = 0; r < runs.size(); ++r) {
    Head h{{}, r};
    if (next(runs[r], &h.event)) heads.push_back(h);
  }
  const auto out_of_order = [this]() {
    order_.clear();
    OrderByPairwiseMerge();
  };
  // Few runs (a thread or two and a device): the earliest by a scan; many:
  // by a heap.
  constexpr size_t kScanRuns = 8;
  if (heads.size() <= kScanRuns) {
    while (!heads.empty()) {
      size_t best = 0;
      for (size_t h = 1; h < heads.size(); ++h) {
        if (Before(heads[h].event, heads[best].event)) best = h;
      }
      Head& h = heads[best];
      order_.push_back(h.event.event);
      const KeyedEvent taken = h.event;
      if (!next(runs[h.run], &h.event)) {
        heads.erase(heads.begin() + static_cast<std::ptrdiff_t>(best));
      } else if (Before(h.event, taken)) {
        return out_of_order();
      }
    }
    return;
  }
  const auto later = [](const Head& a, const Head& b) {
    return Before(b.event, a.event);
  };
  std::make_heap(heads.begin(), heads.end(), later);
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    Head& h = heads.back();
    order_.push_back(h.event.event);
    const KeyedEvent taken = h.event;
    if (!next(runs[h.run], &h.event)) {
      heads.pop_back();
    } else if (Before(h.event, taken)) {
      return out_of_order();
    } else {
      std::push_heap(heads.begin(), heads.end(), later);
    }
  }
}

void ReplayModel::OrderByPairwiseMerge() {
  // A thread's events out of order: the runs are merged pairwise as they
  // are, which fixes the order such a trace replays in.
  std::vector<std::vector<KeyedEvent>> runs;
  for (const ReplayThread& t : threads_) {
    std::vector<KeyedEvent>& run = runs.emplace_back();
    run.reserve(2 * (t.call_end - t.call_begin));
    for (uint32_t i = t.call_begin; i < t.call_end; ++i) {
      const ReplayCall& c = calls_[i];
      run.push_back({HeldStart(c), {ReplayEvent::Kind::kCallStart, i}});
      if (Blocking(c) && c.end > c.start) {
        run.push_back({c.end, {ReplayEvent::Kind::kCallEnd, i}});
      }
    }
  }
  for (const DeviceOps& d : devices_) {
    std::vector<KeyedEvent>& run = runs.emplace_back();
    run.reserve(d.end - d.begin);
    for (uint32_t i = d.begin; i < d.end; ++i) {
      const ReplayOp& op = ops_[i];
      TimeNs key = op.start;
      if (op.call >= 0) {
        key = std::max(key, calls_[static_cast<size_t>(op.call)].start);
      }
      run.push_back({key, {ReplayEvent::Kind::kOpStart, i}});
    }
    if (!std::is_sorted(run.begin(), run.end(), Before)) {
      std::sort(run.begin(), run.end(), Before);
    }
  }
  // Merged pairwise, runs of similar size first, until one is left.
  std::vector<KeyedEvent> merged;
  while (runs.size() > 1) {
    std::vector<std::vector<KeyedEvent>> next;
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      merged.clear();
      merged.reserve(runs[r].size() + runs[r + 1].size());
      std::merge(runs[r].begin(), runs[r].end(), runs[r + 1].begin(),
                 runs[r + 1].end(), std::back_inserter(merged), Before);
      next.push_back(std::move(merged));
      merged = {};
    }
    if (runs.size() % 2 == 1) next.push_back(std::move(runs.back()));
    runs = std::move(next);
  }
  order_.clear();
  if (!runs.empty()) {
    order_.reserve(runs.front().size());
    for (const KeyedEvent& k : runs.front()) order_.push_back(k.event);
  }
}

}  // namespace feedprof::replay
