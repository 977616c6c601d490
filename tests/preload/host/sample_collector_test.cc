// SampleCollector on a fixture /proc tree and on this very process.
#include "preload/host/sample_collector.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "preload/host/proc_text.h"
#include "preload/private_fd.h"
#include "tests/preload/host/storage_fixture.h"
#include "tests/testing/fixture_tree.h"

namespace feedprof::preload::host {
namespace {

using feedprof::testing::FixtureTree;

// Interns names into a map, ids from 1.
struct TestInterner {
  std::map<std::string, uint32_t> ids;
  static uint32_t Intern(std::string_view text, void* self) {
    auto& ids = static_cast<TestInterner*>(self)->ids;
    auto [it, inserted] =
        ids.emplace(std::string(text), static_cast<uint32_t>(ids.size() + 1));
    return it->second;
  }
  std::string NameOf(uint32_t id) const {
    for (const auto& [name, i] : ids) {
      if (i == id) return name;
    }
    return "";
  }
};

const ThreadSampleRecord* FindThread(const SampleCollector& c, uint32_t tid) {
  for (size_t i = 0; i < c.thread_count(); ++i) {
    if (c.thread(i).tid == tid) return &c.thread(i);
  }
  return nullptr;
}

uint64_t TickNs() { return 1000000000ull / sysconf(_SC_CLK_TCK); }

std::string Stat(uint32_t tid, const std::string& comm, char state,
                 uint64_t utime, uint64_t stime, uint64_t blkio = 0,
                 uint64_t minflt = 0, uint64_t majflt = 0, uint32_t threads = 1,
                 uint64_t rss = 0) {
  std::string s = std::to_string(tid) + " (" + comm + ") " + state;
  for (int field = 4; field <= 52; ++field) {
    uint64_t v = 0;
    if (field == 10) v = minflt;
    if (field == 12) v = majflt;
    if (field == 14) v = utime;
    if (field == 15) v = stime;
    if (field == 20) v = threads;
    if (field == 24) v = rss;
    if (field == 42) v = blkio;
    s += ' ';
    s += std::to_string(v);
  }
  return s + "\n";
}

std::string Status(uint64_t vol, uint64_t invol) {
  return "Name:\tx\nvoluntary_ctxt_switches:\t" + std::to_string(vol) +
         "\nnonvoluntary_ctxt_switches:\t" + std::to_string(invol) + "\n";
}

void WriteFixtureProc(const FixtureTree& t) {
  t.Write("proc/self/stat",
          Stat(100, "app", 'S', 700, 300, 0, 5000, 12, 3, 2500));
  t.Write("proc/self/io",
          "rchar: 111\nwchar: 222\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\n"
          "write_bytes: 8192\ncancelled_write_bytes: 0\n");
  t.Write("proc/stat",
          "cpu  1000 10 200 50000 300 4 5 6 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\n"
          "intr 1 2 3\nctxt 10\nbtime 1\nprocesses 9\nprocs_running 4\n"
          "procs_blocked 2\n");
  t.Write("proc/meminfo",
          "MemTotal: 1000 kB\nMemAvailable: 600 kB\nDirty: 20 kB\n"
          "Writeback: 3 kB\n");
  t.Write("proc/loadavg", "2.50 1.00 0.50 3/200 999\n");

  t.Write("proc/self/task/100/stat", Stat(100, "app", 'R', 40, 10));
  t.Write("proc/self/task/100/schedstat", "500000000 100 20\n");
  t.Write("proc/self/task/100/status", Status(10, 2));
  t.Write("proc/self/task/101/stat",
          Stat(101, "worker (io) 1", 'D', 30, 10, /*blkio=*/5));
  t.Write("proc/self/task/101/schedstat", "400000000 100 20\n");
  t.Write("proc/self/task/101/status", Status(70, 8));
  // No schedstat (CONFIG_SCHED_INFO off): CPU time from ticks.
  t.Write("proc/self/task/102/stat", Stat(102, "idle one", 'S', 2, 1));
  t.Write("proc/self/task/102/status", Status(1, 0));
}

CollectorOptions FixtureOptions(const FixtureTree& t) {
  CollectorOptions o;
  o.root = t.root().c_str();
  o.live = false;
  return o;
}

TEST(SampleCollectorFixture, ThreadsProcessAndSystem) {
  FixtureTree t;
  WriteFixtureProc(t);
  SampleCollector c;
  ASSERT_TRUE(c.Open(FixtureOptions(t))) << c.error();
  TestInterner interner;
  c.CollectThreads(&TestInterner::Intern, &interner);
  ASSERT_EQ(c.thread_count(), 3u);

  const ThreadSampleRecord* main = FindThread(c, 100);
  ASSERT_NE(main, nullptr);
  // schedstat 500 ms split 40:10 ticks.
  EXPECT_EQ(main->user_ns, 400000000u);
  EXPECT_EQ(main->system_ns, 100000000u);
  EXPECT_EQ(main->state, kThreadStateRunning);
  EXPECT_EQ(main->voluntary_switches, 10u);
  EXPECT_EQ(main->involuntary_switches, 2u);
  EXPECT_EQ(main->io_wait_ns, 0u);
  EXPECT_EQ(interner.NameOf(main->name_id), "app");

  const ThreadSampleRecord* io = FindThread(c, 101);
  ASSERT_NE(io, nullptr);
  EXPECT_EQ(io->user_ns, 300000000u);
  EXPECT_EQ(io->system_ns, 100000000u);
  EXPECT_EQ(io->state, kThreadStateDiskWait);
  EXPECT_EQ(io->io_wait_ns, 5 * TickNs());
  EXPECT_EQ(io->voluntary_switches, 70u);
  EXPECT_EQ(io->involuntary_switches, 8u);
  EXPECT_EQ(interner.NameOf(io->name_id), "worker (io) 1");

  const ThreadSampleRecord* idle = FindThread(c, 102);
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->user_ns, 2 * TickNs());
  EXPECT_EQ(idle->system_ns, 1 * TickNs());
  EXPECT_EQ(idle->state, kThreadStateSleeping);

