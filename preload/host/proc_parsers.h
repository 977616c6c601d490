// Parsers for the procfs files the host sampler reads.
//
// Each takes the text of one file, already read into a buffer, and fills a
// small POD; string results are views into that text. Keeping parsing apart
// from reading lets tests feed fixture text (odd thread names, missing
// lines, kernels without a field) and lets the sampler reuse one buffer.
// Counters stay in the file's units (clock ticks, pages, kB) here; the
// collector converts them.
#ifndef FEEDPROF_PRELOAD_HOST_PROC_PARSERS_H_
#define FEEDPROF_PRELOAD_HOST_PROC_PARSERS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace feedprof::preload::host {

// /proc/PID/stat and /proc/PID/task/TID/stat (man 5 proc, fields 1-42).
struct TaskStat {
  uint32_t tid = 0;           // field 1
  std::string_view comm;      // field 2 without its parentheses
  char state = '?';           // field 3
  uint64_t minor_faults = 0;  // field 10
  uint64_t major_faults = 0;  // field 12
  uint64_t utime_ticks = 0;   // field 14
  uint64_t stime_ticks = 0;   // field 15
  uint32_t num_threads = 0;   // field 20
  uint64_t rss_pages = 0;     // field 24
  uint64_t blkio_ticks = 0;   // field 42, delayacct_blkio_ticks
};

// The name may hold spaces and parentheses ("(a) b)"), so it ends at the
// LAST ')' of the line. Returns false when the line is cut before field 15.
bool ParseTaskStat(std::string_view text, TaskStat* out);

// voluntary_ctxt_switches / nonvoluntary_ctxt_switches of a status file.
struct ContextSwitches {
  uint64_t voluntary = 0;
  uint64_t involuntary = 0;
};
bool ParseContextSwitches(std::string_view status_text, ContextSwitches* out);

// First field of /proc/.../schedstat: time spent on the CPU, in ns.
bool ParseSchedstatRunNs(std::string_view text, uint64_t* out);

// /proc/PID/io.
struct ProcessIo {
  uint64_t rchar = 0;
  uint64_t wchar = 0;
  uint64_t syscr = 0;
  uint64_t syscw = 0;
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
};
bool ParseProcessIo(std::string_view text, ProcessIo* out);

// The aggregate "cpu" line of /proc/stat (clock ticks) and the run queue.
struct SystemCpu {
  uint64_t user = 0;
  uint64_t nice = 0;
  uint64_t system = 0;
  uint64_t idle = 0;
  uint64_t iowait = 0;
  uint64_t irq = 0;
  uint64_t softirq = 0;
  uint64_t steal = 0;
  uint32_t procs_running = 0;
  uint32_t procs_blocked = 0;
};
// False when there is no "cpu " line.
bool ParseProcStat(std::string_view text, SystemCpu* out);

// /proc/meminfo (and /sys/devices/system/node/nodeN/meminfo, whose lines
// start with "Node N "), in bytes.
struct MemInfo {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
  uint64_t dirty_bytes = 0;
  uint64_t writeback_bytes = 0;
};
bool ParseMeminfo(std::string_view text, MemInfo* out);

// First number of /proc/loadavg.
bool ParseLoadavg1m(std::string_view text, double* out);

