// The one in-memory timeline model every reader produces and the analyzer
// consumes.
//
// feedprof reads its own traces, PyTorch profiler (Kineto) JSON and Nsight
// Systems SQLite exports. The analyzer must never know which one it got, so
// each reader maps its format onto this model, and says through
// `Availability` what its format could not tell (Kineto has no host CPU
// samples, say) so the report can print "not available" instead of zero.
//
// Layout: flat vectors of small POD records, strings interned into one
// StringTable, so a trace of hundreds of millions of events costs a few tens
// of bytes per event and no per-event heap allocation. All times are
// nanoseconds on one clock per process (readers convert µs to ns).
#ifndef FEEDPROF_TIMELINE_H_
#define FEEDPROF_TIMELINE_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace feedprof {

// Every TimeNs a reader puts into a Timeline lies within ±2^62 ns (about
// 146 years), so differences and sums of two times never overflow; readers
// skip, count and warn about events outside that range.
using TimeNs = int64_t;
using StringId = uint32_t;  // index into StringTable; 0 is the empty string

// Interns strings: one copy of each distinct text, ids are dense.
// Not thread-safe: a reader fills it from one thread.
//
// Why its own hash table: readers intern a name per event, millions of
// times, and std::unordered_map's node per string and pointer chase per
// lookup were a visible part of reading a big trace.
class StringTable {
 public:
  StringTable() { Intern(""); }
  StringId Intern(std::string_view s);
  std::string_view Get(StringId id) const {
    return id < storage_.size() ? std::string_view(storage_[id])
                                : std::string_view();
  }
  size_t size() const { return storage_.size(); }

 private:
  std::deque<std::string> storage_;
  std::vector<uint64_t> index_;  // hash slots (timeline/dense_id_index.h)
};

// How a kernel was launched, and the CUDA graph an op ran in (0: none).
// A trace has few distinct ones, so ops refer to them by index
// (GpuOp::launch) instead of carrying 28 bytes each.
struct LaunchShape {
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t graph_id = 0;

  bool operator==(const LaunchShape&) const = default;
};

// Interns launch shapes; id 0 is the all-zero shape (copies and memsets
// outside graphs, kernels whose format gives no shape). Not thread-safe.
class LaunchShapeTable {
 public:
  LaunchShapeTable() { Intern(LaunchShape{}); }
  uint32_t Intern(const LaunchShape& shape);
  // Interns every shape of `other` in id order; returns, for each id of
  // `other`, its id here (how a part's ops are moved onto this table).
  std::vector<uint32_t> InternAll(const LaunchShapeTable& other);
  // The shape of `id`; the all-zero shape for an id the table lacks.
  const LaunchShape& Get(uint32_t id) const {
    return id < shapes_.size() ? shapes_[id] : shapes_[0];
  }
  size_t size() const { return shapes_.size(); }

 private:
  std::vector<LaunchShape> shapes_;
  std::vector<uint64_t> index_;  // hash slots (timeline/dense_id_index.h)
};

enum class GpuOpKind : uint8_t { kKernel, kMemcpy, kMemset };

// Numbering follows the trace format's CopyKind.
enum class CopyKind : uint8_t {
  kUnknown = 0,
  kHtoD = 1,
  kDtoH = 2,
  kHtoA = 3,
  kAtoH = 4,
  kAtoA = 5,
  kAtoD = 6,
  kDtoA = 7,
  kDtoD = 8,
  kHtoH = 9,
  kPtoP = 10,
};

// Numbering follows CUPTI's CUpti_ActivityMemoryKind (nsys is one lower).
enum class MemoryKind : uint8_t {
  kUnknown = 0,
  kPageable = 1,
  kPinned = 2,
  kDevice = 3,
  kArray = 4,
  kManaged = 5,
  kDeviceStatic = 6,
  kManagedStatic = 7,
};