  ASSERT_EQ(c.announcement_count(), 3u);
  std::map<uint32_t, ThreadAnnouncement> ann;
  for (size_t i = 0; i < c.announcement_count(); ++i) {
    ann.emplace(c.announcement(i).tid, c.announcement(i));
  }
  EXPECT_EQ(ann.at(100).name, "app");
  EXPECT_TRUE(ann.at(100).is_main);
  EXPECT_EQ(ann.at(101).name, "worker (io) 1");
  EXPECT_FALSE(ann.at(101).is_main);

  ProcessSampleRecord p;
  ASSERT_TRUE(c.CollectProcess(&p));
  EXPECT_EQ(p.minor_faults, 5000u);
  EXPECT_EQ(p.major_faults, 12u);
  EXPECT_EQ(p.num_threads, 3u);
  EXPECT_EQ(p.rss_bytes, 2500u * static_cast<uint64_t>(getpagesize()));
  EXPECT_EQ(p.user_ns, 700 * TickNs());
  EXPECT_EQ(p.system_ns, 300 * TickNs());
  EXPECT_EQ(p.rchar, 111u);
  EXPECT_EQ(p.wchar, 222u);
  EXPECT_EQ(p.syscr, 3u);
  EXPECT_EQ(p.syscw, 4u);
  EXPECT_EQ(p.read_bytes, 4096u);
  EXPECT_EQ(p.write_bytes, 8192u);
  EXPECT_GT(p.ts_ns, 0u);

  SystemSampleRecord s;
  ASSERT_TRUE(c.CollectSystem(&s));
  EXPECT_EQ(s.cpu_user_ns, 1000 * TickNs());
  EXPECT_EQ(s.cpu_nice_ns, 10 * TickNs());
  EXPECT_EQ(s.cpu_system_ns, 200 * TickNs());
  EXPECT_EQ(s.cpu_idle_ns, 50000 * TickNs());
  EXPECT_EQ(s.cpu_iowait_ns, 300 * TickNs());
  EXPECT_EQ(s.cpu_irq_ns, 4 * TickNs());
  EXPECT_EQ(s.cpu_softirq_ns, 5 * TickNs());
  EXPECT_EQ(s.cpu_steal_ns, 6 * TickNs());
  EXPECT_EQ(s.procs_running, 4u);
  EXPECT_EQ(s.procs_blocked, 2u);
  EXPECT_EQ(s.mem_available_bytes, 600u * 1024);
  EXPECT_EQ(s.mem_dirty_bytes, 20u * 1024);
  EXPECT_EQ(s.mem_writeback_bytes, 3u * 1024);
  EXPECT_DOUBLE_EQ(s.load_1m, 2.5);
}

TEST(SampleCollectorFixture, SecondRoundRenamesClampsAndForgets) {
  FixtureTree t;
  WriteFixtureProc(t);
  SampleCollector c;
  CollectorOptions o = FixtureOptions(t);
  o.switches_refresh_rounds = 1;
  o.idle_refresh_rounds = 1000;
  ASSERT_TRUE(c.Open(o)) << c.error();
  TestInterner interner;
  c.CollectThreads(&TestInterner::Intern, &interner);
  ASSERT_EQ(c.thread_count(), 3u);

  // 100 did not run (same on-CPU time) but its status changed: a thread
  // that did not run cannot have switched, so the status is not re-read.
  t.Write("proc/self/task/100/status", Status(99, 99));
  // 101 renamed, and its tick ratio moved so the plain split would shrink
  // user time from 300 ms to 250 ms: it must stay monotonic.
  t.Write("proc/self/task/101/stat", Stat(101, "renamed", 'S', 30, 30));
  t.Write("proc/self/task/101/schedstat", "500000000 100 20\n");
  t.Write("proc/self/task/101/status", Status(75, 9));
  // 102 exited.
  std::filesystem::remove_all(t.root() + "/proc/self/task/102");

  c.CollectThreads(&TestInterner::Intern, &interner);
  ASSERT_EQ(c.thread_count(), 2u);
  EXPECT_EQ(FindThread(c, 102), nullptr);
  const ThreadSampleRecord* main = FindThread(c, 100);
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->voluntary_switches, 10u);
  EXPECT_EQ(main->involuntary_switches, 2u);
  const ThreadSampleRecord* w = FindThread(c, 101);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->user_ns, 300000000u);
  EXPECT_EQ(w->system_ns, 200000000u);
  EXPECT_EQ(w->voluntary_switches, 75u);
  EXPECT_EQ(w->involuntary_switches, 9u);
  EXPECT_EQ(w->state, kThreadStateSleeping);
  EXPECT_EQ(interner.NameOf(w->name_id), "renamed");
  ASSERT_EQ(c.announcement_count(), 1u);
  EXPECT_EQ(c.announcement(0).tid, 101u);
  EXPECT_EQ(c.announcement(0).name, "renamed");
}

