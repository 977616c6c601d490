// Maps Kineto events onto the timeline model, one event at a time.
//
// Why a separate class: the mapping rules (which category becomes a GPU op,
// an API call, a sync record or a range; how a memcpy's name encodes its
// direction and memory kinds; where device and stream come from when
// exporters disagree) are the part of the reader that changes with PyTorch
// versions, so they live apart from JSON tokenizing. `Finish` runs the
// whole-trace steps that need every event: joining GPU work and sync records
// to their launching API call by correlation id, building the process,
// thread and device lists, sorting, and the availability flags.
//
// Category names, old and new: Kernel/kernel, Memcpy/gpu_memcpy,
// Memset/gpu_memset, Runtime/cuda_runtime, cuda_driver, cuda_sync,
// Operator/cpu_op, user_annotation, python_function. gpu_user_annotation
// (the GPU-side copy of a user annotation) is counted and dropped: it is not
// host time. See docs/kineto.md.
#ifndef FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_MAPPER_H_
#define FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_MAPPER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "feedprof/timeline.h"
#include "kineto/kineto_event.h"

namespace feedprof::kineto {

// A GPU's entry in the top-level `deviceProperties` array.
struct KinetoDeviceProperties {
  int32_t id = 0;
  std::string name;
  uint32_t sm_count = 0;
  uint64_t memory_bytes = 0;
};

// What the mapper did with the events it saw (for tests and warnings).
struct KinetoMappingCounts {
  uint64_t events = 0;
  uint64_t kernels = 0;
  uint64_t memcpys = 0;
  uint64_t memsets = 0;
  uint64_t api_calls = 0;
  uint64_t syncs = 0;
  uint64_t ranges = 0;
  uint64_t marks = 0;
  uint64_t gpu_annotations_dropped = 0;
  uint64_t without_timestamp = 0;
  // Events (complete events, marks) whose start or end lies beyond
  // timeline::kMaxAbsTimeNs.
  uint64_t time_out_of_range = 0;
  uint64_t other = 0;  // flows, unknown categories, ...
};

class KinetoEventMapper {
 public:
  explicit KinetoEventMapper(Timeline* timeline) : timeline_(timeline) {}

  void Add(const KinetoEvent& event);
  void AddDevice(KinetoDeviceProperties device) {
    devices_.push_back(std::move(device));
  }
  void SetDistributed(int32_t rank, int32_t world_size) {
    rank_ = rank;
    world_size_ = world_size;
  }
  // Whole-trace steps; call once after the last event. On a big trace its
  // sorts run on up to `threads` threads (0: one per core).
  void Finish(size_t threads);

  const KinetoMappingCounts& counts() const { return counts_; }

 private:
  int32_t HostId(const IdField& id);
  void AddGpuOp(const KinetoEvent& e, GpuOpKind kind);
  void AddApiCall(const KinetoEvent& e, ApiDomain domain);
  void AddSync(const KinetoEvent& e);
  void AddRange(const KinetoEvent& e, RangeSource source);
  void AddMetadata(const KinetoEvent& e);
  void BuildProcessesAndThreads(int32_t main_pid);

  Timeline* timeline_;
  KinetoMappingCounts counts_;
  std::vector<KinetoDeviceProperties> devices_;
  int32_t rank_ = -1;
  int32_t world_size_ = 0;
  // Kineto's own spans ("PyTorch Profiler (0)"): the profiling window.
  TimeNs window_start_ = 0;
  TimeNs window_end_ = 0;
  bool has_window_ = false;
  // String pids/tids ("Spans", "Traces") get stable negative ids; looked up
  // by the event's view, without a copy.
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>()(s);
    }
  };
  std::unordered_map<std::string, int32_t, TextHash, std::equal_to<>>
      string_ids_;
  std::map<int32_t, std::string> process_names_;
  std::map<int32_t, std::string> process_labels_;
  std::map<std::pair<int32_t, int32_t>, std::string> thread_names_;
};

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_MAPPER_H_
