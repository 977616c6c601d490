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

// The version in /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX
// x86_64 Kernel Module  550.54.15  Tue Mar  5 ...", open modules say "Open
// Kernel Module for x86_64") or /sys/module/nvidia/version ("550.54.15"):
// the first token of digits and dots with at least one dot. Empty when none.
std::string_view ParseNvidiaDriverVersion(std::string_view text);

// Scheduler state letter of a stat line -> proto ThreadState value.
uint32_t ThreadStateFromLetter(char state);

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_PROC_PARSERS_H_