TEST(SampleCollectorFixture, IdleThreadsAreReReadOnlyWhenDue) {
  FixtureTree t;
  WriteFixtureProc(t);
  t.Write("proc/self/task/100/stat", Stat(100, "app", 'S', 40, 10));
  SampleCollector c;
  CollectorOptions o = FixtureOptions(t);
  o.idle_refresh_rounds = 4;
  o.switches_refresh_rounds = 4;
  ASSERT_TRUE(c.Open(o)) << c.error();
  c.CollectThreads(nullptr, nullptr);  // round 0: everything is read
  ASSERT_EQ(FindThread(c, 100)->state, kThreadStateSleeping);
  ASSERT_EQ(FindThread(c, 101)->voluntary_switches, 70u);

  // Thread 100 is woken and renamed without having run (same on-CPU
  // time); thread 101 runs and switches once.
  t.Write("proc/self/task/100/stat", Stat(100, "woken", 'R', 40, 10));
  t.Write("proc/self/task/101/stat", Stat(101, "worker (io) 1", 'R', 31, 10));
  t.Write("proc/self/task/101/schedstat", "410000000 100 20\n");
  t.Write("proc/self/task/101/status", Status(71, 8));

  // Thread 100 is due when (round + 100) % 4 == 0 (round 4), thread 101
  // when (round + 101) % 4 == 0 (round 3).
  for (uint32_t round = 1; round <= 4; ++round) {
    c.CollectThreads(nullptr, nullptr);
    const ThreadSampleRecord* idle = FindThread(c, 100);
    const ThreadSampleRecord* busy = FindThread(c, 101);
    ASSERT_NE(idle, nullptr);
    ASSERT_NE(busy, nullptr);
    // A thread that ran has its stat read in the very round.
    EXPECT_EQ(busy->state, kThreadStateRunning) << "round " << round;
    EXPECT_EQ(busy->user_ns + busy->system_ns, 410000000u);
    EXPECT_EQ(idle->state,
              round < 4 ? kThreadStateSleeping : kThreadStateRunning)
        << "round " << round;
    EXPECT_EQ(busy->voluntary_switches, round < 3 ? 70u : 71u)
        << "round " << round;
    EXPECT_EQ(c.announcement_count(), round < 4 ? 0u : 1u);
  }
  EXPECT_EQ(c.announcement(0).name, "woken");
}

TEST(SampleCollectorFixture, ThreadTableCapIsCounted) {
  FixtureTree t;
  WriteFixtureProc(t);
  CollectorOptions o = FixtureOptions(t);
  o.max_threads = 2;
  SampleCollector c;
  ASSERT_TRUE(c.Open(o)) << c.error();
  c.CollectThreads(nullptr, nullptr);
  EXPECT_EQ(c.thread_count(), 2u);
  EXPECT_EQ(c.threads_skipped(), 1u);
}

TEST(SampleCollectorFixture, MissingProcIsAnError) {
  FixtureTree t;
  SampleCollector c;
  EXPECT_FALSE(c.Open(FixtureOptions(t)));
  EXPECT_NE(std::string(c.error()), "");
}

// ----------------------------------------------------------- this process

uint32_t Gettid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// Threads that park on a condition variable until released.
class ParkedThreads {
 public:
  ~ParkedThreads() { Release(); }
  // Starts a thread that runs `work` (may be empty), reports its tid and
  // CPU time, then sleeps until Release().
  void Add(const std::string& name, std::function<void()> work = {}) {
    // Under the lock: growing the vectors moves them, and threads started
    // earlier write their slots at any time.
    std::lock_guard<std::mutex> guard(mutex_);
    const size_t index = threads_.size();
    tids_.push_back(0);
    cpu_ns_.push_back(0);
    threads_.emplace_back([this, index, name, work] {
      pthread_setname_np(pthread_self(), name.c_str());
      if (work) work();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        tids_[index] = Gettid();
        cpu_ns_[index] = ThreadCpuNs();
        ++ready_;
      }
      cv_.notify_all();
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return released_; });
    });
  }
  void WaitReady() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return ready_ == threads_.size(); });
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      released_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  uint32_t tid(size_t i) {
    std::lock_guard<std::mutex> lock(mutex_);
    return tids_[i];
  }
  uint64_t cpu_ns(size_t i) {
    std::lock_guard<std::mutex> lock(mutex_);
    return cpu_ns_[i];
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  size_t ready_ = 0;
  bool released_ = false;
  std::vector<uint32_t> tids_;
  std::vector<uint64_t> cpu_ns_;
  std::vector<std::thread> threads_;
};

