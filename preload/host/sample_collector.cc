#include "preload/host/sample_collector.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "preload/host/proc_parsers.h"
#include "preload/host/proc_text.h"
#include "preload/own_io.h"
#include "preload/recorder.h"

namespace feedprof::preload::host {

struct SampleCollector::ThreadTrack {
  ThreadSampleRecord sample;
  uint64_t on_cpu_ns;
  uint64_t utime_ticks;
  uint64_t stime_ticks;
  uint64_t blkio_ticks;
  int32_t stat_slot;  // OpenFileCache slot of its stat file, or -1
  char state_letter;
  bool switches_stale;  // ran since its status file was last read
  bool announce;        // new, or renamed since the previous round
  uint8_t name_len;
  char name[kMaxNameBytes];
};

namespace {

constexpr size_t kDirentBytes = 32 * 1024;
constexpr size_t kSmallBufBytes = 8 * 1024;
// /proc/stat holds a line per CPU and an "intr" line per IRQ: hundreds of
// KiB on the largest machines. procs_running comes after them.
constexpr size_t kLargeBufBytes = 256 * 1024;

// The CPU-time clock of thread `tid` (of this process), as glibc's
// pthread_getcpuclockid builds it: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED).
clockid_t ThreadCpuClock(uint32_t tid) {
  constexpr uint32_t kPerThread = 4;
  constexpr uint32_t kSched = 2;
  return static_cast<clockid_t>((~tid << 3) | kPerThread | kSched);
}

// "123/stat" into `out`.
void TaskPath(uint32_t tid, const char* leaf, char* out, size_t cap) {
  char digits[16];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + tid % 10);
    tid /= 10;
  } while (tid != 0 && n < sizeof digits);
  size_t len = 0;
  while (n > 0 && len + 1 < cap) out[len++] = digits[--n];
  if (len + 1 < cap) out[len++] = '/';
  for (; *leaf != '\0' && len + 1 < cap; ++leaf) out[len++] = *leaf;
  out[len] = '\0';
}

int OpenDirectory(int dir_fd, const char* path) {
  return OpenPrivate(dir_fd, path, O_RDONLY | O_DIRECTORY);
}

// The text a read of `n` bytes left in `buf`; empty when the read failed
// (n <= 0), which every parser rejects.
std::string_view ReadText(const char* buf, long n) {
  return n > 0 ? std::string_view(buf, static_cast<size_t>(n))
               : std::string_view();
}

uint64_t TimevalNs(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(tv.tv_usec) * 1000ull;
}

}  // namespace

SampleCollector::~SampleCollector() { Close(); }

bool SampleCollector::Open(const CollectorOptions& options) {
  Close();
  options_ = options;
  if (options_.max_threads == 0) options_.max_threads = 1;
  const long tck = sysconf(_SC_CLK_TCK);
  if (tck > 0) tick_ns_ = 1000000000ull / static_cast<uint64_t>(tck);
  const long page = sysconf(_SC_PAGESIZE);
  if (page > 0) page_bytes_ = static_cast<uint64_t>(page);

  const size_t n = options_.max_threads;
  tracks_ = static_cast<ThreadTrack*>(std::calloc(2 * n, sizeof(ThreadTrack)));
  announcements_ = static_cast<uint32_t*>(std::calloc(n, sizeof(uint32_t)));
  dirents_ = static_cast<char*>(std::malloc(kDirentBytes));
  small_buf_ = static_cast<char*>(std::malloc(kSmallBufBytes));
  large_buf_ = static_cast<char*>(std::malloc(kLargeBufBytes));
  if (tracks_ == nullptr || announcements_ == nullptr || dirents_ == nullptr ||
      small_buf_ == nullptr || large_buf_ == nullptr) {
    error_ = "out of memory for the sampler's tables";
    Close();
    return false;
  }
  if (!stat_files_.Init(options_.max_open_stat_files)) {
    error_ = "out of memory for the sampler's tables";
    Close();
    return false;
  }
  current_ = tracks_;
  previous_ = tracks_ + n;
  // The storage under the data, before the directories: mountstats is
  // kept open only when an NFS mount is listed.
  disk_count_ = nfs_count_ = 0;
  DataMountSources sources;
  sources.root = options_.root;
  sources.cwd = options_.cwd;
  FindDataMounts(sources, large_buf_, kLargeBufBytes, &AddDataMount, this);
  for (uint32_t& id : disk_ids_) id = 0;
  for (uint32_t& id : nfs_ids_) id = 0;
  storage_sampled_ = false;
  if (!OpenDirectories()) {
    Close();
    return false;
  }
  return true;
}