// One line of /proc/diskstats (Documentation/admin-guide/iostats.rst):
// "major minor name" and 11 counters (kernels before 4.18), 15 (4.18 added
// discards) or 17 (5.5 added flushes); those past the 11th are not read.
struct DiskStats {
  std::string_view name;
  uint64_t reads = 0;            // field 1
  uint64_t reads_merged = 0;     // field 2
  uint64_t sectors_read = 0;     // field 3 (512-byte sectors)
  uint64_t read_ms = 0;          // field 4
  uint64_t writes = 0;           // field 5
  uint64_t writes_merged = 0;    // field 6
  uint64_t sectors_written = 0;  // field 7
  uint64_t write_ms = 0;         // field 8
  uint64_t in_flight = 0;        // field 9
  uint64_t io_ticks_ms = 0;      // field 10
  uint64_t weighted_ms = 0;      // field 11
};
// False when the line has fewer than the 14 fields of the oldest layout
// (a cut line, or the 7-field partition lines of kernels before 2.6.25).
bool ParseDiskstatsLine(std::string_view line, DiskStats* out);
// The line of disk `name` in the text of /proc/diskstats. Only lines that
// end in '\n' are read: text cut by a full buffer loses its cut line
// rather than giving a cut number. False when there is none.
bool FindDiskstats(std::string_view text, std::string_view name,
                   DiskStats* out);

// The NFS client statistics of one mount, from the "per-op statistics"
// lines of its /proc/self/mountstats block: "NAME: ops transmissions
// major_timeouts bytes_sent bytes_received queue_ms rtt_ms execute_ms
// [errors]" summed over every operation kind, and the READ line alone.
struct NfsOpTotals {
  uint64_t ops = 0;
  uint64_t transmissions = 0;
  uint64_t major_timeouts = 0;
  uint64_t rtt_ms = 0;
  uint64_t execute_ms = 0;
  uint64_t read_ops = 0;
  uint64_t read_bytes = 0;  // READ's bytes_received
  uint64_t read_rtt_ms = 0;
};

// Reads /proc/self/mountstats a line at a time, keeping the NFS statistics
// of the mounts asked for. The file grows with the mounts (a few KiB per
// NFS mount, a line per other one) past any fixed buffer, so the caller
// reads it in pieces and feeds whole lines; nothing is allocated.
//
// A block begins with "device SRC mounted on MOUNTPOINT with fstype TYPE"
// ("no device mounted on ..." without a source); an NFS block ("nfs",
// "nfs4") goes on with indented lines ("statvers=1.1" ends its first line)
// and ends with an empty line. The file escapes space, tab, newline and
// backslash in mount points as \ooo; the mount points asked for are plain
// paths, as /proc/self/mountinfo's unescaped.
class MountstatsScanner {
 public:
  // Fills out[i] and sets found[i] (both cleared here) when the block of
  // NFS mount `mount_points[i]` was read whole; the first block of a mount
  // point wins.
  MountstatsScanner(const char* const* mount_points, size_t count,
                    NfsOpTotals* out, bool* found);
  // One line, without its '\n'.
  void Line(std::string_view line);
  // The end of the file: completes the block being read. Not called after
  // a failed or cut read: that block is then dropped, rather than giving
  // counters summed over part of its operations.
  void End();
  // Every mount asked for was found: the rest of the file may be skipped.
  bool all_found() const { return found_count_ == count_; }

 private:
  void Complete();

  const char* const* mount_points_;
  size_t count_;
  NfsOpTotals* out_;
  bool* found_;
  size_t found_count_ = 0;
  long current_ = -1;    // the mount whose block is being read, or -1
  bool in_ops_ = false;  // past its "per-op statistics" line
  NfsOpTotals totals_;
};

// MountstatsScanner over the text of a whole read of the file; `complete`:
// the read reached the end of the file (else the block it was cut in, and
// a last line without its '\n', are dropped). Returns how many were found.
size_t ParseMountstats(std::string_view text, bool complete,
                       const char* const* mount_points, size_t count,
                       NfsOpTotals* out, bool* found);

// The version in /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX
// x86_64 Kernel Module  550.54.15  Tue Mar  5 ...", open modules say "Open
// Kernel Module for x86_64") or /sys/module/nvidia/version ("550.54.15"):
// the first token of digits and dots with at least one dot. Empty when none.
std::string_view ParseNvidiaDriverVersion(std::string_view text);

// Scheduler state letter of a stat line -> proto ThreadState value.
uint32_t ThreadStateFromLetter(char state);

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_PROC_PARSERS_H_