// Waits until the kernel shows `tid` sleeping (it may still be on its way
// into the wait right after reporting ready).
void WaitUntilSleeping(uint32_t tid) {
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
  for (int i = 0; i < 1000; ++i) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    const size_t close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() &&
        line[close + 2] == 'S') {
      return;
    }
    usleep(1000);
  }
}

TEST(SampleCollectorLive, BusyThreadCpuTimeMatchesItsOwnClock) {
  ParkedThreads threads;
  threads.Add("burner", [] {
    volatile uint64_t sink = 0;
    const uint64_t start = ThreadCpuNs();
    // Reading the thread CPU clock is a system call on some VMs: spin about
    // a millisecond between reads so the burn stays user time.
    while (ThreadCpuNs() - start < 200000000ull) {
      for (int i = 0; i < 1000000; ++i) sink = sink + static_cast<uint64_t>(i);
    }
  });
  threads.WaitReady();
  WaitUntilSleeping(threads.tid(0));

  SampleCollector c;
  ASSERT_TRUE(c.Open(CollectorOptions{})) << c.error();
  TestInterner interner;
  c.CollectThreads(&TestInterner::Intern, &interner);
  const ThreadSampleRecord* s = FindThread(c, threads.tid(0));
  ASSERT_NE(s, nullptr);
  const uint64_t burned = threads.cpu_ns(0);
  ASSERT_GE(burned, 200000000u);
  const uint64_t sampled = s->user_ns + s->system_ns;
  // The thread ran a few µs more after reading its clock (unlock, notify,
  // wait): allow 2 ms.
  EXPECT_GE(sampled, burned);
  EXPECT_LE(sampled, burned + 2000000u);
  // A spin loop is user time; the tick ratio may put a tick or two in
  // system.
  EXPECT_GE(s->user_ns, sampled * 8 / 10);
  EXPECT_EQ(s->state, kThreadStateSleeping);
  EXPECT_EQ(interner.NameOf(s->name_id), "burner");
}

TEST(SampleCollectorLive, SleepingAndRunningStates) {
  ParkedThreads threads;
  threads.Add("sleeper");
  threads.WaitReady();
  WaitUntilSleeping(threads.tid(0));
  SampleCollector c;
  ASSERT_TRUE(c.Open(CollectorOptions{})) << c.error();
  c.CollectThreads(nullptr, nullptr);
  const ThreadSampleRecord* sleeper = FindThread(c, threads.tid(0));
  ASSERT_NE(sleeper, nullptr);
  EXPECT_EQ(sleeper->state, kThreadStateSleeping);
  // The sampling thread itself is running while it reads its own stat.
  const ThreadSampleRecord* self = FindThread(c, Gettid());
  ASSERT_NE(self, nullptr);
  EXPECT_EQ(self->state, kThreadStateRunning);
  EXPECT_GT(self->user_ns + self->system_ns, 0u);
}

TEST(SampleCollectorLive, SixtyFourThreadsAllSampledAndNamed) {
  ParkedThreads threads;
  for (int i = 0; i < 64; ++i) threads.Add("worker-" + std::to_string(i));
  threads.WaitReady();
  SampleCollector c;
  ASSERT_TRUE(c.Open(CollectorOptions{})) << c.error();
  TestInterner interner;
  c.CollectThreads(&TestInterner::Intern, &interner);
  EXPECT_GE(c.thread_count(), 65u);
  std::map<uint32_t, std::string> announced;
  for (size_t i = 0; i < c.announcement_count(); ++i) {
    announced[c.announcement(i).tid] = std::string(c.announcement(i).name);
  }
  for (int i = 0; i < 64; ++i) {
    const uint32_t tid = threads.tid(static_cast<size_t>(i));
    const ThreadSampleRecord* s = FindThread(c, tid);
    ASSERT_NE(s, nullptr) << "thread " << i << " not sampled";
    EXPECT_EQ(interner.NameOf(s->name_id), "worker-" + std::to_string(i));
    EXPECT_EQ(announced[tid], "worker-" + std::to_string(i));
  }
  EXPECT_TRUE(announced.count(static_cast<uint32_t>(getpid())));
  // Nothing new in the next round.
  c.CollectThreads(&TestInterner::Intern, &interner);
  EXPECT_EQ(c.announcement_count(), 0u);
  EXPECT_GE(c.thread_count(), 65u);
}

// Every descriptor the collector keeps open (the /proc directories, the
// cached stat files) is above the numbers a program expects to get back
// from its own open/dup: the kernel hands out the lowest free number.
TEST(SampleCollectorLive, KeptDescriptorsAreHighPrivateNumbers) {
  ParkedThreads threads;
  for (int i = 0; i < 8; ++i) threads.Add("fd-worker-" + std::to_string(i));
  threads.WaitReady();
  SampleCollector c;
  ASSERT_TRUE(c.Open(CollectorOptions{})) << c.error();
  c.CollectThreads(nullptr, nullptr);
  c.CollectThreads(nullptr, nullptr);
  ASSERT_GE(c.thread_count(), 9u);
  const std::string own = "/proc/" + std::to_string(getpid());
  size_t proc_fds = 0;
  for (int fd = 0; fd < 4096; ++fd) {
    char link[64];
    char target[4096];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    const std::string t(target);
    if (t == "/proc" || t.rfind(own, 0) == 0) {
      ++proc_fds;
      EXPECT_GE(fd, preload::kFirstPrivateFd) << fd << " -> " << t;
    }
  }
  // /proc, /proc/PID, its task directory and a stat file per thread.
  EXPECT_GE(proc_fds, 3u + 9u);
  c.Close();
}