void SampleCollector::Close() {
  stat_files_.Release();
  CloseDirectories();
  std::free(tracks_);
  std::free(announcements_);
  std::free(dirents_);
  std::free(small_buf_);
  std::free(large_buf_);
  tracks_ = current_ = previous_ = nullptr;
  announcements_ = nullptr;
  dirents_ = small_buf_ = large_buf_ = nullptr;
  thread_count_ = previous_count_ = announcement_count_ = 0;
  disk_sample_count_ = nfs_sample_count_ = 0;
}

bool SampleCollector::OpenDirectories() {
  char path[1024];
  std::snprintf(path, sizeof path, "%s/proc", options_.root);
  proc_fd_ = OpenDirectory(AT_FDCWD, path);
  if (proc_fd_ < 0) {
    error_ = "cannot open /proc (is procfs mounted?)";
    return false;
  }
  self_fd_ = OpenDirectory(proc_fd_, "self");
  task_fd_ = self_fd_ < 0 ? -1 : OpenDirectory(self_fd_, "task");
  if (task_fd_ < 0) {
    error_ = "cannot open /proc/self/task (is procfs mounted?)";
    CloseDirectories();
    return false;
  }
  const struct {
    KeptFile file;
    int dir_fd;
    const char* name;
  } kept[] = {{kSelfStat, self_fd_, "stat"},   {kSelfStatm, self_fd_, "statm"},
              {kSelfIo, self_fd_, "io"},       {kProcStat, proc_fd_, "stat"},
              {kMeminfo, proc_fd_, "meminfo"}, {kLoadavg, proc_fd_, "loadavg"}};
  for (const auto& k : kept) {
    kept_fds_[k.file] = OpenPrivate(k.dir_fd, k.name, O_RDONLY | O_NOCTTY);
  }
  if (disk_count_ > 0) {
    kept_fds_[kDiskstats] =
        OpenPrivate(proc_fd_, "diskstats", O_RDONLY | O_NOCTTY);
  }
  if (nfs_count_ > 0) {
    kept_fds_[kMountstats] =
        OpenPrivate(self_fd_, "mountstats", O_RDONLY | O_NOCTTY);
  }
  self_pid_ = 0;
  TaskStat st;
  if (ParseTaskStat(ReadText(small_buf_, ReadKept(kSelfStat, self_fd_, "stat",
                                                  small_buf_, kSmallBufBytes)),
                    &st)) {
    self_pid_ = st.tid;
  }
  char stat_path[32];
  opener_tid_ = static_cast<uint32_t>(syscall(SYS_gettid));
  TaskPath(opener_tid_, "stat", stat_path, sizeof stat_path);
  kept_fds_[kOpenerStat] =
      OpenPrivate(task_fd_, stat_path, O_RDONLY | O_NOCTTY);
  process_io_readable_ = true;
  round_ = 0;
  return true;
}

