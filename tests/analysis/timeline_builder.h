// Builds small timelines for analyzer tests: kernels with their launch
// calls, copies, API calls on host threads, thread samples. Times are given
// in microseconds so tests read like the traces they model.
#ifndef FEEDPROF_TESTS_ANALYSIS_TIMELINE_BUILDER_H_
#define FEEDPROF_TESTS_ANALYSIS_TIMELINE_BUILDER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "feedprof/timeline.h"

namespace feedprof::testing {

constexpr TimeNs Us(double us) { return static_cast<TimeNs>(us * 1000.0); }

class TimelineBuilder {
 public:
  static constexpr int32_t kPid = 100;
  static constexpr int32_t kTid = 101;

  TimelineBuilder() {
    tl_.format = SourceFormat::kFeedprof;
    tl_.source_path = "constructed";
    tl_.available.api_calls = true;
    tl_.available.correlation = true;
    tl_.available.ranges = true;
    Process p;
    p.pid = kPid;
    p.command = "train.py";
    tl_.processes.push_back(p);
    Device d;
    d.id = 0;
    d.pid = kPid;
    d.name = "Test GPU";
    d.sm_count = 100;
    tl_.devices.push_back(d);
  }

  // An API call on a host thread; returns its correlation id.
  uint64_t Api(std::string_view name, double start_us, double end_us,
               int32_t tid = kTid, int32_t pid = kPid) {
    ApiCall c;
    c.start = Us(start_us);
    c.end = Us(end_us);
    c.correlation = next_correlation_++;
    c.pid = pid;
    c.tid = tid;
    c.name = tl_.strings.Intern(name);
    c.domain = ApiDomain::kRuntime;
    tl_.api_calls.push_back(c);
    return c.correlation;
  }

  // A GPU op with correlation `corr` (0: none).
  GpuOp& Op(GpuOpKind kind, double start_us, double end_us, uint64_t corr,
            int64_t stream = 7, int32_t device = 0, int32_t pid = kPid) {
    GpuOp op;
    op.kind = kind;
    op.start = Us(start_us);
    op.end = Us(end_us);
    op.correlation = corr;
    op.stream = stream;
    op.device = device;
    op.pid = pid;
    op.name =
        tl_.strings.Intern(kind == GpuOpKind::kKernel ? "kernel" : "copy");
    op.launch = tl_.launch_shapes.Intern({{1000, 1, 1}, {}, 0});
    tl_.gpu_ops.push_back(op);
    return tl_.gpu_ops.back();
  }

  // Gives `op` a grid of x × y × z blocks.
  void SetGrid(GpuOp& op, uint32_t x, uint32_t y = 1, uint32_t z = 1) {
    op.launch = tl_.launch_shapes.Intern({{x, y, z}, {}, 0});
  }

  // cudaLaunchKernel [api_start, api_end] then the kernel [k_start, k_end].
  GpuOp& Launch(double api_start, double api_end, double k_start, double k_end,
                int64_t stream = 7, int32_t tid = kTid) {
    const uint64_t corr = Api("cudaLaunchKernel", api_start, api_end, tid);
    return Op(GpuOpKind::kKernel, k_start, k_end, corr, stream);
  }

  // A copy with its API call.
  GpuOp& Copy(std::string_view api, double api_start, double api_end,
              double start, double end, CopyKind kind, uint64_t bytes,
              MemoryKind host_kind = MemoryKind::kPinned, int32_t tid = kTid) {
    const uint64_t corr = Api(api, api_start, api_end, tid);
    GpuOp& op = Op(GpuOpKind::kMemcpy, start, end, corr);
    op.copy_kind = kind;
    op.bytes = bytes;
    op.src_kind = kind == CopyKind::kHtoD ? host_kind : MemoryKind::kDevice;
    op.dst_kind = kind == CopyKind::kDtoH ? host_kind : MemoryKind::kDevice;
    return op;
  }

  // A cumulative CPU sample; enables host_samples.
  void Sample(double ts_us, double cpu_us, ThreadState state,
              int32_t tid = kTid, int32_t pid = kPid) {
    ThreadSample s;
    s.ts = Us(ts_us);
    s.user_ns = Us(cpu_us);
    s.pid = pid;
    s.tid = tid;
    s.state = state;
    tl_.thread_samples.push_back(s);
    tl_.available.host_samples = true;
  }

  void Range(std::string_view name, double start_us, double end_us,
             RangeSource source = RangeSource::kNvtx, int32_t pid = kPid,
             int32_t tid = kTid) {
    feedprof::Range r;
    r.start = Us(start_us);
    r.end = Us(end_us);
    r.pid = pid;
    r.tid = tid;
    r.name = tl_.strings.Intern(name);
    r.source = source;
    tl_.ranges.push_back(r);
  }

  Timeline& timeline() { return tl_; }
  Timeline Take() { return std::move(tl_); }

 private:
  Timeline tl_;
  uint64_t next_correlation_ = 1;
};

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_ANALYSIS_TIMELINE_BUILDER_H_