TEST(ProcText, OpenPrivateReturnsAHighDescriptorAndPreadReadsItAll) {
  const int fd = OpenPrivate(AT_FDCWD, "/proc/self/status", O_RDONLY);
  ASSERT_GE(fd, preload::kFirstPrivateFd);
  EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  char a[8192];
  char b[8192];
  const long n = PreadText(fd, a, sizeof a);
  ASSERT_GT(n, 100);
  EXPECT_EQ(std::strlen(a), static_cast<size_t>(n));
  EXPECT_NE(std::string(a).find("Name:"), std::string::npos);
  // pread does not move the offset: a second read sees the file again.
  ASSERT_GT(PreadText(fd, b, sizeof b), 100);
  EXPECT_EQ(std::string(a, 5), std::string(b, 5));
  // A buffer smaller than the file gets its start, NUL-terminated.
  char small[16];
  EXPECT_EQ(PreadText(fd, small, sizeof small), 15);
  EXPECT_EQ(std::string(small), std::string(a, 15));
  close(fd);
  EXPECT_EQ(OpenPrivate(AT_FDCWD, "/proc/self/no-such-file", O_RDONLY), -1);
}

TEST(SampleCollectorLive, NewAndExitedThreadsAreSeenInTheNextRound) {
  SampleCollector c;
  CollectorOptions o;
  o.list_refresh_rounds = 1000000;  // only a change may trigger a listing
  ASSERT_TRUE(c.Open(o)) << c.error();
  c.CollectThreads(nullptr, nullptr);
  c.CollectThreads(nullptr, nullptr);
  const size_t before = c.thread_count();
  {
    ParkedThreads threads;
    threads.Add("late");
    threads.WaitReady();
    c.CollectThreads(nullptr, nullptr);
    EXPECT_EQ(c.thread_count(), before + 1);
    EXPECT_NE(FindThread(c, threads.tid(0)), nullptr);
    ASSERT_EQ(c.announcement_count(), 1u);
    EXPECT_EQ(c.announcement(0).name, "late");
    c.CollectThreads(nullptr, nullptr);  // unchanged: no listing needed
    EXPECT_EQ(c.thread_count(), before + 1);
    EXPECT_NE(FindThread(c, threads.tid(0)), nullptr);
  }  // joined
  c.CollectThreads(nullptr, nullptr);
  EXPECT_EQ(c.thread_count(), before);
}

TEST(SampleCollectorLive, ProcessAndSystemCounters) {
  ParkedThreads threads;
  threads.Add("a");
  threads.Add("b");
  threads.WaitReady();
  SampleCollector c;
  ASSERT_TRUE(c.Open(CollectorOptions{})) << c.error();
  ProcessSampleRecord p;
  ASSERT_TRUE(c.CollectProcess(&p));  // before any listing: from stat
  EXPECT_GE(p.num_threads, 3u);
  EXPECT_GT(p.rss_bytes, 0u);
  c.CollectThreads(nullptr, nullptr);
  ASSERT_TRUE(c.CollectProcess(&p));  // getrusage, statm, the listing
  EXPECT_EQ(p.num_threads, c.thread_count());
  EXPECT_GE(p.num_threads, 3u);
  EXPECT_GT(p.rss_bytes, 0u);
  EXPECT_GT(p.minor_faults, 0u);
  EXPECT_GT(p.user_ns + p.system_ns, 0u);
  SystemSampleRecord s;
  ASSERT_TRUE(c.CollectSystem(&s));
  EXPECT_GT(s.cpu_idle_ns + s.cpu_user_ns, 0u);
  EXPECT_GE(s.procs_running, 1u);  // this thread
  EXPECT_GT(s.mem_available_bytes, 0u);
}

// The storage under the data of the fixture machine (storage_fixture.h):
// its two disks (nvme0n1 under / and /scratch, nvme1n1 under /data) and two
// NFS mounts, sampled with every counter checked.
CollectorOptions StorageOptions(const FixtureTree& t) {
  CollectorOptions o = FixtureOptions(t);
  o.cwd = feedprof::testing::kStorageCwd;
  return o;
}

const DiskSampleRecord* FindDisk(const SampleCollector& c,
                                 const TestInterner& names,
                                 const std::string& name) {
  for (size_t i = 0; i < c.disk_sample_count(); ++i) {
    if (names.NameOf(c.disk_sample(i).device_id) == name) {
      return &c.disk_sample(i);
    }
  }
  return nullptr;
}

const NfsSampleRecord* FindNfs(const SampleCollector& c,
                               const TestInterner& names,
                               const std::string& mount_point) {
  for (size_t i = 0; i < c.nfs_sample_count(); ++i) {
    if (names.NameOf(c.nfs_sample(i).mount_point_id) == mount_point) {
      return &c.nfs_sample(i);
    }
  }
  return nullptr;
}

