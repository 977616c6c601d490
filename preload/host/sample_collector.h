// Reads one round of host samples from procfs: every thread of this
// process, the process's counters and the machine's.
//
// This is the part of the sampler that costs CPU in the profiled process,
// 100 times a second, with possibly hundreds of threads, so it is built to
// be cheap and bounded:
//  * all memory (thread tables, file buffers) is allocated once in Open();
//    a round allocates nothing;
//  * /proc, /proc/self and /proc/self/task stay open; files are opened
//    relative to them (no path resolution through /proc/self each time);
//  * the task directory is listed (getdents64 into a fixed buffer) only
//    when its link count, which follows the thread count, changed, when a
//    thread exited, or every `list_refresh_rounds`; otherwise last round's
//    threads are sampled again;
//    each thread's stat file stays open and is re-read with pread
//    (OpenFileCache), which halves its cost;
//  * a thread's on-CPU time comes from its per-thread CPU clock
//    (clock_gettime on the clock id of that tid: the scheduler's
//    sum_exec_runtime in ns, the number /proc/T/schedstat prints, without a
//    file), split into user and system by the utime:stime ratio of its stat
//    line (see docs/host-sampling.md);
//  * the per-thread CPU clock (~0.4 µs) decides how much else is read: a
//    thread that did not run since the last round cannot have changed its
//    CPU times or switched, so its stat file is re-read only every
//    `idle_refresh_rounds` and its status file (context switches) only
//    after it ran, every `switches_refresh_rounds`.
// Thread tables are kept sorted by tid so the previous round's state of a
// thread is found by binary search.
//
// Storage: the disks and NFS mounts under the program's data (the mounts
// of its working directory and of its command line's paths, data_mounts.h)
// are listed once, in Open(), and kept across a fork. Every
// `slow_refresh_rounds` their counters are read: /proc/diskstats for the
// disks, /proc/self/mountstats (only when an NFS mount is listed) for the
// NFS mounts.
#ifndef FEEDPROF_PRELOAD_HOST_SAMPLE_COLLECTOR_H_
#define FEEDPROF_PRELOAD_HOST_SAMPLE_COLLECTOR_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "preload/host/data_mounts.h"
#include "preload/host/host_sample_records.h"
#include "preload/host/open_file_cache.h"

namespace feedprof::preload::host {

struct TaskStat;
class MountstatsScanner;

struct CollectorOptions {
  // Filesystem root holding proc/ ("/" in production; a fixture tree in
  // tests).
  const char* root = "/";
  // True when `root` shows this very process: thread CPU time then comes
  // from per-thread CPU clocks and process CPU time from getrusage (both ns
  // precise). False (fixtures): from schedstat files, else stat ticks.
  bool live = true;
  // Threads sampled per round at most; more are skipped and counted.
  size_t max_threads = 4096;
  // A thread that did not run since the last round has the same CPU times
  // and name, and its state can only have gone from sleeping to runnable:
  // its stat file is re-read every this many rounds (staggered by tid).
  uint32_t idle_refresh_rounds = 10;
  // Context switches of a thread that ran are re-read every this many
  // rounds (staggered by tid); /proc/T/status costs ~4x a stat file.
  uint32_t switches_refresh_rounds = 10;
  // The task directory is listed again (to find new threads) whenever its
  // link count changed or a thread vanished, and at least this often.
  uint32_t list_refresh_rounds = 10;
  // RSS, memory and load average change slowly: read every this many
  // rounds, the last values repeated in between.
  uint32_t slow_refresh_rounds = 10;
  // Threads whose stat file stays open between rounds (see
  // OpenFileCache; also capped at RLIMIT_NOFILE / 16). 0: open each time.
  size_t max_open_stat_files = 128;
  // The working directory the data mounts are looked up from (an absolute
  // path as `root` names it); null: getcwd() when `root` is "/", none
  // under another root.
  const char* cwd = nullptr;
};

// Interns a name (a thread's, a disk's, a mount point's); returns its id
// (0: none).
using InternStringFn = uint32_t (*)(std::string_view text, void* context);

// A thread seen for the first time, or whose name changed.
struct ThreadAnnouncement {
  uint32_t tid;
  std::string_view name;
  bool is_main;
};

class SampleCollector {
 public:
  // Longest thread name kept (the kernel's TASK_COMM_LEN - 1 is 15).
  static constexpr size_t kMaxNameBytes = 31;

