// The report model of an analysis, the options that choose what is
// analysed, and the queries over a timeline that need no replay.
//
// Every number here is defined in docs/metrics.md; the verdict rules are in
// docs/verdict-rules.md. The analyzer never looks at which format a timeline
// came from: what the source could not tell (`Timeline::available`) is
// carried into the report as "not available" flags so writers print that
// instead of zero. The report model is plain data so the text and JSON
// writers (feedprof/report.h), the HTML report and `feedprof diff` can all
// render or compare it. Analyze() (feedprof/analysis.h) fills it.
#ifndef FEEDPROF_ANALYSIS_REPORT_H_
#define FEEDPROF_ANALYSIS_REPORT_H_

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "feedprof/platform.h"
#include "feedprof/timeline.h"

namespace feedprof {

// Parameters of the what-if replay (docs/what-if.md).
struct WhatIfOptions {
  bool enabled = true;
  // faster_gpu: every kernel this fraction shorter (0.2: 20 % faster).
  double gpu_speedup = 0.2;
  // cheaper_launches: each kernel launch call costs this much (unset: the
  // documented CUDA-graph figure), or this fraction of its recorded time
  // (when set, it wins).
  std::optional<TimeNs> launch_cost_ns;
  std::optional<double> launch_cost_fraction;
  // remove_sync: the host-blocking sync point groups replayed, longest
  // blocked first.
  size_t max_sync_groups = 5;
  // The memory the replay may use, in bytes; unset: what this machine has
  // available now (MemAvailable, and the room left under the cgroup memory
  // limit when there is one). A replay whose estimated peak does not fit
  // (docs/what-if.md) is not run; the what-if says so.
  std::optional<uint64_t> available_memory_bytes;
};

// The phases of Analyze, in the order it enters them, for a progress
// display (AnalysisOptions::on_phase).
enum class AnalysisPhase : uint8_t {
  kPreparing,     // the timeline's views per device and per thread
  kStepsAndGaps,  // steps, busy time, idle gaps and their causes, launches,
                  // syncs, copies, host, ranks, the verdict
  kWhatIf,        // the what-if replay
};
// "preparing", "steps and gaps", "what-if replay".
const char* AnalysisPhaseName(AnalysisPhase phase);

// What to analyse. Times in `from`/`to` are relative to the trace start
// (the earliest GPU op, API call or host range of the selected processes).
// Overrides of which code is the user's (docs/metrics.md, "Call sites"):
// a Python file or native module whose path contains one of `not_user`
// is not the user's code, else one that contains one of `user` is, else
// the built-in rule decides (the standard library, the frameworks and the
// system's libraries are not).
struct UserCodeRule {
  std::vector<std::string> user;      // e.g. "/site-packages/mylib/"
  std::vector<std::string> not_user;  // e.g. "transformers/"
};

struct AnalysisOptions {
  std::optional<TimeNs> from;   // inclusive; unset: trace start
  std::optional<TimeNs> to;     // inclusive; unset: trace end
  std::optional<int32_t> rank;  // restrict to the processes of one rank
  std::string step_range_name;  // user-named step range (exact or prefix)
  // Keep GPU work whose correlation id matches no API call (launched before
  // recording began). Excluded by default, as TraceLens does.
  bool include_pre_window = false;
  WhatIfOptions what_if;
  UserCodeRule user_code;
  // Called when Analyze enters a phase, with the number of events of the
  // timeline (Report::events): kPreparing first, kStepsAndGaps once the
  // timeline is prepared, kWhatIf when the what-if is enabled and the window
  // has GPU activity. Called on the thread that called Analyze, never from two
  // threads at once; unset: nothing is called. feedprof/analysis_progress.h
  // shows it on the terminal.
  std::function<void(AnalysisPhase phase, uint64_t events)> on_phase;
};

// Gap histogram buckets: ≤10 µs, ≤100 µs, ≤1 ms, ≤10 ms, >10 ms.
inline constexpr int kGapBuckets = 5;
inline constexpr std::array<TimeNs, kGapBuckets - 1> kGapBucketUpperNs = {
    10'000, 100'000, 1'000'000, 10'000'000};
const char* GapBucketLabel(int bucket);  // "le_10us", ..., "gt_10ms"
int GapBucketOf(TimeNs gap_ns);

// Causes of device idle time (docs/metrics.md). The first six split "host wait"
// by what the launching thread did before issuing the work that ended the gap.
enum class IdleCause : uint8_t {
  kHostWaitSync,        // blocked in a synchronizing CUDA call
  kHostWaitCudaApi,     // inside other CUDA API calls
  kHostWaitOnCpu,       // running user/framework code
  kHostWaitOffCpuIo,    // off-CPU in I/O (D-state)
  kHostWaitOffCpuWait,  // off-CPU waiting on other threads/processes
  kHostWaitUnknown,     // no host samples cover the interval
  kLaunchOverhead,      // launch call in flight while the GPU waited
  kQueueLatency,        // work was submitted before the GPU went idle
  kUnattributed,        // the work that ended the gap has no API call
};
inline constexpr int kIdleCauses = 9;
const char* IdleCauseName(IdleCause cause);  // "host_wait_sync", ...

struct IdleByCause {
  std::array<TimeNs, kIdleCauses> ns{};
  TimeNs& operator[](IdleCause c) { return ns[static_cast<int>(c)]; }
  TimeNs operator[](IdleCause c) const { return ns[static_cast<int>(c)]; }
  IdleByCause& operator+=(const IdleByCause& other) {
    for (size_t c = 0; c < ns.size(); ++c) ns[c] += other.ns[c];
    return *this;
  }
  TimeNs HostWait() const;
  TimeNs Total() const;
};

struct GapStats {
  uint64_t count = 0;
  std::array<uint64_t, kGapBuckets> histogram{};
  std::array<TimeNs, kGapBuckets> histogram_ns{};  // idle time per bucket
  // Idle by cause per bucket; the verdict tells short launch gaps from long
  // waits for data with it.
  std::array<IdleByCause, kGapBuckets> by_bucket{};
  // Idle of gaps in which the launching thread had been blocked in a sync
  // call (the gap follows a queue drain), in total and per bucket.
  IdleByCause after_sync{};
  std::array<IdleByCause, kGapBuckets> after_sync_by_bucket{};
};

// HTA-compatible per-stream idle breakdown (HTA's "idle time" analysis).
struct StreamIdle {
  int64_t stream = -1;
  TimeNs busy_ns = 0;  // sum of op durations on the stream
  TimeNs host_wait_ns = 0;
  TimeNs kernel_wait_ns = 0;
  TimeNs other_ns = 0;
};

struct ExcludedOps {
  uint64_t count = 0;
  TimeNs busy_ns = 0;  // union length of the excluded ops alone
};

struct DeviceReport {
  int32_t device = 0;
  int32_t pid = 0;
  std::string name;
  TimeNs span_start = 0;  // absolute trace time
  TimeNs span_end = 0;
  TimeNs span_ns = 0;
  TimeNs busy_ns = 0;
  TimeNs idle_ns = 0;
  double idle_share = 0;
  TimeNs compute_ns = 0;            // union of kernels
  TimeNs memcpy_ns = 0;             // union of copies
  TimeNs memset_ns = 0;             // union of memsets
  TimeNs exposed_memcpy_ns = 0;     // copy time not overlapped by kernels
  TimeNs small_grid_kernel_ns = 0;  // kernels with fewer blocks than SMs
  // Communication kernels (NCCL, RCCL, MSCCL, NVSHMEM), part of
  // compute_ns: their union, and the part of it no other kernel overlaps
  // (exposed; the rest is overlapped by compute).
  TimeNs communication_ns = 0;
  TimeNs exposed_communication_ns = 0;
  uint64_t communication_kernel_count = 0;
  uint64_t kernel_count = 0;
  uint64_t memcpy_count = 0;
  uint64_t memset_count = 0;
  GapStats gaps;
  IdleByCause idle_by_cause;
  double launch_overhead_share = 0;
  ExcludedOps excluded_ops;
  std::vector<StreamIdle> streams;
};

// A kernel name's share of GPU time, for "start with this kernel".
struct KernelTotal {
  std::string name;
  uint64_t count = 0;
  TimeNs total_ns = 0;  // sum of its durations
};

// The launch calls issued from one code location (the call site as sync
// points print it: the innermost user frame of a Python stack).
struct LaunchSite {
  std::string location;
  uint64_t count = 0;
  TimeNs api_ns = 0;  // the calls' time
};
inline constexpr size_t kLaunchSiteRows = 5;

// Kernel launches (docs/metrics.md): a runtime launch and the driver launch
// inside it count once; a graph launch counts once for all its kernels.
struct LaunchStats {
  uint64_t count = 0;  // kernel launch calls (incl. graph launches)
  uint64_t kernels = 0;
  uint64_t graph_launches = 0;  // cudaGraphLaunch calls among `count`
  uint64_t graph_kernels = 0;   // kernels those graph launches ran
  TimeNs median_api_ns = 0;     // kernel launch calls, graphs apart
  TimeNs median_graph_launch_api_ns = 0;
  TimeNs median_kernel_ns = 0;
  // Kernels shorter than their own launch call, over kernels with one.
  double share_kernels_shorter_than_launch = 0;
  // Launch delay: launch call start → kernel start (HTA "launch delay"),
  // over kernels that are the first op of their launch call (the
  // `launch_delays` kernels; the figures are unknown when there are none).
  uint64_t launch_delays = 0;
  TimeNs median_launch_delay_ns = 0;
  TimeNs p90_launch_delay_ns = 0;
  TimeNs max_launch_delay_ns = 0;
  std::string max_launch_delay_kernel;
  std::vector<KernelTotal> top_kernels;  // by total time, at most 5
  // Where the launch calls came from, most calls first
  // (kLaunchSiteRows at most); empty when the trace gives no call sites.
  std::vector<LaunchSite> sites;
};

enum class SyncKind : uint8_t { kExplicit, kHidden };
const char* SyncKindName(SyncKind kind);  // "explicit" | "hidden"

struct SyncPoint {
  std::string api;
  SyncKind kind = SyncKind::kExplicit;
  std::string reason;
  std::string call_site;  // as printed (docs/report-json.md), "" if unknown
  // The whole stack of the group's first call, innermost frame first, each
  // frame printed as call sites are; empty when unknown.
  std::vector<std::string> call_stack;
  uint64_t count = 0;
  TimeNs blocked_ns = 0;
  double wall_share = 0;
  TimeNs idle_after_ns = 0;
  // False for device-side serialization (work on the legacy default
  // stream): the host did not wait; blocked_ns is how long the GPU work
  // was held back by other streams.
  bool blocks_host = true;
};

// The host-blocking sync point group that blocked longest (the first in
// the report's order), or null when there is none.
const SyncPoint* TopHostSyncPoint(const std::vector<SyncPoint>& points);

// The directions copies are grouped by, in the report's order.
enum class CopyDirection : uint8_t { kHtoD, kDtoH, kDtoD, kPtoP, kOther };
// "HtoD", "DtoH", "DtoD", "PtoP", "other".
const char* CopyDirectionName(CopyDirection direction);
// Whether copies of `direction` cross the host's link (HtoD, DtoH).
inline bool CrossesHostLink(CopyDirection direction) {
  return direction == CopyDirection::kHtoD || direction == CopyDirection::kDtoH;
}

struct CopyDirectionStats {
  CopyDirection direction = CopyDirection::kOther;
  uint64_t count = 0;
  uint64_t bytes = 0;
  TimeNs time_ns = 0;
  double achieved_gbps = 0;   // bytes / time (10^9 bytes/s)
  double pageable_share = 0;  // bytes from/to pageable host memory
  // Achieved / link theoretical; only for HtoD and DtoH, with a known link.
  std::optional<double> link_share;
};

struct CopyReport {
  uint64_t count = 0;
  uint64_t bytes = 0;
  TimeNs time_ns = 0;
  double pageable_share = 0;
  std::vector<CopyDirectionStats> directions;
  bool link_known = false;
  double link_gen = 0;  // PCIe generation
  uint32_t link_width = 0;
  double link_theoretical_gbps = 0;  // per direction
};

struct ThreadReport {
  int32_t pid = 0;
  int32_t tid = 0;
  std::string name;
  bool samples = false;  // false: CPU and state not available
  TimeNs cpu_user_ns = 0;
  TimeNs cpu_system_ns = 0;
  double cpu_share = 0;  // (user + sys) / wall
  double running_share = 0;
  double sleeping_share = 0;
  double disk_wait_share = 0;
  TimeNs cuda_api_ns = 0;
  TimeNs sync_blocked_ns = 0;
  uint64_t api_calls = 0;
};

struct WorkerProcess {
  int32_t pid = 0;
  int32_t ppid = 0;
  std::string command;
  bool samples = false;
  TimeNs cpu_user_ns = 0;
  TimeNs cpu_system_ns = 0;
};

struct HostReport {
  bool samples_available = false;
  TimeNs cuda_api_ns = 0;
  TimeNs sync_blocked_ns = 0;
  double sync_blocked_share = 0;      // of wall
  std::vector<ThreadReport> threads;  // by CUDA API time, then CPU
  TimeNs program_cpu_ns = 0;          // user + sys of `threads`
  // The profiler's own threads (names "feedprof-..."): overhead, not the
  // program; kept out of every other host figure.
  std::vector<ThreadReport> profiler_threads;
  TimeNs profiler_cpu_ns = 0;
  // profiler_cpu_ns over the analysed window's length: the share of one
  // core the profiler used.
  double profiler_core_share = 0;
  std::vector<WorkerProcess> workers;
  TimeNs workers_cpu_ns = 0;
  // Time inside DataLoader ranges ("enumerate(DataLoader)#..."), summed;
  // evidence for input-pipeline waits when there are no CPU samples.
  TimeNs dataloader_ns = 0;
  uint64_t dataloader_ranges = 0;
};

// Who made a group of reads: the program's own processes (the one that
// was started, exec'd ranks), or the worker processes they forked
// (DataLoader and multiprocessing workers).
enum class IoRole : uint8_t { kMain, kWorkers };
const char* IoRoleName(IoRole role);  // "main", "workers"

// The reads and writes one role's processes made over the analysed window,
// from each process's /proc/PID/io counters (docs/metrics.md, "Input
// reads"): read calls and the bytes they returned, and the bytes the
// kernel fetched from storage for them rather than the page cache.
struct RoleIo {
  IoRole role = IoRole::kMain;
  uint32_t processes = 0;            // with I/O counters in the window
  TimeNs duration_ns = 0;            // the longest of their sampled spans
  uint64_t reads = 0;                // read system calls (syscr)
  uint64_t read_chars = 0;           // bytes those calls returned (rchar)
  uint64_t storage_read_bytes = 0;   // fetched from storage (read_bytes)
  uint64_t writes = 0;               // write system calls (syscw)
  uint64_t write_chars = 0;          // bytes written by them (wchar)
  uint64_t storage_write_bytes = 0;  // sent towards storage (write_bytes)
  double reads_per_s = 0;
  double mean_read_bytes = 0;  // read_chars / reads; 0 without reads
  // storage_read_bytes / read_chars, at most 1; 0 without reads.
  double storage_share = 0;
  // More bytes came from storage than read calls returned: the data is
  // read through memory maps (np.memmap, LMDB), whose page faults read
  // storage without a read call.
  bool mapped_reads = false;
  // Over the steps' span, per step; unset without steps.
  std::optional<double> reads_per_step;
  std::optional<double> read_bytes_per_step;
};

// A disk under the data's file systems over the analysed window, from
// /proc/diskstats: iostat's figures. Whole-disk counters: every process's
// I/O to it counts, the program's and others'.
struct DiskIo {
  std::string device;       // "nvme0n1"
  std::string mount_point;  // the data mount on it ("/", "/data")
  TimeNs duration_ns = 0;
  uint64_t reads = 0;
  uint64_t read_bytes = 0;
  uint64_t writes = 0;
  uint64_t write_bytes = 0;
  double reads_per_s = 0;
  double mean_read_bytes = 0;  // 0 without reads
  // Time reading / reads (iostat's r_await): queue and service time of
  // an average read. Unset without reads.
  std::optional<double> read_await_ms;
  double utilization = 0;  // busy time / duration (iostat's %util)
  uint32_t max_in_flight = 0;
};

// A network file system's client statistics over the analysed window
// (/proc/self/mountstats, NFS).
struct NetworkFsIo {
  std::string mount_point;
  std::string fs_type;  // "nfs4"
  std::string source;   // "server:/export"
  uint64_t ops = 0;     // RPC operations
  uint64_t retransmissions = 0;
  uint64_t major_timeouts = 0;
  std::optional<double> mean_rtt_ms;  // unset without operations
  std::optional<double> mean_execute_ms;
  uint64_t read_ops = 0;
  uint64_t read_bytes = 0;
};

// What the reads looked like, which decides the I/O fix to lead with
// (docs/verdict-rules.md, "I/O evidence").
enum class IoPattern : uint8_t {
  kUnknown,     // no counters, or too few reads to say
  kNetworkFs,   // the data is on a network or user-space file system
  kSmallReads,  // small reads served by storage: shards
  kLargeReads,  // large reads served by storage: a faster device, a cache
  kPageCache,   // reads served by the page cache: storage is not the wait
};
const char* IoPatternName(IoPattern pattern);  // "small_reads", ...

struct IoReport {
  // Per-process I/O counters in the trace; without them the rest is empty
  // and `unavailable_reason` says why (once, for the whole section).
  bool available = false;
  std::string unavailable_reason;
  std::vector<RoleIo> roles;  // main first; roles without processes left out
  std::vector<DiskIo> disks;
  // Why `disks` is empty, when it is.
  std::string disks_unavailable_reason;
  std::vector<NetworkFsIo> network_fs;
  uint64_t steps = 0;  // the steps the per-step figures divide by
  // A process's samples did not count the recorder's own calls (a trace
  // from before they were counted): its figures include the sampler's
  // /proc reads (hundreds a second) and the trace's writes.
  bool includes_profiler_io = false;
  IoPattern pattern = IoPattern::kUnknown;
  // The role whose reads decide the pattern (the one that read the most
  // bytes from storage); unset with no reads.
  std::optional<IoRole> reading_role;