void ExpectFixtureNfs(const SampleCollector& c, const TestInterner& names) {
  namespace fx = feedprof::testing;
  const NfsSampleRecord* v4 = FindNfs(c, names, "/mnt/nfs");
  ASSERT_NE(v4, nullptr);
  EXPECT_EQ(v4->ops, fx::kNfs4Ops);
  EXPECT_EQ(v4->transmissions, fx::kNfs4Transmissions);
  EXPECT_EQ(v4->major_timeouts, fx::kNfs4MajorTimeouts);
  EXPECT_EQ(v4->rtt_ms, fx::kNfs4RttMs);
  EXPECT_EQ(v4->execute_ms, fx::kNfs4ExecuteMs);
  EXPECT_EQ(v4->read_ops, 4096u);
  EXPECT_EQ(v4->read_bytes, 4295491584u);
  EXPECT_EQ(v4->read_rtt_ms, 20480u);
  EXPECT_GT(v4->ts_ns, 0u);
  const NfsSampleRecord* v3 = FindNfs(c, names, "/mnt/my data");
  ASSERT_NE(v3, nullptr);
  EXPECT_EQ(v3->ops, fx::kNfs3Ops);
  EXPECT_EQ(v3->transmissions, fx::kNfs3Transmissions);
  EXPECT_EQ(v3->major_timeouts, 1u);
  EXPECT_EQ(v3->rtt_ms, fx::kNfs3RttMs);
  EXPECT_EQ(v3->execute_ms, fx::kNfs3ExecuteMs);
  EXPECT_EQ(v3->read_ops, 500u);
  EXPECT_EQ(v3->read_bytes, 32768000u);
  EXPECT_EQ(v3->read_rtt_ms, 4000u);
}

TEST(SampleCollectorStorage, ListsTheDataDisksAndNfsMountsOnce) {
  FixtureTree t;
  WriteFixtureProc(t);
  feedprof::testing::WriteStorageMachine(t);
  SampleCollector c;
  ASSERT_TRUE(c.Open(StorageOptions(t))) << c.error();
  // The working directory's disk first; /scratch's is the same disk.
  ASSERT_EQ(c.data_disk_count(), 2u);
  EXPECT_STREQ(c.data_disk(0), "nvme0n1");
  EXPECT_STREQ(c.data_disk(1), "nvme1n1");
  ASSERT_EQ(c.nfs_mount_count(), 2u);
  EXPECT_STREQ(c.nfs_mount(0), "/mnt/nfs");
  EXPECT_STREQ(c.nfs_mount(1), "/mnt/my data");
  // No working directory under a fixture root unless one is given: then
  // only the command line's mounts.
  SampleCollector without_cwd;
  ASSERT_TRUE(without_cwd.Open(FixtureOptions(t)));
  ASSERT_EQ(without_cwd.data_disk_count(), 2u);
  EXPECT_STREQ(without_cwd.data_disk(0), "nvme1n1");  // /data comes first
  EXPECT_STREQ(without_cwd.data_disk(1), "nvme0n1");  // then /scratch
}

TEST(SampleCollectorStorage, DiskAndNfsCountersWithEveryField) {
  FixtureTree t;
  WriteFixtureProc(t);
  feedprof::testing::WriteStorageMachine(t);
  SampleCollector c;
  ASSERT_TRUE(c.Open(StorageOptions(t))) << c.error();
  TestInterner names;
  c.CollectStorage(&TestInterner::Intern, &names);
  ASSERT_EQ(c.disk_sample_count(), 2u);
  const DiskSampleRecord* nvme0 = FindDisk(c, names, "nvme0n1");
  ASSERT_NE(nvme0, nullptr);
  EXPECT_GT(nvme0->ts_ns, 0u);
  EXPECT_EQ(nvme0->reads, 2893551u);
  EXPECT_EQ(nvme0->reads_merged, 1015u);
  EXPECT_EQ(nvme0->read_bytes, 330581066ull * 512);
  EXPECT_EQ(nvme0->read_ms, 541219u);
  EXPECT_EQ(nvme0->writes, 6148214u);
  EXPECT_EQ(nvme0->writes_merged, 3920483u);
  EXPECT_EQ(nvme0->write_bytes, 214738186ull * 512);
  EXPECT_EQ(nvme0->write_ms, 4302765u);
  EXPECT_EQ(nvme0->in_flight, 3u);
  EXPECT_EQ(nvme0->busy_ms, 2123064u);
  EXPECT_EQ(nvme0->weighted_ms, 5006498u);
  const DiskSampleRecord* nvme1 = FindDisk(c, names, "nvme1n1");
  ASSERT_NE(nvme1, nullptr);
  EXPECT_EQ(nvme1->reads, 10512u);
  EXPECT_EQ(nvme1->reads_merged, 7u);
  EXPECT_EQ(nvme1->read_bytes, 2690816ull * 512);
  EXPECT_EQ(nvme1->read_ms, 1802u);
  EXPECT_EQ(nvme1->writes, 44u);
  EXPECT_EQ(nvme1->writes_merged, 2u);
  EXPECT_EQ(nvme1->write_bytes, 3584ull * 512);
  EXPECT_EQ(nvme1->write_ms, 91u);
  EXPECT_EQ(nvme1->in_flight, 0u);
  EXPECT_EQ(nvme1->busy_ms, 2132u);
  EXPECT_EQ(nvme1->weighted_ms, 1893u);
  ASSERT_EQ(c.nfs_sample_count(), 2u);
  ExpectFixtureNfs(c, names);
  // Each name interned once, and nothing else.
  EXPECT_EQ(names.ids.size(), 4u);
}