// A kernel, copy or memset as it ran on a device.
struct GpuOp {
  TimeNs start = 0;
  TimeNs end = 0;
  uint64_t correlation = 0;  // 0: none
  uint64_t bytes = 0;        // copies and memsets
  int64_t stream = -1;
  int32_t pid = 0;
  int32_t device = 0;
  StringId name = 0;
  GpuOpKind kind = GpuOpKind::kKernel;
  CopyKind copy_kind = CopyKind::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  bool async = false;
  uint32_t launch = 0;  // index into Timeline::launch_shapes
};

enum class ApiDomain : uint8_t { kUnknown, kRuntime, kDriver };

// A CUDA runtime or driver API call on a host thread.
struct ApiCall {
  // The largest `bytes` a call holds: 2^56 - 1 (64 PiB, beyond any copy).
  static constexpr uint64_t kMaxBytes = (uint64_t{1} << 56) - 1;
  // `bytes` for a size read from a trace: larger ones stop at kMaxBytes.
  static constexpr uint64_t ClampBytes(uint64_t size) {
    return size < kMaxBytes ? size : kMaxBytes;
  }

  TimeNs start = 0;
  TimeNs end = 0;
  uint64_t correlation = 0;
  int32_t pid = 0;
  int32_t tid = 0;
  StringId name = 0;       // e.g. "cudaLaunchKernel" (version suffix removed)
  uint32_t call_site = 0;  // index into Timeline::call_sites; 0: unknown
  // Copy/memset/malloc size when known. In 56 bits, beside `domain` in one
  // word, so that a call takes 48 bytes, not 56: a third of a big trace's
  // events are calls.
  uint64_t bytes : 56 = 0;
  ApiDomain domain : 8 = ApiDomain::kUnknown;
};

enum class SyncType : uint8_t {
  kUnknown,
  kEventSynchronize,
  kStreamWaitEvent,
  kStreamSynchronize,
  kContextSynchronize,
};

// A synchronization record from the GPU side (CUPTI / cuda_sync / nsys).
struct SyncRecord {
  TimeNs start = 0;
  TimeNs end = 0;
  uint64_t correlation = 0;
  int64_t stream = -1;
  int32_t pid = 0;
  int32_t tid = 0;
  int32_t device = 0;
  SyncType type = SyncType::kUnknown;
};

enum class RangeSource : uint8_t {
  kNvtx,            // NVTX push/pop or start/end
  kProfilerStep,    // Kineto "ProfilerStep#N"
  kUserAnnotation,  // Kineto user_annotation / record_function
  kCpuOp,           // Kineto cpu_op / Operator
  kPythonFunction,  // Kineto python_function
  kDataLoader,      // DataLoader ops ("enumerate(DataLoader)#...")
};

// A named host-side interval (NVTX range, profiler step, framework op).
struct Range {
  TimeNs start = 0;
  TimeNs end = 0;
  int32_t pid = 0;
  int32_t tid = 0;
  StringId name = 0;
  StringId domain = 0;
  uint32_t depth = 0;
  RangeSource source = RangeSource::kNvtx;
};

// An instant marker (NVTX mark, Kineto instant event).
struct Mark {
  TimeNs ts = 0;
  int32_t pid = 0;
  int32_t tid = 0;
  StringId name = 0;
  StringId domain = 0;
};

// The name a process gave an NVTX category (nvtxNameCategory,
// nvtxDomainNameCategory) in one domain.
struct NvtxCategoryName {
  int32_t pid = 0;
  StringId domain = 0;  // 0: the default domain
  uint32_t category = 0;
  StringId name = 0;
};

enum class ThreadState : uint8_t {
  kUnknown,
  kRunning,
  kSleeping,
  kDiskWait,
  kStopped,
  kZombie,
  kIdle,
};

// Cumulative CPU time of one thread at one instant (host sampler).
struct ThreadSample {
  TimeNs ts = 0;
  int64_t user_ns = 0;
  int64_t system_ns = 0;
  int32_t pid = 0;
  int32_t tid = 0;
  ThreadState state = ThreadState::kUnknown;
  int64_t io_wait_ns = 0;  // cumulative block-I/O delay; 0 when unknown
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
};

