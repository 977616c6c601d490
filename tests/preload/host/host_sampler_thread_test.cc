// The sampling thread end to end: packets captured from its sink and
// parsed with libprotobuf; stop, drops and fork.
#include "preload/host/host_sampler_thread.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "feedprof.pb.h"
#include "gtest/gtest.h"
#include "tests/preload/host/storage_fixture.h"

namespace feedprof::preload::host {
namespace {

using feedprof::trace::Packet;

// Collects what the sampler submits. Called from the sampler thread.
struct CapturingSink {
  std::mutex mutex;
  std::vector<std::vector<uint8_t>> packets;
  std::map<std::string, uint32_t> names;
  uint64_t dropped = 0;
  bool accept = true;

  static bool Submit(const uint8_t* data, size_t size, void* self) {
    auto* s = static_cast<CapturingSink*>(self);
    std::lock_guard<std::mutex> lock(s->mutex);
    if (!s->accept) return false;
    s->packets.emplace_back(data, data + size);
    return true;
  }
  static uint32_t Intern(std::string_view text, void* self) {
    auto* s = static_cast<CapturingSink*>(self);
    std::lock_guard<std::mutex> lock(s->mutex);
    auto [it, inserted] = s->names.emplace(
        std::string(text), static_cast<uint32_t>(s->names.size() + 1));
    return it->second;
  }
  static void Drop(uint64_t n, void* self) {
    auto* s = static_cast<CapturingSink*>(self);
    std::lock_guard<std::mutex> lock(s->mutex);
    s->dropped += n;
  }
  SamplerSinks Sinks() {
    SamplerSinks sinks;
    sinks.submit_packet = &Submit;
    sinks.intern_string = &Intern;
    sinks.count_dropped_samples = &Drop;
    sinks.context = this;
    return sinks;
  }
  std::vector<Packet> Parsed() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<Packet> out;
    for (const auto& bytes : packets) {
      Packet p;
      EXPECT_TRUE(
          p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
      out.push_back(p);
    }
    return out;
  }
};

uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

TEST(HostSamplerThread, SamplesBatchesAndAnnouncesThreads) {
  CapturingSink sink;
  HostSamplerThread sampler;
  SamplerOptions options;
  options.interval_ns = 10000000;
  options.flush_interval_ns = 100000000;
  ASSERT_TRUE(sampler.Init(options, sink.Sinks())) << sampler.error();
  ASSERT_TRUE(sampler.Start()) << sampler.error();

  std::atomic<uint32_t> burner_tid{0};
  std::atomic<uint64_t> burned{0};
  std::mutex mutex;
  std::condition_variable cv;
  bool release = false;
  std::thread burner([&] {
    pthread_setname_np(pthread_self(), "burner");
    burner_tid = static_cast<uint32_t>(syscall(SYS_gettid));
    volatile uint64_t x = 0;
    const uint64_t start = ThreadCpuNs();
    while (ThreadCpuNs() - start < 150000000ull) x = x + 1;
    burned = ThreadCpuNs();
    // Stay alive, asleep, while the sampler takes a few more rounds.
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return release; });
  });
  while (burned.load() == 0) usleep(1000);
  const uint64_t seen = sampler.rounds();
  for (int i = 0; i < 5000 && sampler.rounds() < seen + 3; ++i) usleep(1000);
  {
    std::lock_guard<std::mutex> lock(mutex);
    release = true;
  }
  cv.notify_all();
  burner.join();
  usleep(30000);
  sampler.Stop();
  sampler.Stop();  // idempotent
  EXPECT_FALSE(sampler.running());
  EXPECT_GE(sampler.rounds(), 10u);

