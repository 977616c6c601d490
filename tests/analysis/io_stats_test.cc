// How the input was read (Report::io, docs/metrics.md "Input reads"): each
// role's read calls from /proc/PID/io counters, the disks and NFS mounts
// under the data, the read pattern, and the io_bound verdict's evidence and
// next steps in the order the pattern calls for.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "feedprof/analysis.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

constexpr int32_t kWorker = 200;
constexpr int kSteps = 20;
constexpr double kStepUs = 6010;  // 1 ms kernel, then 5 ms of host wait

// An io_bound loop: each step a 1 ms kernel, then 5 ms with the launching
// thread in D-state; a "step" range around each.
TimelineBuilder IoBoundLoop() {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < kSteps; ++i) {
    b.Launch(t, t + 5, t + 10, t + 1010);
    b.Range("step", t, t + kStepUs);
    t += kStepUs;
  }
  b.Sample(0, 0, ThreadState::kDiskWait);
  b.Sample(t, 0, ThreadState::kDiskWait);
  b.timeline().available.host_samples = true;
  b.timeline().available.process_io = true;
  Platform::Mount root;
  root.path = ".";
  root.mount_point = "/";
  root.fs_type = "ext4";
  root.source = "/dev/vda";
  root.block_device = "vda";
  b.timeline().platform.working_directory_mount = root;
  return b;
}

// Counters of `pid` at 0 and at the end of the loop: `reads` reads of
// `size` bytes each, `storage_share` of their bytes from storage, spread
// evenly (a sample each millisecond).
// With `own_per_ms`, the recorder's sampler adds that many reads of 300
// bytes a millisecond to the counters, and says so in the profiler_ ones.
void AddReads(TimelineBuilder& b, int32_t pid, uint64_t reads, uint64_t size,
              double storage_share, uint64_t own_per_ms = 0) {
  const double end_us = kSteps * kStepUs;
  const int samples = static_cast<int>(end_us / 1000) + 2;
  for (int k = 0; k < samples; ++k) {
    const double f = std::min(1.0, k * 1000.0 / end_us);
    ProcessSample s;
    s.pid = pid;
    s.ts = Us(std::min(end_us, k * 1000.0));
    s.syscr = 1000 + static_cast<uint64_t>(f * static_cast<double>(reads));
    s.rchar = 50000 + s.syscr * size - 1000 * size;
    s.read_bytes = static_cast<uint64_t>(f * storage_share *
                                         static_cast<double>(reads * size));
    s.syscw = 10 + static_cast<uint64_t>(f * 40);
    s.wchar = s.syscw * 100;
    const uint64_t own = static_cast<uint64_t>(k) * own_per_ms;
    s.profiler_syscr = 777 + own;
    s.profiler_rchar = 300 * (777 + own);
    s.syscr += own;
    s.rchar += 300 * own;
    s.profiler_syscw = 5 + own / 4;  // the trace writes
    s.profiler_wchar = 4096 * s.profiler_syscw;
    s.syscw += own / 4;
    s.wchar += 4096 * (own / 4);
    b.timeline().process_samples.push_back(s);
  }
}

void AddWorker(TimelineBuilder& b, int32_t pid) {
  Process worker;
  worker.pid = pid;
  worker.ppid = TimelineBuilder::kPid;
  worker.origin = "fork";
  worker.command = "pt_data_worker";
  b.timeline().processes.push_back(worker);
}

// Disk vda over the loop: `reads` reads of `size` bytes, `await_ms` each,
// busy `util` of the time.
void AddDisk(TimelineBuilder& b, uint64_t reads, uint64_t size, double await_ms,
             double util) {
  const double end_us = kSteps * kStepUs;
  const StringId vda = b.timeline().strings.Intern("vda");
  for (double t : {0.0, end_us / 2, end_us}) {
    const double f = t / end_us;
    DiskSample d;
    d.pid = TimelineBuilder::kPid;
    d.ts = Us(t);
    d.device = vda;
    d.reads = 5000 + static_cast<uint64_t>(f * static_cast<double>(reads));
    d.read_bytes = d.reads * size;
    d.read_ms =
        static_cast<uint64_t>(f * static_cast<double>(reads) * await_ms);
    d.busy_ms = static_cast<uint64_t>(std::llround(f * util * end_us / 1000));
    d.in_flight = t == end_us / 2 ? 7 : 1;
    b.timeline().disk_samples.push_back(d);
  }
}