// Cumulative process counters at one instant.
struct ProcessSample {
  TimeNs ts = 0;
  int32_t pid = 0;
  uint64_t read_bytes = 0;
  uint64_t rchar = 0;
  uint64_t major_faults = 0;
  uint64_t minor_faults = 0;
  int64_t user_ns = 0;
  int64_t system_ns = 0;
  uint64_t write_bytes = 0;
  uint64_t rss_bytes = 0;
  uint32_t num_threads = 0;
  // /proc/PID/io: bytes written by write calls (wchar), and the read and
  // write system calls made (syscr, syscw). rchar is never 0 for a live
  // process (the loader reads its libraries): a sample with rchar 0 had
  // no I/O counters (the file was unreadable, or the format has none).
  uint64_t wchar = 0;
  uint64_t syscr = 0;
  uint64_t syscw = 0;
  // The part of syscr, rchar, syscw and wchar that was the recorder's own
  // calls (its /proc reads, its trace writes); 0 where not recorded.
  uint64_t profiler_syscr = 0;
  uint64_t profiler_rchar = 0;
  uint64_t profiler_syscw = 0;
  uint64_t profiler_wchar = 0;
};

// Cumulative counters of a disk under the data's file systems at one
// instant (/proc/diskstats; whole-machine figures: every process's I/O to
// that disk counts).
struct DiskSample {
  TimeNs ts = 0;
  int32_t pid = 0;      // the process whose sampler took it
  StringId device = 0;  // the disk's name: "nvme0n1", "vda"
  uint64_t reads = 0;   // reads completed
  uint64_t read_bytes = 0;
  uint64_t read_ms = 0;  // time the reads took, summed over them
  uint64_t writes = 0;   // writes completed
  uint64_t write_bytes = 0;
  uint64_t write_ms = 0;
  uint64_t busy_ms = 0;    // time with at least one request in flight
  uint32_t in_flight = 0;  // requests in flight at the instant
};

// Cumulative client statistics of a network file system mount at one
// instant (/proc/self/mountstats, NFS): its RPC operations summed over the
// kinds, and its READ operations.
struct NfsSample {
  TimeNs ts = 0;
  int32_t pid = 0;
  StringId mount_point = 0;     // "/mnt/data"
  uint64_t ops = 0;             // RPC operations sent
  uint64_t transmissions = 0;   // ops plus their retransmissions
  uint64_t major_timeouts = 0;  // operations that timed out at least once
  uint64_t rtt_ms = 0;          // round trips, summed over the operations
  uint64_t execute_ms = 0;      // queue + round trip + client, summed
  uint64_t read_ops = 0;        // READ operations
  uint64_t read_bytes = 0;      // bytes READ operations received
  uint64_t read_rtt_ms = 0;
};

// Whole-machine counters at one instant (cumulative CPU times in ns).
struct SystemSample {
  TimeNs ts = 0;
  int32_t pid = 0;  // the process whose sampler took it
  int64_t cpu_user_ns = 0;
  int64_t cpu_system_ns = 0;
  int64_t cpu_idle_ns = 0;
  int64_t cpu_iowait_ns = 0;
  int64_t cpu_other_ns = 0;  // nice, irq, softirq, steal
  uint32_t procs_running = 0;
  uint32_t procs_blocked = 0;
  uint64_t mem_available_bytes = 0;
  uint64_t mem_dirty_bytes = 0;
  uint64_t mem_writeback_bytes = 0;
  double load_1m = 0;  // /proc/loadavg; 0 when not recorded
};

// A GPU (or other) counter sample, e.g. NVML SM utilization.
struct CounterSample {
  TimeNs ts = 0;
  int32_t pid = 0;
  int32_t device = 0;
  StringId name = 0;
  double value = 0;
};

// What a frame of a stack is.
enum class FrameKind : uint8_t {
  kUnknown,
  kPython,       // a line of Python code
  kNative,       // an instruction in a native module
  kFrameworkOp,  // a framework operator (a Kineto cpu_op, e.g. aten::copy_)
};