  // The figures of `role`; nullptr when it made no reads in the window.
  const RoleIo* Role(IoRole role) const;
};

struct StepInfo {
  TimeNs start = 0;
  TimeNs end = 0;
  TimeNs gpu_busy_ns = 0;
  int32_t pid = 0;
  // The thread of the first range with the step's pid and times (the
  // what-if replays the step on it); -1 when unknown.
  int32_t tid = -1;
  std::string name;
  // What the step's devices did in it (summed over the devices its busy
  // time counts): kernels (union), copies and memsets no kernel overlaps
  // (gpu_busy_ns - compute_ns), and idle by cause; busy + idle is the step's
  // length on one device that was active for the whole step.
  TimeNs compute_ns = 0;
  TimeNs copy_ns = 0;
  IdleByCause idle_by_cause;
};

struct StepReport {
  bool available = false;
  std::string source;  // "ProfilerStep", "nvtx:train_step", "user:NAME"
  uint64_t count = 0;
  TimeNs median_ns = 0;
  TimeNs p90_ns = 0;
  double median_gpu_busy_share = 0;
  std::vector<StepInfo> steps;
};

// Which feeding of the GPU limits a run (docs/verdict-rules.md): the rules'
// classes, in the order the report lists their scores, and inconclusive.
enum class VerdictClass : uint8_t {
  kInconclusive,  // no rule triggered, or no GPU activity
  kLaunchBound,
  kPreprocessingBound,
  kIoBound,
  kSyncBound,
  kTransferBound,
  kLatencyBound,
  kGpuBound,
};
// "inconclusive", "launch_bound", "preprocessing_bound", "io_bound",
// "sync_bound", "transfer_bound", "latency_bound", "gpu_bound".
const char* VerdictClassName(VerdictClass verdict);
// The same for a runner-up: "" when there is none.
const char* VerdictClassName(const std::optional<VerdictClass>& verdict);

struct RankReport {
  int32_t rank = -1;
  std::vector<int32_t> pids;
  TimeNs span_ns = 0;
  TimeNs busy_ns = 0;
  double idle_share = 0;
  TimeNs median_step_ns = 0;  // 0 when no steps
  TimeNs sync_blocked_ns = 0;
  // Its devices' communication kernels (DeviceReport): union, and the part
  // no other kernel overlaps.
  TimeNs communication_ns = 0;
  TimeNs exposed_communication_ns = 0;
  // Longest median step (or, without steps, the most GPU busy time): in a
  // run that waits at collectives this is often a rank that waited, not
  // the one waited for (`straggler`).
  bool slowest = false;
  // From the collectives matched across ranks (Report::collectives; zero
  // when there are none): the collectives it took part in, the time it
  // waited inside them for later ranks, how many it arrived last at, and
  // the time the other ranks waited there for it (summed over them).
  uint64_t collectives = 0;
  TimeNs collective_wait_ns = 0;
  uint64_t arrived_last = 0;
  TimeNs caused_wait_ns = 0;
  // Its clock as moved to line its collectives' ends up with the first
  // rank's (0: not moved).
  TimeNs clock_offset_ns = 0;
  bool straggler = false;  // one of Report::straggler's ranks
  // Its own verdict: the analysis of this rank alone; unset when the ranks
  // were not analysed apart (a single rank, or --rank).
  std::optional<VerdictClass> verdict;
};

// The operation a communication kernel performs, told by its name
// ("ncclDevKernel_AllReduce_Sum_f32_RING_LL" is an all-reduce).
enum class CollectiveOp : uint8_t {
  kOther,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kSendRecv,  // point-to-point, and NCCL's all-to-all (grouped send/recv)
  kBroadcast,
  kReduce,
};
// "collective", "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
// "send_recv", "broadcast", "reduce".
const char* CollectiveOpName(CollectiveOp op);

// Communication kernels matched across ranks (docs/metrics.md,
// "Collectives across ranks"): the k-th of an operation on a rank's n-th
// communication stream is one collective on every rank that has it.
struct CollectivesReport {
  bool available = false;  // two or more ranks ran communication kernels
  uint32_t ranks = 0;      // ranks with communication kernels
  uint64_t matched = 0;    // collectives seen on two or more ranks
  // Of them, those whose ends did not line up across ranks (another
  // communicator, or a collective missing on some rank shifted the
  // matching): left out of the waits.
  uint64_t unaligned = 0;
  uint64_t unmatched = 0;  // communication kernels found on one rank only
  // False when most matched collectives' ends do not line up even after
  // moving each rank's clock: the waits are then not computed.
  bool clocks_aligned = true;
  TimeNs median_end_spread_ns = 0;  // latest end - earliest, per collective
  TimeNs wait_ns = 0;               // every rank's collective_wait_ns
  double wait_share = 0;            // wait_ns / every rank's span
};

// Who the ranks wait for (Report::straggler).
enum class StragglerKind : uint8_t {
  kNone,      // no rank keeps the others waiting for long
  kSingle,    // one rank causes most of the waiting
  kFew,       // two or three ranks do
  kRotating,  // the last rank changes; no few ranks cause most of it
};
const char* StragglerKindName(StragglerKind kind);  // "none", "single", ...

// The rank that kept the others waiting most in one step.
struct StepStraggler {
  uint64_t step = 0;   // 1-based, as the report lists steps
  int32_t rank = -1;   // -1: the processes have no ranks
  int32_t pid = 0;     // its (first) process
  TimeNs wait_ns = 0;  // the other ranks' mean wait for it in the step
  // How long after the median of the other ranks' its first GPU work in
  // the step started (0 when not later, or when not every rank has it).
  TimeNs late_start_ns = 0;
};

// The rank(s) every other rank waits for at collectives, and why they are
// late (docs/metrics.md, "The rank waited for").
struct Straggler {
  StragglerKind kind = StragglerKind::kNone;
  // Most caused wait first: their ranks (empty where the processes have no
  // ranks: each process is then compared as a rank), and each one's first
  // process.
  std::vector<int32_t> ranks;
  std::vector<int32_t> pids;
  uint64_t collectives = 0;   // matched, aligned collectives counted
  uint64_t arrived_last = 0;  // of them, those one of `ranks` was last at
  // The others' waiting for them: summed over the waiting ranks, and each
  // waiting rank's mean per step (0 without steps).
  TimeNs caused_wait_ns = 0;
  TimeNs wait_per_step_ns = 0;
  // Median, over their late arrivals, of how much after the other ranks'
  // median arrival they arrived.
  TimeNs late_by_ns = 0;
  TimeNs late_start_ns = 0;  // median of the steps' late_start_ns
  CollectiveOp main_op = CollectiveOp::kOther;  // where most waiting was
  // Why: what they did before their late arrivals beyond what the other
  // ranks did before the same collectives, summed over the arrivals — more
  // GPU work, or GPU idle by cause — and the class that explains most.
  TimeNs extra_busy_ns = 0;
  IdleByCause extra_idle;
  VerdictClass cause = VerdictClass::kInconclusive;
  // Where their launching code was while their GPU waited (the first rank's
  // top idle location), "" when the trace does not say.
  std::string location;
  std::string explanation;  // the finding, in a few sentences
  // What the first rank's own analysis advises (unpriced).
  std::vector<std::string> next_steps;
  std::vector<StepStraggler> steps;  // steps with a late rank, in order
};

// One rule's outcome; all rules are kept so the report can show why the
// runner-up lost.
struct RuleScore {
  VerdictClass verdict = VerdictClass::kInconclusive;
  double score = 0;  // share of the span this cause explains
  double threshold = 0;
  bool triggered = false;
};

// The what-if replay (docs/what-if.md): the run rebuilt from its timeline
// as host threads issuing GPU work, replayed with one change at a time, so
// each next step carries what it is worth. Predictions are estimates under
// the stated assumptions, never measurements.
//
// One process (rank) as replayed: its step times (or span) as recorded and
// as predicted.
struct WhatIfRank {
  int32_t pid = 0;
  int32_t rank = -1;
  TimeNs observed_median_ns = 0;
  TimeNs observed_mean_ns = 0;
  // Replayed alone: its collectives keep their recorded lengths, waits for
  // the other ranks included.
  TimeNs predicted_median_ns = 0;
  TimeNs predicted_mean_ns = 0;
  // With the ranks coupled (WhatIf::coupled_ranks): the time per step (or
  // over the span) it waited inside collectives for later ranks, which
  // the job's figure takes out of its prediction.
  TimeNs collective_wait_ns = 0;
};

// The what-if scenarios (docs/what-if.md, "Scenarios"); the replay's table
// of them (replay/scenario_table.h) gives each its title, assumption and
// edit.
enum class WhatIfScenarioId : uint8_t {
  kInputReady,
  kCheaperLaunches,
  kRemoveSync,
  kRemoveAllSyncs,
  kPinCopies,
  kFasterGpu,
};
// "input_ready", "cheaper_launches", "remove_sync", "remove_all_syncs",
// "pin_copies", "faster_gpu": the ids JSON and HTML reports carry.
const char* WhatIfScenarioName(WhatIfScenarioId id);

// What a what-if's figures are of: step times, or the span of a run
// without steps.
enum class WhatIfBasis : uint8_t { kSteps, kSpan };
const char* WhatIfBasisName(WhatIfBasis basis);  // "steps", "span"

struct WhatIfScenario {
  WhatIfScenarioId id = WhatIfScenarioId::kInputReady;
  std::string title;       // one line, e.g. "next batch always ready"
  std::string assumption;  // what the edit assumes, with its figures
  // remove_sync: the sync point group removed (as in Report::sync_points).
  std::string sync_api;
  std::string sync_reason;
  std::string sync_call_site;
  uint64_t edits = 0;  // calls or ops the edit changed; 0: nothing to change
  // The run: the slowest rank's median (and mean) step time, or span; with
  // the ranks coupled, the job's (WhatIf::coupled_ranks).
  TimeNs predicted_median_ns = 0;
  TimeNs predicted_mean_ns = 0;
  TimeNs saving_ns = 0;           // observed median - predicted median
  double saving_share = 0;        // saving_ns / observed median
  std::vector<WhatIfRank> ranks;  // one per process when there are several
};

struct WhatIf {
  bool available = false;
  std::string unavailable_reason;  // set when not available
  WhatIfBasis basis = WhatIfBasis::kSteps;
  uint64_t steps = 0;  // steps replayed (basis kSteps)
  // The ranks wait for each other at collectives (Report::collectives):
  // a scenario's figure is the job's — each rank's replayed time less its
  // waits, the slowest of those — so a change on the rank the others wait
  // for shortens every rank's step (docs/what-if.md, "Ranks coupled at
  // collectives"). False: the slowest process's replay.
  bool coupled_ranks = false;
  // The run as recorded, and as the unedited replay reproduces it.
  TimeNs observed_median_ns = 0;
  TimeNs observed_mean_ns = 0;
  TimeNs replayed_median_ns = 0;
  // Self-check: the largest |replayed - observed| / observed over the
  // steps (or spans) of every replayed process; above 2 % the what-if is
  // not available.
  double self_check_error = 0;
  // Parameters as applied.
  double gpu_speedup = 0;
  TimeNs launch_cost_ns = 0;        // 0 when a fraction was given
  double launch_cost_fraction = 0;  // 0 when a cost was given
  std::string launch_cost_source;
  double pinned_htod_gbps = 0;  // pin_copies bandwidth per direction
  double pinned_dtoh_gbps = 0;
  std::string pinned_source;
  // The device launch queue (docs/what-if.md, "Hosts paced by the GPU"):
  // its depth in ops where enqueueing calls found it full, the deepest of
  // the replayed processes; 0 when none did, so the trace cannot tell.
  // Those calls (queue_held_calls of enqueueing_calls) wait in the replay
  // for the GPU to free a slot instead of keeping their recorded time.
  uint32_t launch_queue_depth = 0;
  uint32_t most_outstanding_ops = 0;  // at an enqueueing call's start
  uint64_t enqueueing_calls = 0;
  uint64_t queue_held_calls = 0;
  // Host time the replayed threads spent producing their input themselves
  // (DataLoader operators run inline, annotations named for loading input,
  // data-loading code), which input_ready cuts wherever the GPU was
  // (docs/what-if.md, "Input produced inline").
  TimeNs input_production_ns = 0;
  std::vector<WhatIfScenario> scenarios;  // by saving_ns, descending
};

// A next step's price: what the what-if scenario it stands for saves.
struct NextStepEstimate {
  size_t step = 0;  // index into Verdict::next_steps
  WhatIfScenarioId scenario = WhatIfScenarioId::kInputReady;
  std::string sync_api;  // remove_sync: the group, as in the scenario
  std::string sync_call_site;
  TimeNs saving_ns = 0;
  double saving_share = 0;
  // Set when the replay finds no saving (under 0.1 % of the step): why,
  // e.g. "the GPU is busy through this wait, ..."; the step's text ends
  // with it instead of a price.
  std::string no_saving_reason;
};

// What a verdict was decided on: the whole run's measurements, or (in a
// multi-rank run that waits at collectives) the cause of the rank the
// others wait for.
enum class VerdictBasis : uint8_t { kRun, kLateRank };
const char* VerdictBasisName(VerdictBasis basis);  // "run", "late_rank"

struct Verdict {
  VerdictClass primary = VerdictClass::kInconclusive;
  VerdictBasis basis = VerdictBasis::kRun;
  std::optional<VerdictClass> runner_up;  // unset when none
  double confidence = 0;                  // 0..1
  std::string confidence_label = "low";   // low | medium | high
  std::vector<std::string> evidence;
  // Next steps; those a what-if scenario prices come first, by saving,
  // and their text ends with the estimate.
  std::vector<std::string> next_steps;
  std::vector<NextStepEstimate> next_step_estimates;  // by step index
  std::vector<RuleScore> scores;
};

struct Window {
  TimeNs trace_start = 0;  // absolute
  TimeNs trace_end = 0;
  TimeNs start = 0;  // absolute, after --from/--to
  TimeNs end = 0;
  bool restricted = false;
};

// Why a report has no GPU activity, from what the trace says about the
// recording machine and the recording library's GPU collection.
// Why a window has no GPU activity (analysis/no_gpu_activity.cc).
enum class NoGpuCause : uint8_t {
  kUnknown,
  kNoGpuOnMachine,  // no NVIDIA GPU or driver where it was recorded
  kNoDriver,        // a GPU, but no driver loaded
  kCollectionOff,   // CUPTI was off (another tool, another CUDA major)
  kCudaNotUsed,     // the program never initialised CUDA
  kNoGpuWork,       // CUDA was used, but no kernel, copy or memset ran
  kOutsideWindow,   // GPU work, but not in --from/--to
  kPreWindowOnly,   // only work launched before recording began
};
// "unknown", "no_gpu_on_machine", "no_driver", "collection_off",
// "cuda_not_used", "no_gpu_work", "outside_window", "pre_window_only".
const char* NoGpuCauseName(NoGpuCause cause);

struct NoGpuActivity {
  NoGpuCause cause = NoGpuCause::kUnknown;
  std::string explanation;  // one or two sentences, for the evidence
  std::string recorded;     // what the trace does hold
  std::string next_step;
};

// The run at a glance, for plots: the analysed window cut into at most
// kTimelineMaxBuckets buckets of one width (1, 2 or 5 × 10^k ns), each with
// what every device and the busiest host threads did in it. A fixed size
// whatever the trace's length, so a multi-hour trace's report stays small.
inline constexpr uint32_t kTimelineMaxBuckets = 1000;
inline constexpr size_t kTimelineMaxThreads = 10;
inline constexpr size_t kTimelineMaxSyncs = 500;
inline constexpr size_t kTimelineMaxStepMarks = 300;

struct TimelineDevice {
  int32_t pid = 0;
  int32_t device = 0;
  // Per bucket: busy time, and idle time by cause (the gaps' causes placed
  // where they happened: host-wait causes over the gap's host-wait part,
  // the others after it). busy + idle < bucket_ns where the bucket lies
  // outside the device's span.
  std::vector<TimeNs> busy_ns;
  std::vector<IdleByCause> idle_ns;
};

struct TimelineThread {
  int32_t pid = 0;
  int32_t tid = 0;
  std::string name;
  bool samples = false;  // false: cpu_ns and io_wait_ns are empty
  // Per bucket: on-CPU time (user + sys, sample deltas spread evenly over
  // each sample interval), off-CPU time in I/O, time inside CUDA calls and,
  // of that, blocked in synchronizing calls.
  std::vector<TimeNs> cpu_ns;
  std::vector<TimeNs> io_wait_ns;
  std::vector<TimeNs> cuda_api_ns;
  std::vector<TimeNs> sync_ns;
};

// One blocking call (a sync point's occurrence) on the timeline.
struct TimelineSync {
  TimeNs start = 0;  // absolute trace time
  TimeNs duration_ns = 0;
  int32_t pid = 0;
  int32_t tid = 0;
  std::string api;
};

struct TimelineOverview {
  TimeNs start = 0;  // absolute: the window's start
  TimeNs bucket_ns = 0;
  uint32_t buckets = 0;
  std::vector<TimelineDevice> devices;  // in Report::devices order
  // The first kTimelineMaxThreads of HostReport::threads (by CUDA time,
  // then CPU time); threads_total counts them all.
  std::vector<TimelineThread> threads;
  uint64_t threads_total = 0;
  // The kTimelineMaxSyncs longest blocking calls, in time order;
  // sync_calls counts them all.
  std::vector<TimelineSync> syncs;
  uint64_t sync_calls = 0;
  // Plots of steps show every step_stride-th step of StepReport::steps, at
  // most kTimelineMaxStepMarks of them (1 when there are fewer).
  uint32_t step_stride = 1;
};

// GPU idle time by where the host's code was (docs/metrics.md, "Idle by
// code location"): the host-wait part of every idle gap goes to the
// location (the innermost frame in the user's code) of the thread that
// launched the work ending the gap, at each moment of that part.
struct CodeIdle {
  std::string location;  // "function (file:line)"
  TimeNs idle_ns = 0;
  double idle_share = 0;  // of all devices' idle time
};
inline constexpr size_t kIdleByCodeRows = 10;
struct IdleByCode {
  // The trace says where threads' code was over time (Python function
  // events, as a Kineto trace recorded with with_stack=True holds them).
  bool available = false;
  TimeNs idle_ns = 0;         // all devices' idle time
  TimeNs host_wait_ns = 0;    // its host-wait part
  TimeNs located_ns = 0;      // the part of that with a location
  std::vector<CodeIdle> top;  // the most idle first, kIdleByCodeRows at most
};

// Which threads a code profile covers: those that issued GPU work, the
// input pipeline's (DataLoader worker processes and threads), and the rest.
enum class ThreadRole : uint8_t { kLaunching, kDataLoader, kOther };
const char* ThreadRoleName(ThreadRole role);  // "launching", "dataloader", ...

// What a code profile's times measure: the wall time threads spent inside
// each frame (a Kineto trace's nested Python function and operator
// events), or CPU time from a sampling profiler's stacks (each sample
// stands for its sampling period).
enum class CodeProfileBasis : uint8_t { kStackTimeline, kStackSamples };
const char* CodeProfileBasisName(CodeProfileBasis basis);

// What a frame of a code profile is, as the analysis judged it (the user's
// code by the rule of UserCodeRule): what renderers colour it by.
enum class CodeFrameKind : uint8_t {
  kUserCode,  // Python or native code of the user's (user_code.h)
  kPython,    // the frameworks' and the standard library's Python, builtins
  kOperator,  // a framework operator ("aten::mm")
  kCudaCall,  // a CUDA runtime or driver call
  kNative,    // other native frames
};
// "user_code", "python", "operator", "cuda_call", "native".
const char* CodeFrameKindName(CodeFrameKind kind);

// One code location of a role's profile.
struct CodeLocationTime {
  std::string location;    // "function (file:line)", as call sites print
  bool user_code = false;  // a Python frame in the user's code (user_code.h)
  CodeFrameKind kind = CodeFrameKind::kNative;
  TimeNs self_ns = 0;   // time it was the innermost frame
  TimeNs total_ns = 0;  // time it was on the stack (recursion once)
};
// A frame of the stacks of a code profile.
struct CodeFrame {
  std::string label;  // "function (file:line)", an operator or a CUDA call
  CodeFrameKind kind = CodeFrameKind::kNative;
};
// A distinct stack and the time it was the whole stack, outermost frame
// first: the input of flame graphs (`--format folded`, the HTML icicle).
struct FoldedStack {
  std::vector<uint32_t> frames;  // indices into HostCode::frames
  TimeNs self_ns = 0;
};
inline constexpr size_t kHostCodeRows = 10;
inline constexpr size_t kFoldedStacksKept = 5000;
struct RoleCodeProfile {
  ThreadRole role = ThreadRole::kOther;
  uint32_t threads = 0;               // threads of the role with stacks
  TimeNs located_ns = 0;              // time with a known stack
  std::vector<CodeLocationTime> top;  // most self time first
  // The innermost frame in the user's code over time, by its time: the
  // lines a next step names.
  std::vector<CodeLocationTime> user_lines;  // self_ns = that time
  // The heaviest stacks, kFoldedStacksKept at most; `other_ns` the rest.
  std::vector<FoldedStack> stacks;
  TimeNs other_ns = 0;
};
struct HostCode {
  bool available = false;
  CodeProfileBasis basis = CodeProfileBasis::kStackTimeline;
  std::vector<RoleCodeProfile> roles;  // in ThreadRole order, non-empty ones