const RoleIo& RoleOf(const Report& r, IoRole role) {
  const RoleIo* found = r.io.Role(role);
  if (found == nullptr) {
    ADD_FAILURE() << "no role " << IoRoleName(role);
    static const RoleIo kMissing;
    return kMissing;
  }
  return *found;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(IoStatsTest, SmallReadsFromStorageByWorkersLeadWithShards) {
  TimelineBuilder b = IoBoundLoop();
  AddWorker(b, kWorker);
  AddWorker(b, kWorker + 1);
  AddReads(b, TimelineBuilder::kPid, 100, 4096, 0.0);  // the main process
  AddReads(b, kWorker, 6000, 4096, 0.9);
  AddReads(b, kWorker + 1, 4000, 4096, 0.9);
  AddDisk(b, 9000, 4096, 9.8, 0.99);
  const Report r = MustAnalyze(b.Take());
  ASSERT_EQ(r.verdict.primary, VerdictClass::kIoBound);
  ASSERT_TRUE(r.io.available);
  ASSERT_EQ(r.io.roles.size(), 2u);

  const RoleIo& workers = RoleOf(r, IoRole::kWorkers);
  EXPECT_EQ(workers.processes, 2u);
  EXPECT_EQ(workers.reads, 10000u);
  EXPECT_EQ(workers.read_chars, 10000u * 4096);
  EXPECT_DOUBLE_EQ(workers.mean_read_bytes, 4096);
  EXPECT_NEAR(workers.storage_share, 0.9, 1e-6);
  EXPECT_FALSE(workers.mapped_reads);
  EXPECT_EQ(workers.writes, 80u);
  EXPECT_EQ(workers.write_chars, 8000u);
  // 10,000 reads over 120.2 ms.
  EXPECT_NEAR(workers.reads_per_s, 10000 / 0.1202, 1);
  ASSERT_TRUE(workers.reads_per_step.has_value());
  EXPECT_NEAR(*workers.reads_per_step, 10000.0 / kSteps, 1);
  EXPECT_NEAR(*workers.read_bytes_per_step, 10000.0 * 4096 / kSteps, 4096);
  EXPECT_EQ(r.io.steps, static_cast<uint64_t>(kSteps));

  const RoleIo& main = RoleOf(r, IoRole::kMain);
  EXPECT_EQ(main.processes, 1u);
  EXPECT_EQ(main.reads, 100u);
  EXPECT_DOUBLE_EQ(main.storage_share, 0);

  ASSERT_EQ(r.io.disks.size(), 1u);
  const DiskIo& vda = r.io.disks[0];
  EXPECT_EQ(vda.device, "vda");
  EXPECT_EQ(vda.mount_point, "/");
  EXPECT_EQ(vda.reads, 9000u);
  EXPECT_EQ(vda.read_bytes, 9000u * 4096);
  EXPECT_DOUBLE_EQ(vda.mean_read_bytes, 4096);
  ASSERT_TRUE(vda.read_await_ms.has_value());
  EXPECT_NEAR(*vda.read_await_ms, 9.8, 0.01);
  EXPECT_NEAR(vda.utilization, 0.99, 0.01);
  EXPECT_EQ(vda.max_in_flight, 7u);

  EXPECT_EQ(r.io.reading_role, IoRole::kWorkers);
  EXPECT_EQ(r.io.pattern, IoPattern::kSmallReads);
  ASSERT_GE(r.verdict.next_steps.size(), 3u);
  EXPECT_TRUE(
      r.verdict.next_steps[0].starts_with("Pack the samples into "
                                          "shards"))
      << r.verdict.next_steps[0];
  EXPECT_TRUE(Contains(r.verdict.next_steps[0],
                       "the 2 worker processes made reads of 4.0 KiB on "
                       "average, 90.0% of the bytes from storage"))
      << r.verdict.next_steps[0];
  EXPECT_TRUE(Contains(r.verdict.next_steps[0],
                       "vda (holding /) was 99.0% "
                       "busy"))
      << r.verdict.next_steps[0];
  EXPECT_TRUE(r.verdict.next_steps[1].starts_with("Read from faster storage"));
  // Each I/O step is priced by the input-ready replay.
  bool workers_line = false, disk_line = false;
  for (const std::string& e : r.verdict.evidence) {
    workers_line |= e.starts_with("The 2 worker processes made 10,000 reads") &&
                    Contains(e, "500 and 2.0 MiB a step") &&
                    Contains(e, "90.0% of the bytes from storage");
    disk_line |= e.starts_with("Disk vda (holding /) was 99.0% busy") &&
                 Contains(e, "took 9.8 ms");
  }
  EXPECT_TRUE(workers_line);
  EXPECT_TRUE(disk_line);
}

TEST(IoStatsTest, TheRecordersOwnCallsAreTakenOut) {
  // 8 sampler reads of 300 bytes a millisecond beside 2,000 reads of
  // 64 KiB: left in, they would make the average read 13 KiB.
  TimelineBuilder b = IoBoundLoop();
  AddReads(b, TimelineBuilder::kPid, 2000, 64 * 1024, 1.0, 8);
  const Report r = MustAnalyze(b.Take());
  const RoleIo& main = RoleOf(r, IoRole::kMain);
  EXPECT_EQ(main.reads, 2000u);
  EXPECT_EQ(main.read_chars, 2000u * 64 * 1024);
  EXPECT_DOUBLE_EQ(main.mean_read_bytes, 64 * 1024);
  EXPECT_EQ(main.writes, 40u);
  EXPECT_EQ(main.write_chars, 4000u);
  ASSERT_TRUE(main.reads_per_step.has_value());
  EXPECT_NEAR(*main.reads_per_step, 2000.0 / kSteps, 1);
  EXPECT_EQ(r.io.pattern, IoPattern::kSmallReads);
}

TEST(IoStatsTest, AReapedWorkersCountersAreNotTheParentsReads) {
  // The worker ends halfway; the kernel then adds its totals (the 10,000
  // reads and the 1,000 it made before the loop) to the main process's
  // counters, which must not count them as its own.
  TimelineBuilder b = IoBoundLoop();
  AddWorker(b, kWorker);
  AddReads(b, TimelineBuilder::kPid, 100, 4096, 0.0);
  AddReads(b, kWorker, 10000, 4096, 1.0);
  const TimeNs half = Us(kSteps * kStepUs / 2);
  Timeline& tl = b.timeline();
  ProcessSample worker_end;
  std::erase_if(tl.process_samples, [&](const ProcessSample& s) {
    return s.pid == kWorker && s.ts > half;
  });
  for (const ProcessSample& s : tl.process_samples) {
    if (s.pid == kWorker && s.ts >= worker_end.ts) worker_end = s;
  }
  for (ProcessSample& s : tl.process_samples) {
    if (s.pid != TimelineBuilder::kPid || s.ts <= half + Us(500)) continue;
    s.syscr += worker_end.syscr;
    s.rchar += worker_end.rchar;
    s.read_bytes += worker_end.read_bytes;
    s.syscw += worker_end.syscw;
    s.wchar += worker_end.wchar;
  }
  const Report r = MustAnalyze(b.Take());
  const RoleIo& main = RoleOf(r, IoRole::kMain);
  EXPECT_EQ(main.reads, 100u);
  EXPECT_EQ(main.read_chars, 100u * 4096);
  EXPECT_EQ(main.storage_read_bytes, 0u);
  EXPECT_EQ(main.writes, 40u);
  EXPECT_NEAR(*main.reads_per_step, 100.0 / kSteps, 1);
  const RoleIo& workers = RoleOf(r, IoRole::kWorkers);
  EXPECT_NEAR(static_cast<double>(workers.reads), 5000, 50);
  EXPECT_EQ(r.io.reading_role, IoRole::kWorkers);
}

TEST(IoStatsTest, LargeReadsOnABusyDiskLeadWithFasterStorage) {
  TimelineBuilder b = IoBoundLoop();
  AddReads(b, TimelineBuilder::kPid, 300, 1 << 20, 1.0);
  AddDisk(b, 600, 512 * 1024, 30, 1.0);
  const Report r = MustAnalyze(b.Take());
  ASSERT_EQ(r.verdict.primary, VerdictClass::kIoBound);
  EXPECT_EQ(r.io.pattern, IoPattern::kLargeReads);
  EXPECT_EQ(r.io.reading_role, IoRole::kMain);
  EXPECT_DOUBLE_EQ(RoleOf(r, IoRole::kMain).mean_read_bytes, 1 << 20);
  EXPECT_EQ(r.io.Role(IoRole::kWorkers), nullptr);
  ASSERT_GE(r.verdict.next_steps.size(), 3u);
  EXPECT_TRUE(r.verdict.next_steps[0].starts_with(
      "Read from faster storage or a local cache"))
      << r.verdict.next_steps[0];
  EXPECT_TRUE(Contains(r.verdict.next_steps[0], "1.0 MiB on average"));
  EXPECT_TRUE(r.verdict.next_steps[1].starts_with("Prefetch"));
  EXPECT_TRUE(r.verdict.next_steps[2].starts_with("Pack the samples"));
}

TEST(IoStatsTest, ReadsFromThePageCacheLeadWithPrefetch) {
  TimelineBuilder b = IoBoundLoop();
  AddReads(b, TimelineBuilder::kPid, 5000, 64 * 1024, 0.02);
  const Report r = MustAnalyze(b.Take());
  EXPECT_EQ(r.io.pattern, IoPattern::kPageCache);
  EXPECT_NEAR(RoleOf(r, IoRole::kMain).storage_share, 0.02, 1e-6);
  ASSERT_FALSE(r.verdict.next_steps.empty());
  EXPECT_TRUE(r.verdict.next_steps[0].starts_with("Prefetch"));
  EXPECT_TRUE(Contains(r.verdict.next_steps[0],
                       "2.0% of the bytes from "
                       "storage, so the waits were "
                       "not the disk's"))
      << r.verdict.next_steps[0];
  // No disk samples in the trace, and the data is on a disk: said why.
  EXPECT_TRUE(r.io.disks.empty());
  EXPECT_TRUE(Contains(r.io.disks_unavailable_reason, "/proc/diskstats"));
}

TEST(IoStatsTest, ReadsThroughMemoryMapsAreNotPageCacheReads) {
  TimelineBuilder b = IoBoundLoop();
  AddReads(b, TimelineBuilder::kPid, 200, 4096, 40.0);  // 40x rchar
  const Report r = MustAnalyze(b.Take());
  const RoleIo& main = RoleOf(r, IoRole::kMain);
  EXPECT_TRUE(main.mapped_reads);
  EXPECT_DOUBLE_EQ(main.storage_share, 1.0);
  EXPECT_EQ(r.io.pattern, IoPattern::kSmallReads);
}

TEST(IoStatsTest, NetworkFileSystemLeadsWithStaging) {
  TimelineBuilder b = IoBoundLoop();
  Platform::Mount nfs;
  nfs.path = "/mnt/data";
  nfs.mount_point = "/mnt/data";
  nfs.fs_type = "nfs4";
  nfs.source = "filer:/export/data";
  b.timeline().platform.data_mounts.push_back(nfs);
  AddReads(b, TimelineBuilder::kPid, 3000, 8192, 0.0);
  const StringId mp = b.timeline().strings.Intern("/mnt/data");
  for (int k = 0; k < 2; ++k) {
    NfsSample s;
    s.pid = TimelineBuilder::kPid;
    s.ts = Us(k * kSteps * kStepUs);
    s.mount_point = mp;
    s.ops = 100 + k * 15000;
    s.transmissions = 100 + k * 15120;
    s.major_timeouts = k * 2;
    s.rtt_ms = 50 + k * 63000;
    s.execute_ms = 60 + k * 75000;
    s.read_ops = k * 3000;
    s.read_bytes = k * 3000 * 8192;
    b.timeline().nfs_samples.push_back(s);
  }
  const Report r = MustAnalyze(b.Take());
  EXPECT_EQ(r.io.pattern, IoPattern::kNetworkFs);
  ASSERT_EQ(r.io.network_fs.size(), 1u);
  const NetworkFsIo& n = r.io.network_fs[0];
  EXPECT_EQ(n.mount_point, "/mnt/data");
  EXPECT_EQ(n.fs_type, "nfs4");
  EXPECT_EQ(n.source, "filer:/export/data");
  EXPECT_EQ(n.ops, 15000u);
  EXPECT_EQ(n.retransmissions, 120u);
  EXPECT_EQ(n.major_timeouts, 2u);
  ASSERT_TRUE(n.mean_rtt_ms.has_value());
  EXPECT_NEAR(*n.mean_rtt_ms, 4.2, 1e-9);
  EXPECT_NEAR(*n.mean_execute_ms, 5.0, 1e-9);
  EXPECT_EQ(n.read_ops, 3000u);
  EXPECT_EQ(n.read_bytes, 3000u * 8192);
  ASSERT_FALSE(r.verdict.next_steps.empty());
  EXPECT_TRUE(r.verdict.next_steps[0].starts_with("Stage the dataset"));
  EXPECT_TRUE(Contains(r.verdict.next_steps[0],
                       "nfs4 filer:/export/data on /mnt/data: 15,000 RPCs, "
                       "120 retransmitted (0.8%), 2 timed out, round trip "
                       "4.2 ms on average"))
      << r.verdict.next_steps[0];
}

TEST(IoStatsTest, TooFewReadsKeepTheGeneralOrder) {
  TimelineBuilder b = IoBoundLoop();
  AddReads(b, TimelineBuilder::kPid, 20, 4096, 1.0);
  const Report r = MustAnalyze(b.Take());
  EXPECT_EQ(r.io.pattern, IoPattern::kUnknown);
  EXPECT_EQ(RoleOf(r, IoRole::kMain).reads, 20u);
  ASSERT_GE(r.verdict.next_steps.size(), 3u);
  EXPECT_TRUE(r.verdict.next_steps[0].starts_with(
      "Read from faster storage or a local cache: stage the dataset on "
      "local NVMe or in RAM (/dev/shm). Worth"))
      << r.verdict.next_steps[0];
}

TEST(IoStatsTest, TheWindowBoundsTheCounters) {
  TimelineBuilder b = IoBoundLoop();
  AddReads(b, TimelineBuilder::kPid, 12020, 4096, 1.0);
  AnalysisOptions options;
  options.from = Us(kStepUs * 5);
  options.to = Us(kStepUs * 15);
  const Report r = MustAnalyze(b.Take(), options);
  // The samples each millisecond inside the 10 steps: 60 ms of the
  // 120.2 ms loop, 100 reads a ms.
  const RoleIo& main = RoleOf(r, IoRole::kMain);
  EXPECT_NEAR(static_cast<double>(main.reads), 6000, 200);
  EXPECT_NEAR(main.reads_per_s, 100000, 2000);
}

TEST(IoStatsTest, KinetoTracesSayTheFiguresAreNotThereOnce) {
  TimelineBuilder b = IoBoundLoop();
  b.timeline().format = SourceFormat::kKineto;
  b.timeline().available.process_io = false;
  const Report r = MustAnalyze(b.Take());
  EXPECT_FALSE(r.io.available);
  EXPECT_TRUE(Contains(r.io.unavailable_reason, "PyTorch profiler traces"));
  EXPECT_TRUE(r.io.roles.empty());
  int said = 0;
  for (const std::string& e : r.verdict.evidence) {
    said += Contains(e, "PyTorch profiler traces hold no per-process I/O");
  }
  EXPECT_EQ(said, 1);
}

}  // namespace
}  // namespace feedprof