// One frame of a stack. Python frames: file, function, line. Native frames:
// `module` the executable or library, `pc` the offset in it, `function` its
// symbol where known; `file` and `line` once symbolized (else `file` is 0,
// or the module for traces written before modules were recorded apart).
struct Frame {
  StringId file = 0;
  StringId function = 0;
  uint32_t line = 0;
  uint64_t pc = 0;  // native frames: offset in `module`; 0 when unknown
  StringId module = 0;
  FrameKind kind = FrameKind::kUnknown;
};

// A stack, innermost frame first: where a CUDA call was issued from, or
// a thread's stack at a sample. Interned in Timeline::call_sites.
struct CallSite {
  std::vector<Frame> frames;
  bool python = false;  // the frames are Python frames
};

// A native module that frames point into, as the recording saw it.
struct NativeModule {
  StringId path = 0;
  std::string build_id;  // lower-case hex of the GNU build id; empty: unknown
};

// A host thread's stack at one moment, as a sampling profiler saw it: the
// sample stands for `weight_ns` of the thread's CPU time (its sampling
// period; 0 when unknown).
struct StackSample {
  TimeNs ts = 0;
  int32_t pid = 0;
  int32_t tid = 0;
  uint32_t stack = 0;  // index into Timeline::call_sites
  TimeNs weight_ns = 0;
};

struct Thread {
  int32_t pid = 0;
  int32_t tid = 0;
  std::string name;
  bool is_main = false;
};

// What a recording library's GPU collection did in a process (feedprof
// traces record it; other formats leave it unknown).
enum class GpuCollectionState : uint8_t {
  kUnknown = 0,       // not recorded (the process never initialized CUDA)
  kFull = 1,          // activity records and callbacks
  kActivityOnly = 2,  // activity records, no call sites
  kOff = 3,           // no GPU activity recorded; see the detail
};

// What a recording library's Python stack sampling did in a process.
enum class PythonStackState : uint8_t {
  kUnknown = 0,      // not recorded, or no CPython in the process
  kOn = 1,           // stacks were sampled
  kUnsupported = 2,  // a CPython the recorder cannot read (detail says why)
  kUnreadable = 3,   // the process's memory could not be read (detail)
  kDisabled = 4,     // turned off by the user
};

struct PythonStacks {
  PythonStackState state = PythonStackState::kUnknown;
  std::string detail;
  uint32_t version_hex = 0;  // PY_VERSION_HEX
  uint64_t stacks = 0;       // stacks taken
  uint64_t torn = 0;         // dropped: changed while being read
};

struct Process {
  int32_t pid = 0;
  int32_t ppid = 0;
  int32_t rank = -1;       // -1: not a ranked run
  int32_t world_size = 0;  // ranks in the run; 0 when unknown
  int32_t local_rank = -1;
  std::string hostname;
  std::string command;  // argv joined, or the process name
  std::string origin;   // "start", "fork", "exec"; empty when unknown
  TimeNs start = 0;
  TimeNs end = 0;
  std::string trace_path;  // file it came from
  GpuCollectionState gpu_collection = GpuCollectionState::kUnknown;
  std::string gpu_collection_detail;  // the line the library printed
  PythonStacks python_stacks;
};

struct Device {
  int32_t id = 0;
  int32_t pid = 0;  // the process that reported it (-1: machine-wide)
  std::string name;
  uint32_t sm_count = 0;
  std::string pci_bus_id;
  uint64_t memory_bytes = 0;
  // PCIe link, when the trace knows it; 0 when unknown.
  double pcie_current_gts = 0;
  double pcie_max_gts = 0;
  uint32_t pcie_current_width = 0;
  uint32_t pcie_max_width = 0;
};

// How a CUDA stream orders its work against the other streams of its
// context. Numbering follows CUPTI's CUpti_ActivityStreamFlag for the first
// four (nsys's ENUM_CUPTI_STREAM_TYPE is the same).
enum class StreamKind : uint8_t {
  kUnknown = 0,
  // Created without cudaStreamNonBlocking: its work and the legacy default
  // stream's work wait for each other.
  kDefaultBlocking = 1,
  kNonBlocking = 2,  // cudaStreamNonBlocking: exempt from that ordering
  kLegacyNull = 3,   // the legacy default (NULL) stream
  // The per-thread default stream (cudaStreamPerThread): an ordinary
  // blocking stream.
  kPerThread = 4,
};