// Storage is read on the first call, then every slow_refresh_rounds
// rounds; the calls between yield nothing.
TEST(SampleCollectorStorage, ReadEverySlowRefreshRounds) {
  FixtureTree t;
  WriteFixtureProc(t);
  feedprof::testing::WriteStorageMachine(t);
  SampleCollector c;
  CollectorOptions o = StorageOptions(t);
  o.slow_refresh_rounds = 4;
  ASSERT_TRUE(c.Open(o)) << c.error();
  TestInterner names;
  c.CollectThreads(nullptr, nullptr);  // round 0 done
  c.CollectStorage(&TestInterner::Intern, &names);
  EXPECT_EQ(c.disk_sample_count(), 2u);
  EXPECT_EQ(c.nfs_sample_count(), 2u);
  t.Write("proc/diskstats", feedprof::testing::StorageDiskstats(2900000));
  std::vector<size_t> disks;
  for (int round = 1; round <= 8; ++round) {
    c.CollectThreads(nullptr, nullptr);
    c.CollectStorage(&TestInterner::Intern, &names);
    disks.push_back(c.disk_sample_count());
    EXPECT_EQ(c.nfs_sample_count(), c.disk_sample_count()) << round;
  }
  // Due when the rounds taken are a multiple of 4: after rounds 3 and 7.
  EXPECT_EQ(disks, (std::vector<size_t>{0, 0, 2, 0, 0, 0, 2, 0}));
  c.CollectThreads(nullptr, nullptr);
  c.CollectThreads(nullptr, nullptr);
  c.CollectThreads(nullptr, nullptr);
  c.CollectStorage(&TestInterner::Intern, &names);
  const DiskSampleRecord* nvme0 = FindDisk(c, names, "nvme0n1");
  ASSERT_NE(nvme0, nullptr);
  EXPECT_EQ(nvme0->reads, 2900000u);  // the kept descriptor reads it anew
  EXPECT_EQ(names.ids.size(), 4u);
}

// A Kubernetes node: thousands of mounts before the NFS ones make
// mountstats (~390 KiB here) longer than the 256 KiB read buffer; it is
// read in pieces, and both mounts are found with their whole counts.
TEST(SampleCollectorStorage, MountstatsLongerThanTheBuffer) {
  FixtureTree t;
  WriteFixtureProc(t);
  feedprof::testing::WriteStorageMachine(t, /*mountstats_filler=*/4000);
  ASSERT_GT(feedprof::testing::StorageMountstats(4000).size(), 300u * 1024);
  SampleCollector c;
  ASSERT_TRUE(c.Open(StorageOptions(t))) << c.error();
  TestInterner names;
  c.CollectStorage(&TestInterner::Intern, &names);
  ASSERT_EQ(c.nfs_sample_count(), 2u);
  ExpectFixtureNfs(c, names);
  // A line longer than the buffer (a damaged file) is skipped, not split.
  std::string text = "device x mounted on /y with fstype " +
                     std::string(300 * 1024, 'z') + "\n" +
                     feedprof::testing::StorageMountstats();
  t.Write("proc/self/mountstats", text);
  TestInterner again;
  SampleCollector d;
  ASSERT_TRUE(d.Open(StorageOptions(t))) << d.error();
  d.CollectStorage(&TestInterner::Intern, &again);
  ASSERT_EQ(d.nfs_sample_count(), 2u);
  ExpectFixtureNfs(d, again);
}

// Missing or unreadable files give no samples and no crash; a disk or
// mount that is not in its file is left out alone.
TEST(SampleCollectorStorage, MissingFilesAndMissingEntries) {
  FixtureTree t;
  WriteFixtureProc(t);
  feedprof::testing::WriteStorageMachine(t);
  std::filesystem::remove(t.root() + "/proc/diskstats");
  std::filesystem::remove(t.root() + "/proc/self/mountstats");
  SampleCollector c;
  CollectorOptions o = StorageOptions(t);
  o.slow_refresh_rounds = 1;
  ASSERT_TRUE(c.Open(o)) << c.error();
  TestInterner names;
  c.CollectStorage(&TestInterner::Intern, &names);
  EXPECT_EQ(c.disk_sample_count(), 0u);
  EXPECT_EQ(c.nfs_sample_count(), 0u);
  // Back, read by path (nothing was kept open): nvme1n1 gone from
  // diskstats, only the v3 mount in mountstats.
  std::string diskstats = feedprof::testing::StorageDiskstats();
  diskstats.erase(diskstats.find(" 259       4 nvme1n1"));
  t.Write("proc/diskstats", diskstats);
  t.Write("proc/self/mountstats",
          feedprof::testing::Nfs3Block("/mnt/my\\040data"));
  c.CollectStorage(&TestInterner::Intern, &names);
  ASSERT_EQ(c.disk_sample_count(), 1u);
  EXPECT_EQ(names.NameOf(c.disk_sample(0).device_id), "nvme0n1");
  EXPECT_EQ(c.disk_sample(0).reads, 2893551u);
  ASSERT_EQ(c.nfs_sample_count(), 1u);
  EXPECT_EQ(names.NameOf(c.nfs_sample(0).mount_point_id), "/mnt/my data");
  EXPECT_EQ(c.nfs_sample(0).ops, feedprof::testing::kNfs3Ops);
}