  SampleCollector() = default;
  ~SampleCollector();
  SampleCollector(const SampleCollector&) = delete;
  SampleCollector& operator=(const SampleCollector&) = delete;

  // Allocates the tables and opens the proc directories. False (with the
  // reason in error()) when the proc tree cannot be opened or memory is
  // short; the collector is then unusable.
  bool Open(const CollectorOptions& options);
  void Close();
  const char* error() const { return error_; }

  // In the child of a fork: /proc/self/task still points at the parent and
  // the thread table describes the parent's threads. Reopens the
  // directories and forgets every thread.
  bool ReopenAfterFork();

  // The descriptors a sampling thread must keep when it takes a table of
  // its own (private_fd_table.h): the proc directories. Writes up to
  // `max` into `out`; returns how many.
  size_t KeptDescriptors(int* out, size_t max) const;
  // Closes the cached stat files and forgets them. Called by a sampling
  // thread that opened them in its own table, before it ends: their
  // numbers mean nothing in the program's table.
  void CloseCachedFiles() { stat_files_.CloseAll(); }

  // Samples every thread. `intern` is called for new or renamed threads.
  void CollectThreads(InternStringFn intern, void* intern_context);
  size_t thread_count() const { return thread_count_; }
  const ThreadSampleRecord& thread(size_t i) const;
  size_t announcement_count() const { return announcement_count_; }
  ThreadAnnouncement announcement(size_t i) const;
  // Threads not sampled because the table was full (cumulative).
  uint64_t threads_skipped() const { return threads_skipped_; }

  // Process and system counters; false when the main file is unreadable.
  bool CollectProcess(ProcessSampleRecord* out);
  bool CollectSystem(SystemSampleRecord* out);

  // The disks and NFS mounts under the data: at most one per mount found
  // (the working directory's and kMaxDataMounts more).
  static constexpr size_t kMaxStorage = kMaxDataMounts + 1;
  size_t data_disk_count() const { return disk_count_; }
  const char* data_disk(size_t i) const { return disk_names_[i]; }
  size_t nfs_mount_count() const { return nfs_count_; }
  const char* nfs_mount(size_t i) const { return nfs_mount_points_[i]; }

  // On the first call and then every `slow_refresh_rounds` (the other
  // calls yield no samples): the counters of each listed disk found in
  // /proc/diskstats and of each listed NFS mount found in
  // /proc/self/mountstats. `intern` names them (once, and once more after
  // a fork, for the child's trace).
  void CollectStorage(InternStringFn intern, void* intern_context);
  size_t disk_sample_count() const { return disk_sample_count_; }
  const DiskSampleRecord& disk_sample(size_t i) const {
    return disk_samples_[i];
  }
  size_t nfs_sample_count() const { return nfs_sample_count_; }
  const NfsSampleRecord& nfs_sample(size_t i) const { return nfs_samples_[i]; }

 private:
  struct ThreadTrack;

  bool OpenDirectories();
  void CloseDirectories();
  // Reads and parses thread `tid`'s stat file, through the open-file
  // cache when it can; `*slot` is its cache slot (in: the previous one or
  // -1; out: the one to keep or -1). The text stays in small_buf_.
  bool ReadTaskStat(uint32_t tid, int* slot, TaskStat* out);
  // Samples `tid` into the next slot of current_ (or counts it skipped).
  void SampleListedThread(uint32_t tid, InternStringFn intern,
                          void* intern_context);
  // Fills `track` for thread `tid`; false when the thread is gone.
  bool SampleThread(uint32_t tid, ThreadTrack* track, InternStringFn intern,
                    void* intern_context);
  // Whether thread `tid` is due for a re-read this round.
  bool Due(uint32_t every_rounds, uint32_t tid) const;
  const ThreadTrack* FindPrevious(uint32_t tid) const;
  // Lists the disk and NFS mount of one data mount (a DataMountVisitor;
  // `self` is the collector).
  static void AddDataMount(const char* path, bool working_directory,
                           const MountFields& mount, void* self);
  void CollectDisks(InternStringFn intern, void* intern_context);
  void CollectNfs(InternStringFn intern, void* intern_context);
  // Feeds /proc/self/mountstats to `scanner` in pieces of large_buf_;
  // false when a read failed.
  bool ScanMountstats(MountstatsScanner* scanner);