// One CUDA stream as the trace describes it. Formats without stream
// descriptions (Kineto JSON) leave Timeline::streams empty.
struct StreamInfo {
  int32_t pid = 0;
  int32_t device = -1;  // -1: unknown
  uint32_t context = 0;
  int64_t stream = -1;   // as in GpuOp::stream
  int32_t priority = 0;  // lower is higher priority (CUDA convention)
  StreamKind kind = StreamKind::kUnknown;
};

struct Platform {
  std::string cpu_model;
  uint32_t logical_cpus = 0;
  std::string frequency_governor;
  double cgroup_cpu_limit = 0;
  uint64_t memory_total_bytes = 0;
  uint32_t numa_nodes = 0;
  // True when the recording looked for NVIDIA GPUs (feedprof traces): then
  // an empty list means no NVIDIA PCI device, an empty version no driver.
  bool nvidia_probed = false;
  std::vector<std::string> nvidia_pci_bus_ids;
  std::string nvidia_driver_version;

  // What the platform checks judge (docs/doctor.md), from the recording
  // machine's snapshot when recording started. `host_facts_probed` is
  // false for formats and older traces without them; then the strings are
  // empty and the numbers 0 ("unknown").
  bool host_facts_probed = false;
  int32_t pid = 0;  // the process whose snapshot this is
  uint32_t online_cpus = 0;
  std::string online_cpu_list;       // "0-31"
  std::string process_cpu_affinity;  // cpu list
  std::string process_mems_allowed;  // node list
  std::string memory_policy;         // numa_maps spelling: "bind:1", ...
  std::string cpu_scaling_driver;
  uint64_t cpu_max_khz = 0;
  uint64_t cpu_cur_khz = 0;
  uint32_t threads_per_core = 0;
  std::string smt_control;
  uint64_t memlock_limit_bytes = 0;  // UINT64_MAX: unlimited
  uint64_t cgroup_memory_limit_bytes = 0;
  uint64_t memory_available_bytes = 0;
  uint64_t memory_dirty_bytes = 0;
  uint64_t memory_writeback_bytes = 0;
  uint64_t swap_total_bytes = 0;
  uint64_t swap_free_bytes = 0;
  std::string transparent_hugepage;
  std::string transparent_hugepage_defrag;
  bool rdma_devices = false;
  struct NumaNode {
    uint32_t id = 0;
    std::string cpus;
  };
  std::vector<NumaNode> numa_node_cpus;
  // NVIDIA PCI functions (GPUs, their audio functions, NVSwitches).
  struct PciFunction {
    std::string bus_id;
    uint32_t class_code = 0;
    int32_t numa_node = -1;
    std::string local_cpus;
    double current_link_gts = 0;  // 0 when unknown
    double max_link_gts = 0;
    uint32_t current_link_width = 0;
    uint32_t max_link_width = 0;
  };
  std::vector<PciFunction> pci_functions;
  struct Mount {
    std::string path;  // "." for the working directory, else the argument
    std::string mount_point;
    std::string fs_type;
    std::string source;
    std::string options;
    std::string block_device;
    int32_t rotational = -1;  // -1 unknown, 0 solid state, 1 rotational
    std::string scheduler;
  };
  std::optional<Mount> working_directory_mount;
  std::vector<Mount> data_mounts;
  // NVML's static facts of each GPU, read when a process's NVML sampler
  // started (feedprof traces): limits, maximum clocks, modes and ECC error
  // counts. `device` numbers the GPU as that process's NVML counter samples
  // do; `pci_bus_id` is NVML's spelling ("00000000:3B:00.0"). What NVML did
  // not report is empty.
  struct NvmlDevice {
    int32_t pid = 0;
    int32_t device = 0;
    std::string pci_bus_id;
    std::string name;
    std::optional<uint32_t> power_limit_mw;  // the management limit
    std::optional<uint32_t> default_power_limit_mw;
    std::optional<uint32_t> enforced_power_limit_mw;
    std::optional<uint32_t> max_sm_clock_mhz;
    std::optional<uint32_t> max_mem_clock_mhz;
    std::optional<uint32_t> slowdown_temperature_c;
    std::optional<bool> persistence_mode;
    std::optional<bool> ecc_enabled;
    std::optional<uint64_t> ecc_volatile_corrected;
    std::optional<uint64_t> ecc_volatile_uncorrected;
    std::optional<uint64_t> ecc_aggregate_corrected;
    std::optional<uint64_t> ecc_aggregate_uncorrected;
    std::optional<bool> row_remap_pending;
    std::optional<bool> row_remap_failure;
  };
  std::vector<NvmlDevice> nvml_devices;
};