// Without an NFS mount among the data's, mountstats is neither kept open
// nor read; without a disk either, nothing is sampled.
TEST(SampleCollectorStorage, NoNfsMountNoMountstats) {
  FixtureTree t;
  WriteFixtureProc(t);
  feedprof::testing::WriteStorageMachine(t);
  std::string cmdline;
  for (const char* a : {"python3", "train.py", "--data=/data/imagenet"}) {
    cmdline += a;
    cmdline += '\0';
  }
  t.Write("proc/self/cmdline", cmdline);
  SampleCollector c;
  ASSERT_TRUE(c.Open(StorageOptions(t))) << c.error();
  EXPECT_EQ(c.data_disk_count(), 2u);
  EXPECT_EQ(c.nfs_mount_count(), 0u);
  int kept[32];
  const size_t n = c.KeptDescriptors(kept, 32);
  bool diskstats_kept = false;
  for (size_t i = 0; i < n; ++i) {
    char link[64];
    char target[4096];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", kept[i]);
    const ssize_t len = readlink(link, target, sizeof target - 1);
    ASSERT_GT(len, 0);
    const std::string path(target, static_cast<size_t>(len));
    EXPECT_EQ(path.find("mountstats"), std::string::npos) << path;
    diskstats_kept |= path == t.root() + "/proc/diskstats";
  }
  EXPECT_TRUE(diskstats_kept);
  TestInterner names;
  c.CollectStorage(&TestInterner::Intern, &names);
  EXPECT_EQ(c.disk_sample_count(), 2u);
  EXPECT_EQ(c.nfs_sample_count(), 0u);

  FixtureTree bare;
  WriteFixtureProc(bare);
  SampleCollector none;
  ASSERT_TRUE(none.Open(FixtureOptions(bare))) << none.error();
  EXPECT_EQ(none.data_disk_count(), 0u);
  EXPECT_EQ(none.nfs_mount_count(), 0u);
  none.CollectStorage(&TestInterner::Intern, &names);
  EXPECT_EQ(none.disk_sample_count(), 0u);
}

// A fork child keeps the list (it reads the same data) and samples it in
// its first round, naming it again for its own trace.
TEST(SampleCollectorStorage, ReopenAfterForkKeepsTheList) {
  FixtureTree t;
  WriteFixtureProc(t);
  feedprof::testing::WriteStorageMachine(t);
  SampleCollector c;
  ASSERT_TRUE(c.Open(StorageOptions(t))) << c.error();
  TestInterner names;
  c.CollectThreads(nullptr, nullptr);
  c.CollectStorage(&TestInterner::Intern, &names);
  c.CollectThreads(nullptr, nullptr);
  c.CollectStorage(&TestInterner::Intern, &names);
  EXPECT_EQ(c.disk_sample_count(), 0u);  // not due
  // The child's data is the parent's, even if the mounts moved since.
  t.Write("proc/self/mountinfo", "27 1 259:2 / / rw - ext4 /dev/vda1 rw\n");
  ASSERT_TRUE(c.ReopenAfterFork()) << c.error();
  EXPECT_EQ(c.data_disk_count(), 2u);
  EXPECT_EQ(c.nfs_mount_count(), 2u);
  int interned = 0;
  const auto count_interns = [](std::string_view text, void* self) {
    ++*static_cast<int*>(self);
    return text == "nvme0n1" ? 7u : 9u;
  };
  c.CollectStorage(count_interns, &interned);
  EXPECT_EQ(c.disk_sample_count(), 2u);
  EXPECT_EQ(c.nfs_sample_count(), 2u);
  EXPECT_EQ(interned, 4);
  EXPECT_EQ(c.disk_sample(0).device_id, 7u);
  EXPECT_EQ(c.disk_sample(0).reads, 2893551u);
}

// This machine: the working directory's disk, if it has one, from the
// real /proc/diskstats.
TEST(SampleCollectorLive, StorageOfTheWorkingDirectory) {
  SampleCollector c;
  ASSERT_TRUE(c.Open(CollectorOptions{})) << c.error();
  if (c.data_disk_count() == 0) {
    GTEST_SKIP() << "the working directory has no local block device here";
  }
  TestInterner names;
  c.CollectStorage(&TestInterner::Intern, &names);
  ASSERT_GE(c.disk_sample_count(), 1u);
  const DiskSampleRecord& d = c.disk_sample(0);
  EXPECT_EQ(names.NameOf(d.device_id), c.data_disk(0));
  // The disk holding this test binary's directory has been read from.
  EXPECT_GT(d.reads, 0u);
  EXPECT_GT(d.read_bytes, 0u);
  EXPECT_EQ(d.read_bytes % 512, 0u);
}

}  // namespace
}  // namespace feedprof::preload::host