  CollectorOptions options_;
  const char* error_ = "";
  int proc_fd_ = -1;
  int self_fd_ = -1;
  int task_fd_ = -1;
  // The files read every round, opened with the directories (before the
  // program runs, or inside fork) and read with pread: a sampler that must
  // share the program's descriptor table then opens files only for new
  // threads. -1 where the open failed (read by path instead).
  // kOpenerStat is the stat file of the thread that opened them (the
  // program's main thread, or the one that forked).
  // kDiskstats is kept when a disk is listed, kMountstats when an NFS
  // mount is.
  enum KeptFile {
    kSelfStat,
    kSelfStatm,
    kSelfIo,
    kProcStat,
    kMeminfo,
    kLoadavg,
    kOpenerStat,
    kDiskstats,
    kMountstats,
    kKeptFileCount
  };
  int kept_fds_[kKeptFileCount] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
  // Reads kept file `file` (or, if it could not be kept, `name` under
  // `dir_fd`) into `buf`.
  long ReadKept(KeptFile file, int dir_fd, const char* name, char* buf,
                size_t cap);
  uint32_t opener_tid_ = 0;
  uint32_t self_pid_ = 0;
  uint64_t tick_ns_ = 10000000;
  uint64_t page_bytes_ = 4096;
  bool process_io_readable_ = true;
  uint64_t round_ = 0;

  // Two thread tables: this round's and the previous one, sorted by tid.
  ThreadTrack* tracks_ = nullptr;  // 2 * max_threads
  ThreadTrack* current_ = nullptr;
  ThreadTrack* previous_ = nullptr;
  size_t thread_count_ = 0;
  size_t previous_count_ = 0;
  uint32_t* announcements_ = nullptr;  // indexes into current_
  size_t announcement_count_ = 0;
  uint64_t threads_skipped_ = 0;
  size_t listed_threads_ = 0;     // threads seen by the last round
  uint64_t listed_nlink_ = 0;     // task directory link count when listed
  bool thread_vanished_ = false;  // a thread exited: list again
  uint64_t last_rss_bytes_ = 0;
  SystemSampleRecord last_system_;  // the slowly refreshed fields
  bool have_slow_system_ = false;

  OpenFileCache stat_files_;

  // The storage under the data, listed in Open(); names and their
  // interned ids (0: not interned yet).
  char disk_names_[kMaxStorage][64] = {};
  uint32_t disk_ids_[kMaxStorage] = {};
  size_t disk_count_ = 0;
  char nfs_mount_points_[kMaxStorage][512] = {};
  uint32_t nfs_ids_[kMaxStorage] = {};
  size_t nfs_count_ = 0;
  bool storage_sampled_ = false;  // CollectStorage read them once
  DiskSampleRecord disk_samples_[kMaxStorage];
  size_t disk_sample_count_ = 0;
  NfsSampleRecord nfs_samples_[kMaxStorage];
  size_t nfs_sample_count_ = 0;

  // Preallocated read buffers.
  char* dirents_ = nullptr;
  char* small_buf_ = nullptr;  // stat, status, io, schedstat, loadavg
  // /proc/stat, /proc/meminfo, /proc/diskstats, /proc/self/mountstats (in
  // pieces), the mountinfo scan of Open().
  char* large_buf_ = nullptr;
};

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_SAMPLE_COLLECTOR_H_