struct DropCounts {
  uint64_t events_dropped = 0;
  uint64_t cupti_records_dropped = 0;
  uint64_t zero_timestamp_records = 0;
  uint64_t samples_dropped = 0;
  uint64_t cupti_buffers_dropped = 0;
  uint64_t strings_dropped = 0;
  uint64_t events_recorded = 0;
  uint64_t packets_dropped = 0;  // whole packets the writer had no room for
};

// What the source format could and could not tell.
struct Availability {
  bool api_calls = false;
  bool correlation = false;
  bool sync_records = false;
  bool host_samples = false;  // per-thread CPU time and state
  bool system_samples = false;
  // Per-process I/O counters (/proc/PID/io: rchar, syscr, read_bytes).
  bool process_io = false;
  bool call_sites = false;
  bool gpu_counters = false;
  bool ranges = false;
};

enum class SourceFormat : uint8_t { kUnknown, kFeedprof, kKineto, kNsight };
// "feedprof", "kineto", "nsight" or "unknown": the name reports write.
const char* SourceFormatName(SourceFormat format);

struct Timeline {
  SourceFormat format = SourceFormat::kUnknown;
  std::string source_path;
  // The epoch time, in ns, that the times count from: a Kineto trace's
  // baseTimeNanoseconds, where its `ts` are a host clock's time since then
  // (newer PyTorch); 0 where the times are epoch times already or the
  // format does not say. A rank directory puts every file's times on its
  // first file's base.
  TimeNs time_base_ns = 0;

  StringTable strings;
  LaunchShapeTable launch_shapes;
  std::vector<Process> processes;
  std::vector<Thread> threads;
  std::vector<Device> devices;
  std::vector<GpuOp> gpu_ops;
  std::vector<ApiCall> api_calls;
  std::vector<SyncRecord> syncs;
  std::vector<Range> ranges;
  std::vector<Mark> marks;
  std::vector<ThreadSample> thread_samples;
  std::vector<ProcessSample> process_samples;
  std::vector<SystemSample> system_samples;
  std::vector<DiskSample> disk_samples;
  std::vector<NfsSample> nfs_samples;
  std::vector<CounterSample> counters;
  std::vector<CallSite> call_sites;  // index 0 is the empty call site
  std::vector<NativeModule> native_modules;
  std::vector<StackSample> stack_samples;  // by time
  std::vector<NvtxCategoryName> nvtx_categories;
  std::vector<StreamInfo> streams;  // one per (pid, context, stream)
  Platform platform;
  DropCounts drops;
  Availability available;

  // Things the reader noticed and salvaged around ("file truncated after
  // packet 1234; analysed what was read"). Shown in every report.
  std::vector<std::string> warnings;
  // Whether one of `warnings` already says that a trace file holds no GPU
  // activity (a Kineto or Nsight file without kernels, copies or memsets):
  // the analysis then adds no second warning of its own.
  bool warned_no_gpu_activity = false;

  Timeline() { call_sites.emplace_back(); }

  const LaunchShape& LaunchOf(const GpuOp& op) const {
    return launch_shapes.Get(op.launch);
  }
};

}  // namespace feedprof

#endif  // FEEDPROF_TIMELINE_H_