  const std::vector<Packet> packets = sink.Parsed();
  std::map<uint32_t, std::string> thread_names;
  int batches = 0;
  std::vector<uint64_t> burner_cpu;
  std::vector<uint64_t> burner_ts;
  size_t process_samples = 0;
  size_t system_samples = 0;
  for (const Packet& p : packets) {
    if (p.has_thread()) thread_names[p.thread().tid()] = p.thread().name();
    if (!p.has_host_samples()) continue;
    ++batches;
    const auto& b = p.host_samples();
    uint64_t ts = b.base_ts_ns();
    for (const auto& t : b.threads()) {
      ts += static_cast<uint64_t>(t.ts_delta());
      if (t.tid() == burner_tid.load()) {
        burner_cpu.push_back(t.user_ns() + t.system_ns());
        burner_ts.push_back(ts);
      }
    }
    process_samples += static_cast<size_t>(b.process_size());
    system_samples += static_cast<size_t>(b.system_size());
  }
  // ~250 ms of sampling with a flush every 100 ms: several packets.
  EXPECT_GE(batches, 2);
  EXPECT_EQ(process_samples, sampler.rounds());
  EXPECT_EQ(system_samples, sampler.rounds());
  EXPECT_EQ(thread_names[burner_tid.load()], "burner");
  EXPECT_EQ(thread_names[static_cast<uint32_t>(getpid())].empty(), false);
  bool saw_sampler = false;
  for (const auto& [tid, name] : thread_names) {
    if (name == kSamplerThreadComm) saw_sampler = true;
  }
  EXPECT_TRUE(saw_sampler) << "the sampler thread must name itself";
  ASSERT_GE(burner_cpu.size(), 5u);
  for (size_t i = 1; i < burner_cpu.size(); ++i) {
    EXPECT_GE(burner_cpu[i], burner_cpu[i - 1]) << "CPU time went back";
    EXPECT_GT(burner_ts[i], burner_ts[i - 1]);
  }
  // The last samples come after the burn: within 2 ms of its own clock.
  EXPECT_GE(burner_cpu.back(), burned);
  EXPECT_LE(burner_cpu.back(), burned + 2000000u);
  EXPECT_EQ(sink.dropped, 0u);
}

TEST(HostSamplerThread, RejectedPacketsAreCountedAsDroppedSamples) {
  CapturingSink sink;
  sink.accept = false;
  HostSamplerThread sampler;
  ASSERT_TRUE(sampler.Init(SamplerOptions{}, sink.Sinks()));
  sampler.SampleRound();
  sampler.FlushBatch();
  // Every thread sample plus one process and one system sample.
  EXPECT_GE(sink.dropped, 3u);
  sampler.Release();
}

TEST(HostSamplerThread, SmallPacketBufferSplitsRoundsIntoPackets) {
  CapturingSink sink;
  HostSamplerThread sampler;
  SamplerOptions options;
  options.packet_bytes = 512;
  ASSERT_TRUE(sampler.Init(options, sink.Sinks()));
  std::vector<std::thread> threads;
  std::atomic<bool> done{false};
  for (int i = 0; i < 80; ++i) {
    threads.emplace_back([&] {
      while (!done) usleep(1000);
    });
  }
  sampler.SampleRound();
  sampler.FlushBatch();
  done = true;
  for (auto& t : threads) t.join();
  size_t thread_samples = 0;
  int batches = 0;
  for (const Packet& p : sink.Parsed()) {
    if (!p.has_host_samples()) continue;
    ++batches;
    thread_samples += static_cast<size_t>(p.host_samples().threads_size());
  }
  EXPECT_GE(batches, 2);
  EXPECT_EQ(thread_samples, sampler.collector().thread_count());
  EXPECT_GE(thread_samples, 81u);
  EXPECT_EQ(sink.dropped, 0u);
}