  // The profile of `role`; null when the trace has none for it.
  const RoleCodeProfile* Role(ThreadRole role) const {
    for (const RoleCodeProfile& r : roles) {
      if (r.role == role) return &r;
    }
    return nullptr;
  }
  // The frames the roles' stacks name, each once.
  std::vector<CodeFrame> frames;
};

struct Report {
  static constexpr const char* kSchema = "feedprof.analysis/1";
  SourceFormat source_format = SourceFormat::kUnknown;
  std::string source_path;
  Window window;
  std::optional<int32_t> rank_filter;
  bool has_gpu_activity = false;
  std::optional<NoGpuActivity> no_gpu_activity;  // set when there is none
  Verdict verdict;
  std::vector<DeviceReport> devices;
  LaunchStats launch;
  std::vector<SyncPoint> sync_points;
  uint64_t gpu_side_waits = 0;  // cudaStreamWaitEvent: not host blocks
  CopyReport copies;
  HostReport host;
  IoReport io;  // how the input was read
  IdleByCode idle_by_code;
  HostCode host_code;  // where each role's threads spent their time
  StepReport steps;
  TimelineOverview timeline;
  WhatIf what_if;
  std::vector<RankReport> ranks;
  CollectivesReport collectives;
  Straggler straggler;
  Availability available;
  DropCounts drops;
  std::vector<std::string> warnings;
  uint64_t events = 0;  // events analysed
  // > 0: the report was made from this many rank digest files
  // (feedprof/rank_digest.h), not from events.
  uint32_t rank_digests = 0;
  // The recording machine's platform checks (feedprof/platform.h,
  // docs/doctor.md): from the trace's snapshot and samples, or what Kineto
  // and Nsight inputs describe.
  PlatformReport platform;
};

// One idle gap of a device as the analysis attributes it (docs/metrics.md,
// "Idle gaps"): the hole [start, end] in the device's busy union, the time
// of each cause in it (they add up to end - start), and where its host-wait
// part ends: [start, host_wait_end] is time the host had not begun issuing
// the work that ended the gap, [host_wait_end, end] launch overhead or queue
// latency.
struct IdleGap {
  int32_t pid = 0;
  int32_t device = 0;
  TimeNs start = 0;  // absolute trace time
  TimeNs end = 0;
  TimeNs host_wait_end = 0;  // == start when the gap has no host-wait part
  IdleByCause by_cause;
  IdleCause main_cause = IdleCause::kUnattributed;  // the most time
  bool after_sync = false;  // the launching thread was in a sync before
  uint32_t ending_op = 0;   // index into Timeline::gpu_ops
  // The thread whose launch ended the gap, where the gap has a host-wait
  // part (host_wait_end > start).
  int32_t launch_pid = 0;
  int32_t launch_tid = 0;
};

// Calls `visit` for every idle gap in the options' window and rank, device
// by device (the order of Report::devices), each device's in time order.
// The gaps are the ones Analyze counts; nothing is kept between calls.
absl::Status ForEachIdleGap(const Timeline& timeline,
                            const AnalysisOptions& options,
                            const std::function<void(const IdleGap&)>& visit);

// Launch delay of one kernel: its launch call's start → the kernel's start
// (HTA's "kernel launch delay"). For drill-down and comparison with HTA.
struct KernelLaunchDelay {
  uint32_t op = 0;  // index into Timeline::gpu_ops
  TimeNs delay_ns = 0;
};
// Every kernel in the options' window and rank that has a launch call.
absl::StatusOr<std::vector<KernelLaunchDelay>> ComputeLaunchDelays(
    const Timeline& timeline, const AnalysisOptions& options);

}  // namespace feedprof

#endif  // FEEDPROF_ANALYSIS_REPORT_H_
