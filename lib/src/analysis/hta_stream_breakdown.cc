// HTA-compatible per-stream idle breakdown.
//
// Holistic Trace Analysis splits each stream's idle time between
// consecutive ops into host wait (the next op's launch call started after
// the previous op ended: the CPU was late), kernel wait (otherwise, and the
// gap is under 30 µs: launch latency between queued kernels) and other.
// Reporting the same split lets users compare feedprof with HTA numbers.
#include <algorithm>

#include "analysis/analysis_passes.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {
namespace {

constexpr TimeNs kKernelWaitThresholdNs = 30'000;

struct StreamState {
  StreamIdle idle;
  TimeNs prev_end = 0;  // latest end of the stream's ops so far
};

}  // namespace

std::vector<StreamIdle> ComputeHtaStreamBreakdown(
    const PreparedTimeline& prepared, const DeviceView& device) {
  const Timeline& tl = prepared.timeline();
  std::vector<StreamState> streams;  // few per device: linear lookup
  size_t last = 0;
  for (const OpRef& op : device.ops) {
    PrefetchOpAhead(tl.gpu_ops, device.ops, op);
    PrefetchLaunchAhead(tl.api_calls, device.ops, op);
    const int64_t stream = tl.gpu_ops[op.op].stream;
    if (last >= streams.size() || streams[last].idle.stream != stream) {
      last = streams.size();
      for (size_t i = 0; i < streams.size(); ++i) {
        if (streams[i].idle.stream == stream) last = i;
      }
      if (last == streams.size()) {
        streams.emplace_back();
        streams.back().idle.stream = stream;
        streams.back().prev_end = op.start;  // no gap before the first op
      }
    }
    StreamState& s = streams[last];
    AddTime(&s.idle.busy_ns, op.end - op.start);
    if (op.start > s.prev_end) {
      const TimeNs gap = op.start - s.prev_end;
      const bool host_late =
          op.api >= 0 &&
          tl.api_calls[static_cast<size_t>(op.api)].start > s.prev_end;
      if (host_late) {
        AddTime(&s.idle.host_wait_ns, gap);
      } else if (gap < kKernelWaitThresholdNs) {
        AddTime(&s.idle.kernel_wait_ns, gap);
      } else {
        AddTime(&s.idle.other_ns, gap);
      }
    }
    s.prev_end = std::max(s.prev_end, op.end);
  }
  std::vector<StreamIdle> out;
  out.reserve(streams.size());
  for (const StreamState& s : streams) out.push_back(s.idle);
  std::sort(out.begin(), out.end(),
            [](const StreamIdle& a, const StreamIdle& b) {
              return a.stream < b.stream;
            });
  return out;
}

}  // namespace feedprof::analysis