// The data's disks and NFS mounts of a fixture machine reach the batches:
// on the first round and every slow_refresh_rounds after, named with the
// sink's interned ids, each kind delta-encoded on its own.
TEST(HostSamplerThread, DataDisksAndNfsMountsEverySlowRound) {
  feedprof::testing::FixtureTree t;
  t.MakeDir("proc/self/task");
  feedprof::testing::WriteStorageMachine(t);
  CapturingSink sink;
  HostSamplerThread sampler;
  SamplerOptions options;
  options.collector.root = t.root().c_str();
  options.collector.live = false;
  options.collector.cwd = feedprof::testing::kStorageCwd;
  options.collector.slow_refresh_rounds = 5;
  options.python_stack_every_rounds = 0;
  ASSERT_TRUE(sampler.Init(options, sink.Sinks())) << sampler.error();
  for (int i = 0; i < 11; ++i) sampler.SampleRound();
  sampler.FlushBatch();
  std::map<uint32_t, std::string> names;
  for (const auto& [name, id] : sink.names) names[id] = name;
  std::vector<std::pair<uint64_t, std::string>> disks;
  std::vector<std::pair<uint64_t, std::string>> mounts;
  uint64_t nvme0_reads = 0;
  uint64_t nfs_read_bytes = 0;
  for (const Packet& p : sink.Parsed()) {
    if (!p.has_host_samples()) continue;
    const auto& b = p.host_samples();
    uint64_t ts = b.base_ts_ns();
    for (const auto& d : b.disks()) {
      ts += static_cast<uint64_t>(d.ts_delta());
      disks.emplace_back(ts, names[d.device_id()]);
      if (names[d.device_id()] == "nvme0n1") nvme0_reads = d.reads();
    }
    ts = b.base_ts_ns();
    for (const auto& n : b.nfs()) {
      ts += static_cast<uint64_t>(n.ts_delta());
      mounts.emplace_back(ts, names[n.mount_point_id()]);
      if (names[n.mount_point_id()] == "/mnt/nfs") {
        nfs_read_bytes = n.read_bytes();
      }
    }
  }
  // Rounds 1, 5 and 10: three samples of each disk and mount.
  ASSERT_EQ(disks.size(), 6u);
  ASSERT_EQ(mounts.size(), 6u);
  for (size_t i = 0; i < 6; i += 2) {
    EXPECT_EQ(disks[i].second, "nvme0n1");
    EXPECT_EQ(disks[i + 1].second, "nvme1n1");
    EXPECT_EQ(mounts[i].second, "/mnt/nfs");
    EXPECT_EQ(mounts[i + 1].second, "/mnt/my data");
    EXPECT_EQ(disks[i].first, disks[i + 1].first);  // one read of the file
    if (i > 0) {
      EXPECT_GT(disks[i].first, disks[i - 2].first);
    }
  }
  EXPECT_EQ(nvme0_reads, 2893551u);
  EXPECT_EQ(nfs_read_bytes, 4295491584u);
  EXPECT_EQ(sink.dropped, 0u);
  sampler.Release();
}

size_t OpenDescriptors() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator("/proc/self/fd")) {
    ++n;
  }
  return n;
}

TEST(HostSamplerThread, ThreadChurnLeaksNoDescriptors) {
  const size_t fds_before = OpenDescriptors();
  CapturingSink sink;
  auto sampler = std::make_unique<HostSamplerThread>();
  SamplerOptions options;
  options.interval_ns = 1000000;  // 1 kHz: many rounds during the churn
  ASSERT_TRUE(sampler->Init(options, sink.Sinks()));
  ASSERT_TRUE(sampler->Start());
  std::set<uint32_t> churned;
  for (int wave = 0; wave < 30; ++wave) {
    std::vector<std::thread> threads;
    std::mutex mutex;
    for (int i = 0; i < 8; ++i) {
      threads.emplace_back([&] {
        {
          std::lock_guard<std::mutex> lock(mutex);
          churned.insert(static_cast<uint32_t>(syscall(SYS_gettid)));
        }
        usleep(2000);
      });
    }
    for (auto& t : threads) t.join();
  }
  const uint64_t rounds_during = sampler->rounds();
  usleep(20000);
  sampler->Stop();
  sampler->Release();
  EXPECT_GE(rounds_during, 20u);
  // Only the two eventfds of its wake-up channel, kept while it exists.
  EXPECT_EQ(OpenDescriptors(), fds_before + 2);
  sampler.reset();
  EXPECT_EQ(OpenDescriptors(), fds_before);
  size_t sampled_churned = 0;
  std::set<uint32_t> seen;
  for (const Packet& p : sink.Parsed()) {
    if (!p.has_host_samples()) continue;
    for (const auto& t : p.host_samples().threads()) seen.insert(t.tid());
  }
  for (uint32_t tid : churned) sampled_churned += seen.count(tid);
  // Threads living 2 ms, sampled every 1 ms: most are caught.
  EXPECT_GT(sampled_churned, churned.size() / 4);
  EXPECT_EQ(sink.dropped, 0u);
}