void SampleCollector::CloseDirectories() {
  for (int* fd : {&task_fd_, &self_fd_, &proc_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  for (int& fd : kept_fds_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  opener_tid_ = 0;
}

long SampleCollector::ReadKept(KeptFile file, int dir_fd, const char* name,
                               char* buf, size_t cap) {
  const int fd = kept_fds_[file];
  return fd >= 0 ? PreadText(fd, buf, cap) : ReadFileAt(dir_fd, name, buf, cap);
}

size_t SampleCollector::KeptDescriptors(int* out, size_t max) const {
  size_t n = 0;
  const auto add = [&](int fd) {
    if (fd >= 0 && n < max) out[n++] = fd;
  };
  for (int fd : {proc_fd_, self_fd_, task_fd_}) add(fd);
  for (int fd : kept_fds_) add(fd);
  return n;
}

bool SampleCollector::ReopenAfterFork() {
  if (tracks_ == nullptr) return false;
  // The cached stat files are the parent's threads'.
  stat_files_.CloseAll();
  CloseDirectories();
  thread_count_ = previous_count_ = announcement_count_ = 0;
  threads_skipped_ = 0;
  listed_threads_ = 0;
  listed_nlink_ = 0;
  last_rss_bytes_ = 0;
  // The storage list stays (the child reads the same data); its first
  // round samples it for the child's own trace, naming it again there.
  storage_sampled_ = false;
  disk_sample_count_ = nfs_sample_count_ = 0;
  for (uint32_t& id : disk_ids_) id = 0;
  for (uint32_t& id : nfs_ids_) id = 0;
  return OpenDirectories();
}

const ThreadSampleRecord& SampleCollector::thread(size_t i) const {
  return current_[i].sample;
}

ThreadAnnouncement SampleCollector::announcement(size_t i) const {
  const ThreadTrack& t = current_[announcements_[i]];
  return {t.sample.tid, std::string_view(t.name, t.name_len),
          t.sample.tid == self_pid_};
}

const SampleCollector::ThreadTrack* SampleCollector::FindPrevious(
    uint32_t tid) const {
  const ThreadTrack* begin = previous_;
  const ThreadTrack* end = begin + previous_count_;
  const ThreadTrack* it = std::lower_bound(
      begin, end, tid,
      [](const ThreadTrack& t, uint32_t v) { return t.sample.tid < v; });
  return it != end && it->sample.tid == tid ? it : nullptr;
}

bool SampleCollector::Due(uint32_t every_rounds, uint32_t tid) const {
  // Staggered by tid so the re-reads of many threads spread over rounds.
  return every_rounds <= 1 || (round_ + tid) % every_rounds == 0;
}

bool SampleCollector::ReadTaskStat(uint32_t tid, int* slot, TaskStat* out) {
  // Whether a read of `n` bytes holds thread `tid`'s stat line.
  const auto parsed_own = [&](long n) {
    return ParseTaskStat(ReadText(small_buf_, n), out) && out->tid == tid;
  };
  if (*slot < 0 && tid == opener_tid_ && kept_fds_[kOpenerStat] >= 0 &&
      parsed_own(
          PreadText(kept_fds_[kOpenerStat], small_buf_, kSmallBufBytes))) {
    return true;
  }
  if (*slot >= 0) {
    if (parsed_own(stat_files_.Read(*slot, small_buf_, kSmallBufBytes))) {
      return true;
    }
    // The thread exited, or the descriptor is no longer ours.
    stat_files_.Close(*slot);
    *slot = -1;
  }
  char path[32];
  TaskPath(tid, "stat", path, sizeof path);
  *slot = stat_files_.Open(task_fd_, path);
  const long n = *slot >= 0
                     ? stat_files_.Read(*slot, small_buf_, kSmallBufBytes)
                     : ReadFileAt(task_fd_, path, small_buf_, kSmallBufBytes);
  return ParseTaskStat(ReadText(small_buf_, n), out);
}

bool SampleCollector::SampleThread(uint32_t tid, ThreadTrack* track,
                                   InternStringFn intern,
                                   void* intern_context) {
  const ThreadTrack* prev = FindPrevious(tid);
  char path[32];

  // On-CPU time in ns: the cheap question asked of every thread.
  uint64_t on_cpu_ns = 0;
  bool have_on_cpu = false;
  if (options_.live) {
    timespec ts;
    if (clock_gettime(ThreadCpuClock(tid), &ts) != 0) return false;  // gone
    on_cpu_ns = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
                static_cast<uint64_t>(ts.tv_nsec);
    have_on_cpu = true;
  } else {
    TaskPath(tid, "schedstat", path, sizeof path);
    const long m = ReadFileAt(task_fd_, path, small_buf_, kSmallBufBytes);
    have_on_cpu = ParseSchedstatRunNs(ReadText(small_buf_, m), &on_cpu_ns);
  }
  const uint64_t ts_ns = NowNs();
  const bool ran =
      prev == nullptr || !have_on_cpu || prev->on_cpu_ns != on_cpu_ns;

  // The stat line (state, name, utime:stime, block-I/O delay). A thread
  // that did not run cannot have changed its utime/stime, and its state
  // can only have gone from sleeping to runnable: re-read it every few
  // rounds only.
  track->stat_slot = prev != nullptr ? prev->stat_slot : -1;
  if (ran || Due(options_.idle_refresh_rounds, tid)) {
    TaskStat st;
    if (!ReadTaskStat(tid, &track->stat_slot, &st)) return false;  // gone
    track->name_len =
        static_cast<uint8_t>(std::min(st.comm.size(), kMaxNameBytes));
    std::memcpy(track->name, st.comm.data(), track->name_len);
    track->state_letter = st.state;
    track->utime_ticks = st.utime_ticks;
    track->stime_ticks = st.stime_ticks;
    track->blkio_ticks = st.blkio_ticks;
  } else {
    track->name_len = prev->name_len;
    std::memcpy(track->name, prev->name, prev->name_len);
    track->state_letter = prev->state_letter;
    track->utime_ticks = prev->utime_ticks;
    track->stime_ticks = prev->stime_ticks;
    track->blkio_ticks = prev->blkio_ticks;
  }
  stat_files_.Mark(track->stat_slot, round_);
  const uint64_t utime = track->utime_ticks;
  const uint64_t stime = track->stime_ticks;
  if (!have_on_cpu) on_cpu_ns = (utime + stime) * tick_ns_;

  // Split on-CPU time by the tick-based utime:stime ratio, keeping both
  // parts monotonic against the previous sample.
  const uint64_t ticks = utime + stime;
  uint64_t user_ns =
      ticks == 0 ? on_cpu_ns
                 : static_cast<uint64_t>(static_cast<double>(on_cpu_ns) *
                                         static_cast<double>(utime) /
                                         static_cast<double>(ticks));
  if (user_ns > on_cpu_ns) user_ns = on_cpu_ns;
  if (prev != nullptr) {
    const uint64_t lo = prev->sample.user_ns;
    const uint64_t hi = on_cpu_ns >= prev->sample.system_ns
                            ? on_cpu_ns - prev->sample.system_ns
                            : lo;
    user_ns = std::clamp(user_ns, lo, std::max(lo, hi));
  }
  uint64_t system_ns = on_cpu_ns >= user_ns ? on_cpu_ns - user_ns : 0;
  if (prev != nullptr && system_ns < prev->sample.system_ns) {
    system_ns = prev->sample.system_ns;
  }

  ThreadSampleRecord& s = track->sample;
  s.ts_ns = ts_ns;
  s.tid = tid;
  s.state = ThreadStateFromLetter(track->state_letter);
  s.user_ns = user_ns;
  s.system_ns = system_ns;
  s.io_wait_ns = track->blkio_ticks * tick_ns_;
  track->on_cpu_ns = on_cpu_ns;

  // Context switches (/proc/T/status, the most expensive file): only a
  // thread that ran can have switched, and the counters are cumulative, so
  // a thread that ran is re-read every few rounds.
  track->switches_stale = prev != nullptr && (prev->switches_stale || ran);
  s.voluntary_switches = prev ? prev->sample.voluntary_switches : 0;
  s.involuntary_switches = prev ? prev->sample.involuntary_switches : 0;
  if (prev == nullptr ||
      (track->switches_stale && Due(options_.switches_refresh_rounds, tid))) {
    TaskPath(tid, "status", path, sizeof path);
    const long m = ReadFileAt(task_fd_, path, small_buf_, kSmallBufBytes);
    ContextSwitches cs;
    if (ParseContextSwitches(ReadText(small_buf_, m), &cs)) {
      s.voluntary_switches = cs.voluntary;
      s.involuntary_switches = cs.involuntary;
    }
    track->switches_stale = false;
  }

  const std::string_view name(track->name, track->name_len);
  track->announce =
      prev == nullptr || std::string_view(prev->name, prev->name_len) != name;
  if (track->announce) {
    s.name_id = intern != nullptr ? intern(name, intern_context) : 0;
  } else {
    s.name_id = prev->sample.name_id;
  }
  return true;
}

void SampleCollector::SampleListedThread(uint32_t tid, InternStringFn intern,
                                         void* intern_context) {
  ++listed_threads_;
  if (thread_count_ >= options_.max_threads) {
    ++threads_skipped_;
    return;
  }
  if (SampleThread(tid, &current_[thread_count_], intern, intern_context)) {
    ++thread_count_;
  } else {
    thread_vanished_ = true;
  }
}

void SampleCollector::CollectThreads(InternStringFn intern,
                                     void* intern_context) {
  std::swap(current_, previous_);
  previous_count_ = thread_count_;
  thread_count_ = 0;
  announcement_count_ = 0;
  if (task_fd_ < 0) return;

  // Listing the task directory costs ~1.5 µs per thread. The directory's
  // link count grows and shrinks with the thread count (procfs adds the
  // number of threads), and a thread that exited fails its CPU clock: when
  // neither moved, last round's threads are this round's. A full listing
  // still happens every list_refresh_rounds.
  struct stat dir_stat;
  const bool stat_ok = fstat(task_fd_, &dir_stat) == 0;
  const bool relist = !stat_ok || thread_vanished_ || round_ == 0 ||
                      dir_stat.st_nlink != listed_nlink_ ||
                      Due(options_.list_refresh_rounds, 0);
  thread_vanished_ = false;
  listed_threads_ = 0;

  if (!relist) {
    for (size_t i = 0; i < previous_count_; ++i) {
      SampleListedThread(previous_[i].sample.tid, intern, intern_context);
    }
  } else if (lseek(task_fd_, 0, SEEK_SET) == 0) {
    listed_nlink_ = stat_ok ? dir_stat.st_nlink : 0;
    for (;;) {
      const long n = syscall(SYS_getdents64, task_fd_, dirents_, kDirentBytes);
      if (n <= 0) break;
      long off = 0;
      while (off < n) {
        // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type,
        // name.
        uint16_t reclen;
        std::memcpy(&reclen, dirents_ + off + 16, sizeof reclen);
        const char* name = dirents_ + off + 19;
        off += reclen;
        if (reclen == 0) break;
        uint64_t tid = 0;
        if (!ParseUint(name, &tid) || tid == 0) continue;  // ".", ".."
        SampleListedThread(static_cast<uint32_t>(tid), intern, intern_context);
      }
    }
    std::sort(current_, current_ + thread_count_,
              [](const ThreadTrack& a, const ThreadTrack& b) {
                return a.sample.tid < b.sample.tid;
              });
  }
  // Stat files of threads that exited (or failed to read) were not marked.
  stat_files_.CloseUnmarked(round_);
  // Announce threads that are new or renamed (indexes taken after sorting,
  // where they are final).
  for (size_t i = 0; i < thread_count_; ++i) {
    if (current_[i].announce) {
      announcements_[announcement_count_++] = static_cast<uint32_t>(i);
    }
  }
  ++round_;
}

bool SampleCollector::CollectProcess(ProcessSampleRecord* out) {
  *out = ProcessSampleRecord{};
  if (self_fd_ < 0) return false;
  out->ts_ns = NowNs();
  rusage ru;
  if (options_.live && listed_threads_ != 0 &&
      getrusage(RUSAGE_SELF, &ru) == 0) {
    // /proc/self/stat sums over every thread (~45 µs with 64 threads);
    // getrusage has the same CPU times (µs instead of ticks) and faults,
    // statm the RSS, and the last thread listing the thread count.
    out->user_ns = TimevalNs(ru.ru_utime);
    out->system_ns = TimevalNs(ru.ru_stime);
    out->minor_faults = static_cast<uint64_t>(ru.ru_minflt);
    out->major_faults = static_cast<uint64_t>(ru.ru_majflt);
    out->num_threads = static_cast<uint32_t>(listed_threads_);
    // RSS moves slowly: every slow_refresh_rounds.
    if (last_rss_bytes_ == 0 || Due(options_.slow_refresh_rounds, 0)) {
      const long n =
          ReadKept(kSelfStatm, self_fd_, "statm", small_buf_, kSmallBufBytes);
      std::string_view statm = ReadText(small_buf_, n);
      NextToken(&statm);  // size
      uint64_t resident = 0;
      if (ParseUint(NextToken(&statm), &resident)) {
        last_rss_bytes_ = resident * page_bytes_;
      }
    }
    out->rss_bytes = last_rss_bytes_;
  } else {
    const long n =
        ReadKept(kSelfStat, self_fd_, "stat", small_buf_, kSmallBufBytes);
    TaskStat st;
    if (!ParseTaskStat(ReadText(small_buf_, n), &st)) return false;
    out->minor_faults = st.minor_faults;
    out->major_faults = st.major_faults;
    out->rss_bytes = st.rss_pages * page_bytes_;
    out->num_threads = st.num_threads;
    out->user_ns = st.utime_ticks * tick_ns_;
    out->system_ns = st.stime_ticks * tick_ns_;
  }
  if (process_io_readable_) {
    // The library's own calls so far, taken before the read of
    // /proc/self/io, which counts neither itself nor what follows.
    const OwnIoTotals own = OwnIo();
    out->profiler_syscr = own.reads;
    out->profiler_rchar = own.read_bytes;
    out->profiler_syscw = own.writes;
    out->profiler_wchar = own.write_bytes;
    // Unreadable without ptrace rights in some containers: then skip it
    // from now on rather than failing every round.
    const long m =
        ReadKept(kSelfIo, self_fd_, "io", small_buf_, kSmallBufBytes);
    ProcessIo io;
    if (ParseProcessIo(ReadText(small_buf_, m), &io)) {
      out->rchar = io.rchar;
      out->wchar = io.wchar;
      out->syscr = io.syscr;
      out->syscw = io.syscw;
      out->read_bytes = io.read_bytes;
      out->write_bytes = io.write_bytes;
    } else {
      process_io_readable_ = false;
    }
  }
  return true;
}

bool SampleCollector::CollectSystem(SystemSampleRecord* out) {
  *out = SystemSampleRecord{};
  if (proc_fd_ < 0) return false;
  out->ts_ns = NowNs();
  const long n =
      ReadKept(kProcStat, proc_fd_, "stat", large_buf_, kLargeBufBytes);
  SystemCpu cpu;
  if (!ParseProcStat(ReadText(large_buf_, n), &cpu)) return false;
  out->cpu_user_ns = cpu.user * tick_ns_;
  out->cpu_nice_ns = cpu.nice * tick_ns_;
  out->cpu_system_ns = cpu.system * tick_ns_;
  out->cpu_idle_ns = cpu.idle * tick_ns_;
  out->cpu_iowait_ns = cpu.iowait * tick_ns_;
  out->cpu_irq_ns = cpu.irq * tick_ns_;
  out->cpu_softirq_ns = cpu.softirq * tick_ns_;
  out->cpu_steal_ns = cpu.steal * tick_ns_;
  out->procs_running = cpu.procs_running;
  out->procs_blocked = cpu.procs_blocked;

  // Memory and load move slowly (loadavg is a 1-minute average): read
  // them every slow_refresh_rounds and repeat the last values between.
  if (!have_slow_system_ || Due(options_.slow_refresh_rounds, 0)) {
    const long m =
        ReadKept(kMeminfo, proc_fd_, "meminfo", large_buf_, kLargeBufBytes);
    MemInfo mem;
    if (ParseMeminfo(ReadText(large_buf_, m), &mem)) {
      last_system_.mem_available_bytes = mem.available_bytes;
      last_system_.mem_dirty_bytes = mem.dirty_bytes;
      last_system_.mem_writeback_bytes = mem.writeback_bytes;
    }
    const long k =
        ReadKept(kLoadavg, proc_fd_, "loadavg", small_buf_, kSmallBufBytes);
    ParseLoadavg1m(ReadText(small_buf_, k), &last_system_.load_1m);
    have_slow_system_ = true;
  }
  out->mem_available_bytes = last_system_.mem_available_bytes;
  out->mem_dirty_bytes = last_system_.mem_dirty_bytes;
  out->mem_writeback_bytes = last_system_.mem_writeback_bytes;
  out->load_1m = last_system_.load_1m;
  return true;
}

void SampleCollector::AddDataMount(const char* /*path*/,
                                   bool /*working_directory*/,
                                   const MountFields& mount, void* self) {
  auto* c = static_cast<SampleCollector*>(self);
  // Each disk and NFS mount once, however many data paths lie on it.
  const auto add = [](const char* name, auto& names, size_t* count) {
    if (name[0] == '\0' || *count == kMaxStorage) return;
    for (size_t i = 0; i < *count; ++i) {
      if (std::strcmp(names[i], name) == 0) return;
    }
    std::snprintf(names[*count], sizeof names[*count], "%s", name);
    ++*count;
  };
  add(mount.block_device, c->disk_names_, &c->disk_count_);
  if (std::strcmp(mount.fs_type, "nfs") == 0 ||
      std::strcmp(mount.fs_type, "nfs4") == 0) {
    add(mount.mount_point, c->nfs_mount_points_, &c->nfs_count_);
  }
}

void SampleCollector::CollectStorage(InternStringFn intern,
                                     void* intern_context) {
  disk_sample_count_ = nfs_sample_count_ = 0;
  if (proc_fd_ < 0 || (disk_count_ == 0 && nfs_count_ == 0)) return;
  // Cumulative counters of devices that serve many requests a second:
  // every slow_refresh_rounds gives rates at 10 Hz, at a tenth the cost.
  if (storage_sampled_ && !Due(options_.slow_refresh_rounds, 0)) return;
  storage_sampled_ = true;
  if (disk_count_ > 0) CollectDisks(intern, intern_context);
  if (nfs_count_ > 0) CollectNfs(intern, intern_context);
}

void SampleCollector::CollectDisks(InternStringFn intern,
                                   void* intern_context) {
  const long n =
      ReadKept(kDiskstats, proc_fd_, "diskstats", large_buf_, kLargeBufBytes);
  const std::string_view text = ReadText(large_buf_, n);
  const uint64_t ts_ns = NowNs();
  for (size_t i = 0; i < disk_count_; ++i) {
    DiskStats d;
    if (!FindDiskstats(text, disk_names_[i], &d)) continue;
    if (disk_ids_[i] == 0 && intern != nullptr) {
      disk_ids_[i] = intern(disk_names_[i], intern_context);
    }
    constexpr uint64_t kSectorBytes = 512;  // diskstats' unit, any disk
    DiskSampleRecord& r = disk_samples_[disk_sample_count_++];
    r.ts_ns = ts_ns;
    r.device_id = disk_ids_[i];
    r.reads = d.reads;
    r.reads_merged = d.reads_merged;
    r.read_bytes = d.sectors_read * kSectorBytes;
    r.read_ms = d.read_ms;
    r.writes = d.writes;
    r.writes_merged = d.writes_merged;
    r.write_bytes = d.sectors_written * kSectorBytes;
    r.write_ms = d.write_ms;
    r.in_flight = static_cast<uint32_t>(d.in_flight);
    r.busy_ms = d.io_ticks_ms;
    r.weighted_ms = d.weighted_ms;
  }
}

bool SampleCollector::ScanMountstats(MountstatsScanner* scanner) {
  int fd = kept_fds_[kMountstats];
  const bool kept = fd >= 0;
  if (!kept) fd = OpenPrivate(self_fd_, "mountstats", O_RDONLY | O_NOCTTY);
  if (fd < 0) return false;
  // A machine with many mounts has a longer file than any buffer: read it
  // in pieces (pread continues where the last read ended, which procfs
  // serves without regenerating what came before), whole lines to the
  // scanner, the rest moved to the front for the next piece.
  char* const buf = large_buf_;
  size_t have = 0;
  off_t offset = 0;
  bool skipping = false;  // inside a line longer than the buffer
  bool ok = true;
  while (!scanner->all_found()) {
    const ssize_t n = OwnPread(fd, buf + have, kLargeBufBytes - have, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ok = false;
      break;
    }
    if (n == 0) {
      if (have > 0 && !skipping) scanner->Line(std::string_view(buf, have));
      break;
    }
    offset += n;
    have += static_cast<size_t>(n);
    size_t start = 0;
    while (start < have && !scanner->all_found()) {
      const void* nl = std::memchr(buf + start, '\n', have - start);
      if (nl == nullptr) break;
      const size_t end =
          static_cast<size_t>(static_cast<const char*>(nl) - buf);
      if (!skipping) scanner->Line(std::string_view(buf + start, end - start));
      skipping = false;
      start = end + 1;
    }
    if (start == 0 && have == kLargeBufBytes) {  // no end of line in it all
      skipping = true;
      have = 0;
      continue;
    }
    std::memmove(buf, buf + start, have - start);
    have -= start;
  }
  if (!kept) close(fd);
  return ok;
}

void SampleCollector::CollectNfs(InternStringFn intern, void* intern_context) {
  const char* points[kMaxStorage];
  for (size_t i = 0; i < nfs_count_; ++i) points[i] = nfs_mount_points_[i];
  NfsOpTotals totals[kMaxStorage];
  bool found[kMaxStorage];
  MountstatsScanner scanner(points, nfs_count_, totals, found);
  // After a failed read the block it was in is dropped (no End); the
  // blocks read before it stand.
  if (ScanMountstats(&scanner)) scanner.End();
  const uint64_t ts_ns = NowNs();
  for (size_t i = 0; i < nfs_count_; ++i) {
    if (!found[i]) continue;
    if (nfs_ids_[i] == 0 && intern != nullptr) {
      nfs_ids_[i] = intern(nfs_mount_points_[i], intern_context);
    }
    const NfsOpTotals& t = totals[i];
    NfsSampleRecord& r = nfs_samples_[nfs_sample_count_++];
    r.ts_ns = ts_ns;
    r.mount_point_id = nfs_ids_[i];
    r.ops = t.ops;
    r.transmissions = t.transmissions;
    r.major_timeouts = t.major_timeouts;
    r.rtt_ms = t.rtt_ms;
    r.execute_ms = t.execute_ms;
    r.read_ops = t.read_ops;
    r.read_bytes = t.read_bytes;
    r.read_rtt_ms = t.read_rtt_ms;
  }
}

}  // namespace feedprof::preload::host
