// How the input was read: each role's read calls, their sizes and where
// their bytes came from (/proc/PID/io), the disks under the data
// (/proc/diskstats) and the network file systems' client statistics
// (/proc/self/mountstats), over the analysed window (docs/metrics.md,
// "Input reads").
//
// An I/O-bound verdict alone says the program waited for reads; which fix
// helps depends on what the reads were. Many small reads served by storage
// want shards, large reads on a saturated disk a faster disk or a cache, a
// network file system local staging, and reads the page cache served say
// the waits were not the disk's at all. IoPattern names the case the
// figures show, and the verdict's evidence and next steps follow it.
//
// Counters are cumulative: a process's figure is its last sample in the
// window less its first, less what the recorder's own calls added between
// them (its /proc reads and trace writes, which the kernel counts as the
// process's), and less the totals of the children it reaped meanwhile (the
// kernel adds a reaped child's counters to its parent's, as it does CPU
// times: a DataLoader's main process would count its workers' reads twice).
// Per-step figures take each process's counters at the first step's start and
// the last step's end, interpolated between the samples around them.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "analysis/analysis_passes.h"
#include "platform/file_system_kind.h"

namespace feedprof::analysis {
namespace {

using platform::FileSystemKind;

// Too few reads to call a pattern: a program that read under this much
// did not wait for its input's reads.
constexpr uint64_t kPatternMinReads = 64;
constexpr uint64_t kPatternMinBytes = 1 << 20;
// Reads below this size are small: a disk serves them at its IOPS limit,
// and a file per sample makes them so.
constexpr double kSmallReadBytes = 128 * 1024;
// Below this share of bytes from storage, the page cache served the reads.
constexpr double kPageCacheShare = 0.2;

double Ratio(double part, double whole) { return whole > 0 ? part / whole : 0; }

double Seconds(TimeNs ns) { return static_cast<double>(ns) / 1e9; }

bool InWindow(const Window& w, TimeNs ts) {
  return !w.restricted || (ts >= w.start && ts <= w.end);
}

// A /proc/PID/io counter and the part of it that was the recorder's own
// calls (nullptr: none of it was).
struct Counter {
  uint64_t ProcessSample::*raw;
  uint64_t ProcessSample::*own;
};
constexpr Counter kReads{&ProcessSample::syscr, &ProcessSample::profiler_syscr};
constexpr Counter kReadChars{&ProcessSample::rchar,
                             &ProcessSample::profiler_rchar};
constexpr Counter kStorageReads{&ProcessSample::read_bytes, nullptr};
constexpr Counter kWrites{&ProcessSample::syscw,
                          &ProcessSample::profiler_syscw};
constexpr Counter kWriteChars{&ProcessSample::wchar,
                              &ProcessSample::profiler_wchar};
// The trace file's pages reach storage too (where the session directory
// is on a disk): taken out as well, so this is at most the program's.
constexpr Counter kStorageWrites{&ProcessSample::write_bytes,
                                 &ProcessSample::profiler_wchar};

// `later` less `earlier`, 0 when it went down (a torn or reset counter).
uint64_t Grown(uint64_t earlier, uint64_t later) {
  return later >= earlier ? later - earlier : 0;
}

// The last sample of each child process that has samples of its own: its
// totals, which its parent's counters take in when it reaps the child
// (taken here to be when the child's last sample was).
using ChildTotals = std::vector<const ProcessSample*>;

// What the children in `children` that ended in (t0, t1) add to their
// parent's counter `c`.
uint64_t Reaped(const ChildTotals& children, TimeNs t0, TimeNs t1, Counter c) {
  uint64_t sum = 0;
  for (const ProcessSample* child : children) {
    if (child->ts > t0 && child->ts < t1) sum += child->*c.raw;
  }
  return sum;
}

// The program's part of counter `c` between samples `a` and `b` of a
// process whose children are `children`.
uint64_t Between(const ProcessSample& a, const ProcessSample& b, Counter c,
                 const ChildTotals& children) {
  const uint64_t all = Grown(a.*c.raw, b.*c.raw);
  const uint64_t own = (c.own != nullptr ? Grown(a.*c.own, b.*c.own) : 0) +
                       Reaped(children, a.ts, b.ts, c);
  return all > own ? all - own : 0;
}

// The value of `field` in `samples` (one process's, by time) at time `t`,
// interpolated between the samples around it and held at the ends.
double ValueAt(const std::vector<const ProcessSample*>& samples, TimeNs t,
               uint64_t ProcessSample::*field) {
  const auto after = std::lower_bound(
      samples.begin(), samples.end(), t,
      [](const ProcessSample* s, TimeNs v) { return s->ts < v; });
  if (after == samples.begin()) return static_cast<double>((*after)->*field);
  if (after == samples.end())
    return static_cast<double>(samples.back()->*field);
  const ProcessSample& hi = **after;
  const ProcessSample& lo = **(after - 1);
  const auto low = static_cast<double>(lo.*field);
  if (hi.ts <= lo.ts || hi.*field < lo.*field) return low;
  const double f =
      static_cast<double>(t - lo.ts) / static_cast<double>(hi.ts - lo.ts);
  return low + f * static_cast<double>(hi.*field - lo.*field);
}

// The program's part of counter `c` between times `t0` and `t1`.
double BetweenTimes(const std::vector<const ProcessSample*>& samples, TimeNs t0,
                    TimeNs t1, Counter c, const ChildTotals& children) {
  const double all =
      std::max(0.0, ValueAt(samples, t1, c.raw) - ValueAt(samples, t0, c.raw));
  const double own = c.own != nullptr
                         ? std::max(0.0, ValueAt(samples, t1, c.own) -
                                             ValueAt(samples, t0, c.own))
                         : 0.0;
  const auto reaped = static_cast<double>(Reaped(children, t0, t1, c));
  return std::max(0.0, all - own - reaped);
}

// The mounts that hold the data: those of the command line's data
// arguments, else the working directory's.
std::vector<const Platform::Mount*> DataMounts(const Platform& p) {
  std::vector<const Platform::Mount*> out;
  for (const Platform::Mount& m : p.data_mounts) out.push_back(&m);
  if (out.empty() && p.working_directory_mount) {
    out.push_back(&*p.working_directory_mount);
  }
  return out;
}

// Every mount the snapshot recorded, the data arguments' first: where a
// sampled disk or NFS mount is found by name.
std::vector<const Platform::Mount*> RecordedMounts(const Platform& p) {
  std::vector<const Platform::Mount*> out;
  for (const Platform::Mount& m : p.data_mounts) out.push_back(&m);
  if (p.working_directory_mount) out.push_back(&*p.working_directory_mount);
  return out;
}

std::string UnavailableReason(const Timeline& tl) {
  switch (tl.format) {
    case SourceFormat::kKineto:
      return "PyTorch profiler traces hold no per-process I/O counters, disk "
             "or network file system statistics: record the run with "
             "'feedprof record' to see how the input was read";
    case SourceFormat::kNsight:
      return "Nsight Systems exports hold no per-process I/O counters, disk "
             "or network file system statistics: record the run with "
             "'feedprof record' to see how the input was read";
    default:
      break;
  }
  if (tl.process_samples.empty()) {
    return "the trace has no process samples (host sampling was off)";
  }
  return "/proc/PID/io could not be read while recording (a container "
         "that denies it without ptrace rights)";
}

std::string DisksUnavailableReason(const Timeline& tl) {
  const std::vector<const Platform::Mount*> mounts = DataMounts(tl.platform);
  if (mounts.empty()) {
    return "the trace does not say where the data is (no mounts in its "
           "platform snapshot)";
  }
  for (const Platform::Mount* m : mounts) {
    if (!m->block_device.empty()) {
      return "the trace has no /proc/diskstats samples: recorded by a "
             "feedprof that did not take them, or the file was unreadable";
    }
  }
  const Platform::Mount& m = *mounts.front();
  const FileSystemKind kind = platform::FileSystemKindOf(m.fs_type);
  if (platform::IsRemoteFileSystem(kind)) {
    return absl::StrCat("the data is on ", m.fs_type, " (", m.mount_point,
                        "): no local disk");
  }
  return absl::StrCat(m.fs_type, " on ", m.mount_point,
                      " has no block device visible here: a container's "
                      "overlay, or a memory file system");
}

void ComputeRoles(const PreparedTimeline& prepared, const HostReport& host,
                  const StepReport& steps, IoReport* r) {
  const Timeline& tl = prepared.timeline();
  const Window& w = prepared.window();
  std::unordered_set<int32_t> workers;
  for (const WorkerProcess& p : host.workers) workers.insert(p.pid);
  std::map<int32_t, std::vector<const ProcessSample*>> by_pid;
  for (const ProcessSample& s : tl.process_samples) {
    if (s.rchar == 0 || !prepared.Selected(s.pid) || !InWindow(w, s.ts)) {
      continue;
    }
    by_pid[s.pid].push_back(&s);
  }
  // Each process's children's last samples, in or out of the window.
  std::unordered_map<int32_t, const ProcessSample*> last_of;
  for (const ProcessSample& s : tl.process_samples) {
    if (s.rchar == 0) continue;
    const ProcessSample*& last = last_of[s.pid];
    if (last == nullptr || s.ts > last->ts) last = &s;
  }
  std::unordered_map<int32_t, ChildTotals> children_of;
  for (const Process& p : tl.processes) {
    const auto it = last_of.find(p.pid);
    if (p.ppid != 0 && p.ppid != p.pid && it != last_of.end()) {
      children_of[p.ppid].push_back(it->second);
    }
  }
  const ChildTotals no_children;
  // The steps' span, for the per-step figures.
  const bool per_step = steps.available && !steps.steps.empty();
  TimeNs steps_start = 0, steps_end = 0;
  if (per_step) {
    steps_start = steps.steps.front().start;
    steps_end = steps.steps.front().end;
    for (const StepInfo& s : steps.steps) {
      steps_start = std::min(steps_start, s.start);
      steps_end = std::max(steps_end, s.end);
    }
    r->steps = steps.steps.size();
  }
  RoleIo roles[2];
  roles[1].role = IoRole::kWorkers;
  double step_reads[2] = {0, 0};
  double step_bytes[2] = {0, 0};
  for (auto& [pid, samples] : by_pid) {
    std::sort(samples.begin(), samples.end(),
              [](const ProcessSample* a, const ProcessSample* b) {
                return a->ts < b->ts;
              });
    const size_t k = workers.contains(pid) ? 1 : 0;
    RoleIo& role = roles[k];
    const ProcessSample& first = *samples.front();
    const ProcessSample& last = *samples.back();
    const auto found = children_of.find(pid);
    const ChildTotals& children =
        found != children_of.end() ? found->second : no_children;
    r->includes_profiler_io |= last.profiler_syscr == 0;
    ++role.processes;
    role.duration_ns = std::max(role.duration_ns, last.ts - first.ts);
    role.reads += Between(first, last, kReads, children);
    role.read_chars += Between(first, last, kReadChars, children);
    role.storage_read_bytes += Between(first, last, kStorageReads, children);
    role.writes += Between(first, last, kWrites, children);
    role.write_chars += Between(first, last, kWriteChars, children);
    role.storage_write_bytes += Between(first, last, kStorageWrites, children);
    if (per_step) {
      step_reads[k] +=
          BetweenTimes(samples, steps_start, steps_end, kReads, children);
      step_bytes[k] +=
          BetweenTimes(samples, steps_start, steps_end, kReadChars, children);
    }
  }
  for (size_t k = 0; k < 2; ++k) {
    RoleIo& role = roles[k];
    if (role.processes == 0) continue;
    const auto reads = static_cast<double>(role.reads);
    const auto chars = static_cast<double>(role.read_chars);
    const auto storage = static_cast<double>(role.storage_read_bytes);
    role.reads_per_s = Ratio(reads, Seconds(role.duration_ns));
    role.mean_read_bytes = Ratio(chars, reads);
    role.storage_share = std::min(1.0, Ratio(storage, chars));
    role.mapped_reads = role.storage_read_bytes > role.read_chars;
    if (per_step) {
      const auto n = static_cast<double>(r->steps);
      role.reads_per_step = step_reads[k] / n;
      role.read_bytes_per_step = step_bytes[k] / n;
    }
    r->roles.push_back(role);
  }
}

void ComputeDisks(const PreparedTimeline& prepared, IoReport* r) {
  const Timeline& tl = prepared.timeline();
  const Window& w = prepared.window();
  // Whole-disk counters: every process's sampler reads the same ones, so
  // the earliest and latest samples in the window bound it, whoever took
  // them.
  struct Span {
    const DiskSample* first = nullptr;
    const DiskSample* last = nullptr;
    uint32_t max_in_flight = 0;
  };
  std::map<StringId, Span> by_device;
  for (const DiskSample& s : tl.disk_samples) {
    if (!InWindow(w, s.ts)) continue;
    Span& span = by_device[s.device];
    if (span.first == nullptr || s.ts < span.first->ts) span.first = &s;
    if (span.last == nullptr || s.ts > span.last->ts) span.last = &s;
    span.max_in_flight = std::max(span.max_in_flight, s.in_flight);
  }
  const std::vector<const Platform::Mount*> mounts =
      RecordedMounts(tl.platform);
  for (const auto& [device, span] : by_device) {
    const DiskSample& a = *span.first;
    const DiskSample& b = *span.last;
    if (b.ts <= a.ts) continue;  // one sample: no interval
    DiskIo d;
    d.device = std::string(tl.strings.Get(device));
    for (const Platform::Mount* m : mounts) {
      if (m->block_device == d.device) {
        d.mount_point = m->mount_point;
        break;
      }
    }
    const auto delta = [&](uint64_t DiskSample::*field) {
      return Grown(a.*field, b.*field);
    };
    d.duration_ns = b.ts - a.ts;
    d.reads = delta(&DiskSample::reads);
    d.read_bytes = delta(&DiskSample::read_bytes);
    d.writes = delta(&DiskSample::writes);
    d.write_bytes = delta(&DiskSample::write_bytes);
    const double seconds = Seconds(d.duration_ns);
    d.reads_per_s = Ratio(static_cast<double>(d.reads), seconds);
    d.mean_read_bytes =
        Ratio(static_cast<double>(d.read_bytes), static_cast<double>(d.reads));
    if (d.reads > 0) {
      d.read_await_ms = static_cast<double>(delta(&DiskSample::read_ms)) /
                        static_cast<double>(d.reads);
    }
    d.utilization = std::min(
        1.0,
        Ratio(static_cast<double>(delta(&DiskSample::busy_ms)) / 1e3, seconds));
    d.max_in_flight = span.max_in_flight;
    r->disks.push_back(std::move(d));
  }
  if (r->disks.empty())
    r->disks_unavailable_reason = DisksUnavailableReason(tl);
}

void ComputeNetworkFs(const PreparedTimeline& prepared, IoReport* r) {
  const Timeline& tl = prepared.timeline();
  const Window& w = prepared.window();
  std::map<StringId, std::pair<const NfsSample*, const NfsSample*>> by_mount;
  for (const NfsSample& s : tl.nfs_samples) {
    if (!InWindow(w, s.ts)) continue;
    auto& [first, last] = by_mount[s.mount_point];
    if (first == nullptr || s.ts < first->ts) first = &s;
    if (last == nullptr || s.ts > last->ts) last = &s;
  }
  const std::vector<const Platform::Mount*> mounts =
      RecordedMounts(tl.platform);
  for (const auto& [mount_point, span] : by_mount) {
    const NfsSample& a = *span.first;
    const NfsSample& b = *span.second;
    if (b.ts <= a.ts) continue;
    NetworkFsIo n;
    n.mount_point = std::string(tl.strings.Get(mount_point));
    for (const Platform::Mount* m : mounts) {
      if (m->mount_point == n.mount_point) {
        n.fs_type = m->fs_type;
        n.source = m->source;
        break;
      }
    }
    const auto delta = [&](uint64_t NfsSample::*field) {
      return Grown(a.*field, b.*field);
    };
    n.ops = delta(&NfsSample::ops);
    const uint64_t sent = delta(&NfsSample::transmissions);
    n.retransmissions = sent > n.ops ? sent - n.ops : 0;
    n.major_timeouts = delta(&NfsSample::major_timeouts);
    if (n.ops > 0) {
      const auto ops = static_cast<double>(n.ops);
      n.mean_rtt_ms = static_cast<double>(delta(&NfsSample::rtt_ms)) / ops;
      n.mean_execute_ms =
          static_cast<double>(delta(&NfsSample::execute_ms)) / ops;
    }
    n.read_ops = delta(&NfsSample::read_ops);
    n.read_bytes = delta(&NfsSample::read_bytes);
    r->network_fs.push_back(std::move(n));
  }
}

IoPattern PatternOf(const Timeline& tl, const IoReport& r) {
  const RoleIo* role = r.Role(*r.reading_role);
  if (role == nullptr) return IoPattern::kUnknown;
  bool remote = !r.network_fs.empty();
  for (const Platform::Mount* m : DataMounts(tl.platform)) {
    remote |=
        platform::IsRemoteFileSystem(platform::FileSystemKindOf(m->fs_type));
  }
  if (role->reads < kPatternMinReads ||
      (role->read_chars < kPatternMinBytes &&
       role->storage_read_bytes < kPatternMinBytes)) {
    return IoPattern::kUnknown;
  }
  // Network file systems' reads do not all count as storage reads (their
  // pages come over the network): the mount decides, not the share.
  if (remote) return IoPattern::kNetworkFs;
  if (role->storage_share < kPageCacheShare && !role->mapped_reads) {
    return IoPattern::kPageCache;
  }
  return role->mean_read_bytes < kSmallReadBytes ? IoPattern::kSmallReads
                                                 : IoPattern::kLargeReads;
}

}  // namespace

IoReport ComputeIoStats(const PreparedTimeline& prepared,
                        const HostReport& host, const StepReport& steps) {
  const Timeline& tl = prepared.timeline();
  IoReport r;
  r.available = tl.available.process_io;
  if (!r.available) {
    r.unavailable_reason = UnavailableReason(tl);
    return r;
  }
  ComputeRoles(prepared, host, steps, &r);
  ComputeDisks(prepared, &r);
  ComputeNetworkFs(prepared, &r);
  // The role that read the most from storage decides; with no storage
  // reads at all, the one that read the most bytes.
  const RoleIo* reading = nullptr;
  for (const RoleIo& role : r.roles) {
    const auto key = [](const RoleIo& x) {
      return std::make_pair(x.storage_read_bytes, x.read_chars);
    };
    if (role.reads > 0 && (reading == nullptr || key(role) > key(*reading))) {
      reading = &role;
    }
  }
  if (reading != nullptr) {
    r.reading_role = reading->role;
    r.pattern = PatternOf(tl, r);
  }
  return r;
}

}  // namespace feedprof::analysis