TEST(HostSamplerThread, RequestFlushSubmitsTheOpenBatchAtOnce) {
  CapturingSink sink;
  HostSamplerThread sampler;
  EXPECT_FALSE(sampler.RequestFlush(1000));  // not running: at once
  SamplerOptions options;
  options.interval_ns = 1000000;              // 1 kHz
  options.flush_interval_ns = 3600000000000;  // never on its own
  ASSERT_TRUE(sampler.Init(options, sink.Sinks()));
  ASSERT_TRUE(sampler.Start());
  while (sampler.rounds() < 5) usleep(1000);
  const auto host_batches = [&] {
    size_t n = 0;
    for (const Packet& p : sink.Parsed()) n += p.has_host_samples() ? 1 : 0;
    return n;
  };
  EXPECT_EQ(host_batches(), 0u);
  ASSERT_TRUE(sampler.RequestFlush(5000));
  // Submitted before RequestFlush returned: one batch of >= 5 rounds.
  ASSERT_EQ(host_batches(), 1u);
  size_t process_samples = 0;
  for (const Packet& p : sink.Parsed()) {
    if (p.has_host_samples()) {
      process_samples += static_cast<size_t>(p.host_samples().process_size());
    }
  }
  EXPECT_GE(process_samples, 5u);
  sampler.Stop();
  EXPECT_FALSE(sampler.RequestFlush(1000));
  sampler.Release();
}

// The same request from a signal handler, as the SIGTERM flush makes it.
HostSamplerThread* g_signal_sampler = nullptr;
std::atomic<int> g_signal_flush_result{-1};

void FlushFromHandler(int) {
  g_signal_flush_result.store(g_signal_sampler->RequestFlush(5000) ? 1 : 0);
}

TEST(HostSamplerThread, RequestFlushWorksFromASignalHandler) {
  CapturingSink sink;
  HostSamplerThread sampler;
  SamplerOptions options;
  options.interval_ns = 1000000;
  options.flush_interval_ns = 3600000000000;
  ASSERT_TRUE(sampler.Init(options, sink.Sinks()));
  ASSERT_TRUE(sampler.Start());
  while (sampler.rounds() < 3) usleep(1000);
  g_signal_sampler = &sampler;
  g_signal_flush_result.store(-1);
  struct sigaction action = {};
  struct sigaction previous = {};
  action.sa_handler = &FlushFromHandler;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);
  raise(SIGUSR1);
  sigaction(SIGUSR1, &previous, nullptr);
  EXPECT_EQ(g_signal_flush_result.load(), 1);
  size_t batches = 0;
  for (const Packet& p : sink.Parsed()) batches += p.has_host_samples();
  EXPECT_EQ(batches, 1u);
  sampler.Stop();
  sampler.Release();
}

TEST(HostSamplerThread, ForkedChildRestartsAndSamplesItself) {
  CapturingSink sink;
  HostSamplerThread sampler;
  SamplerOptions options;
  options.flush_interval_ns = 20000000;
  ASSERT_TRUE(sampler.Init(options, sink.Sinks()));
  ASSERT_TRUE(sampler.Start());
  usleep(30000);
  {
    std::lock_guard<std::mutex> lock(sink.mutex);
    sink.packets.clear();
  }
  const pid_t parent = getpid();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // In the child: packets captured before the fork are the parent's.
    sink.packets.clear();
    if (!sampler.RestartAfterFork()) _exit(10);
    usleep(100000);
    sampler.Stop();
    bool saw_child = false;
    for (const Packet& p : sink.Parsed()) {
      if (!p.has_host_samples()) continue;
      for (const auto& t : p.host_samples().threads()) {
        if (t.tid() == static_cast<uint32_t>(parent)) _exit(11);
        if (t.tid() == static_cast<uint32_t>(getpid())) saw_child = true;
      }
    }
    _exit(saw_child ? 0 : 12);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "10: restart failed, 11: child sampled the parent's threads, "
         "12: child did not sample itself";
  sampler.Stop();
  EXPECT_FALSE(sampler.running());
}

}  // namespace
}  // namespace feedprof::preload::host
