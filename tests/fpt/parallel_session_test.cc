// A session read in parallel is the session read serially: the same
// Timeline, field by field, and the same `feedprof analyze` JSON, byte for
// byte, with 1 read thread and with 4 — and the same as one
// FeedprofTimelineBuilder fed every file in turn (how sessions were read
// before files were read in parallel).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "feedprof/trace_loader.h"
#include "feedprof/trace_reader.h"
#include "fpt/feedprof_timeline_builder.h"
#include "fpt/packet_stream.h"
#include "fpt/trace_files.h"
#include "tests/testing/feedprof_cli_runner.h"
#include "tests/testing/timeline_text.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

using testing::FramePackets;
using testing::TempDir;
using testing::TimelineText;
using testing::WriteFile;

// Sets FEEDPROF_READ_THREADS while it lives.
class ReadThreads {
 public:
  explicit ReadThreads(int n) {
    setenv("FEEDPROF_READ_THREADS", std::to_string(n).c_str(), 1);
  }
  ~ReadThreads() { unsetenv("FEEDPROF_READ_THREADS"); }
};

// FullTracePackets as process `pid` (its threads renumbered alike), with
// its string ids shifted by `id_shift` and its platform left out unless
// `platform`.
std::vector<trace::Packet> ProcessPackets(uint32_t pid, uint32_t id_shift,
                                          bool platform) {
  std::vector<trace::Packet> packets = testing::FullTracePackets();
  const uint32_t tid_shift = pid - 4242;
  auto id = [id_shift](uint32_t local) {
    return local == 0 ? 0 : local + id_shift;
  };
  for (trace::Packet& p : packets) {
    if (p.has_header()) {
      p.mutable_header()->set_pid(pid);
      if (!platform) p.mutable_header()->clear_platform();
    }
    if (p.has_strings()) {
      for (trace::InternedString& s : *p.mutable_strings()->mutable_strings()) {
        s.set_id(id(s.id()));
      }
    }
    if (p.has_call_sites()) {
      for (trace::CallSite& c : *p.mutable_call_sites()->mutable_call_sites()) {
        for (trace::Frame& f : *c.mutable_frames()) {
          f.set_file_id(id(f.file_id()));
          f.set_function_id(id(f.function_id()));
        }
      }
    }
    if (p.has_thread()) {
      p.mutable_thread()->set_tid(p.thread().tid() + tid_shift);
    }
    if (p.has_nvtx_category()) {
      trace::NvtxCategoryName& c = *p.mutable_nvtx_category();
      c.set_domain_id(id(c.domain_id()));
      c.set_name_id(id(c.name_id()));
    }
    if (p.has_events()) {
      trace::EventBatch& b = *p.mutable_events();
      if (b.tid() != 0) b.set_tid(b.tid() + tid_shift);
      for (trace::ApiCall& c : *b.mutable_api_calls()) {
        c.set_name_id(id(c.name_id()));
      }
      for (trace::NvtxRange& r : *b.mutable_ranges()) {
        r.set_name_id(id(r.name_id()));
        r.set_domain_id(id(r.domain_id()));
      }
      for (trace::NvtxMark& m : *b.mutable_marks()) {
        m.set_name_id(id(m.name_id()));
        m.set_domain_id(id(m.domain_id()));
      }
      for (trace::Kernel& k : *b.mutable_kernels()) {
        k.set_name_id(id(k.name_id()));
        // Launch shapes some files share and others add.
        k.set_grid_x(k.grid_x() + pid % 3);
      }
    }
    if (p.has_host_samples()) {
      for (trace::ThreadSample& s :
           *p.mutable_host_samples()->mutable_threads()) {
        s.set_tid(s.tid() + tid_shift);
        s.set_name_id(id(s.name_id()));
      }
    }
    if (p.has_counters()) {
      for (trace::CounterSample& s : *p.mutable_counters()->mutable_samples()) {
        s.set_name_id(id(s.name_id()));
      }
    }
  }
  return packets;
}

trace::Packet NvmlFacts(uint32_t device, const std::string& bus_id,
                        uint32_t power_limit_mw) {
  trace::Packet packet;
  trace::NvmlDevice* d = packet.mutable_nvml_facts()->add_devices();
  d->set_device_id(device);
  d->set_pci_bus_id(bus_id);
  d->set_name("NVIDIA H100");
  d->set_power_limit_mw(power_limit_mw);
  return packet;
}

// A session of eight files covering what crosses files in the reader:
//  a: pid 4242 without a platform snapshot, string ids as written;
//  b: pid 5000 with the platform (the session's platform comes from it),
//     ids shifted, a DtoH copy (a copy-kind name first interned here), a
//     kernel named by an id it never defines, NVML facts, a second
//     process (pid 5001) concatenated after it;
//  c: pid 4242 again (a process whose file was continued): thread 4243
//     renamed by ThreadInfo, thread 4244 named only by a sample, thread
//     4242's sampled name not replacing "python3", device 0 described
//     anew, NVML facts of device 0 again (the first ones stay), written by
//     a newer format version; cut off mid-packet;
//  d: not a trace (skipped with a warning);
//  e..h: small processes 6000..6003 sharing and adding kernel names.
void WriteSession(const TempDir& dir) {
  WriteFile(dir.File("a.fpt"), FramePackets(ProcessPackets(4242, 0, false)));

  std::vector<trace::Packet> b = ProcessPackets(5000, 100, true);
  b.insert(b.begin() + 1, NvmlFacts(0, "00000000:3B:00.0", 500'000));
  b.push_back(testing::StringsPacket({{300, "resnet_block"}}));
  trace::Packet gpu;
  gpu.mutable_events()->set_base_ts_ns(3'100'000);
  trace::Memcpy* copy = gpu.mutable_events()->add_memcpys();
  copy->set_duration_ns(100);
  copy->set_bytes(4096);
  copy->set_copy_kind(trace::COPY_KIND_DTOH);
  trace::Kernel* k = gpu.mutable_events()->add_kernels();
  k->set_start_delta(500);
  k->set_duration_ns(50);
  k->set_name_id(300);
  k = gpu.mutable_events()->add_kernels();
  k->set_start_delta(100);
  k->set_duration_ns(50);
  k->set_name_id(999);  // never defined
  b.push_back(gpu);
  for (const trace::Packet& p :
       testing::SmallProcessPackets(5001, 1, "resnet_block", 3'200'000, 2)) {
    b.push_back(p);
  }
  WriteFile(dir.File("b.fpt"), FramePackets(b));

  std::vector<trace::Packet> c;
  trace::Packet header;
  header.mutable_header()->set_format_version(2);
  header.mutable_header()->set_pid(4242);
  header.mutable_header()->mutable_clock()->set_monotonic_ns(21'000'000);
  c.push_back(header);
  c.push_back(testing::StringsPacket({{1, "late_kernel"},
                                      {2, "main-sampled"},
                                      {3, "worker-4244"},
                                      {4, "Memcpy HtoD"}}));
  trace::Packet thread;
  thread.mutable_thread()->set_tid(4243);
  thread.mutable_thread()->set_name("renamed_worker");
  c.push_back(thread);
  trace::Packet device;
  device.mutable_device()->set_device_id(0);
  device.mutable_device()->set_name("NVIDIA H100 (reset)");
  device.mutable_device()->set_sm_count(114);
  device.mutable_device()->set_pci_bus_id("00000000:AF:00.0");
  c.push_back(device);
  c.push_back(NvmlFacts(0, "00000000:3B:00.0", 400'000));
  trace::Packet samples;
  samples.mutable_host_samples()->set_base_ts_ns(22'000'000);
  trace::ThreadSample* ts = samples.mutable_host_samples()->add_threads();
  ts->set_tid(4242);
  ts->set_name_id(2);
  ts = samples.mutable_host_samples()->add_threads();
  ts->set_tid(4244);
  ts->set_name_id(3);
  c.push_back(samples);
  trace::Packet late;
  late.mutable_events()->set_base_ts_ns(22'500'000);
  k = late.mutable_events()->add_kernels();
  k->set_duration_ns(70);
  k->set_name_id(1);
  copy = late.mutable_events()->add_memcpys();
  copy->set_start_delta(100);
  copy->set_duration_ns(70);
  copy->set_copy_kind(trace::COPY_KIND_HTOD);
  c.push_back(late);
  std::string c_bytes = FramePackets(c);
  c_bytes += FramePackets({late}).substr(0, 9);  // cut mid-packet
  WriteFile(dir.File("c.fpt"), c_bytes);

  WriteFile(dir.File("d.fpt"), "this is not a feedprof trace\n");
  const char* kernels[] = {"volta_sgemm", "resnet_block", "k_e", "volta_sgemm"};
  for (uint32_t i = 0; i < 4; ++i) {
    WriteFile(dir.File(absl::StrFormat("%c.fpt", static_cast<char>('e' + i))),
              FramePackets(testing::SmallProcessPackets(
                  6000 + i, static_cast<int32_t>(i), kernels[i],
                  30'000'000 + i * 1'000, i)));
  }
}

// The session read as it was before the parallel read: one builder fed
// every file in turn, the reader's warnings in the same places.
Timeline ReadWithOneBuilder(const std::string& path) {
  Timeline timeline;
  timeline.format = SourceFormat::kFeedprof;
  timeline.source_path = path;
  fpt::FeedprofTimelineBuilder builder(&timeline);
  std::vector<std::string> unreadable;
  absl::StatusOr<std::vector<std::string>> files = fpt::ListTraceFiles(path);
  EXPECT_TRUE(files.ok()) << files.status();
  if (!files.ok()) return timeline;
  for (const std::string& file : *files) {
    auto stream = fpt::PacketStreamReader::Open(file);
    if (!stream.ok()) {
      unreadable.push_back(std::string(stream.status().message()));
      continue;
    }
    fpt::PacketStreamReader& packets = **stream;
    builder.BeginFile(file);
    while (const trace::Packet* packet = packets.Next()) {
      builder.AddPacket(*packet);
    }
    builder.EndFile();
    if (packets.packets_read() == 0) {
      unreadable.push_back(packets.NoPacketError());
      continue;
    }
    if (std::string damage = packets.DamageWarning(); !damage.empty()) {
      timeline.warnings.push_back(std::move(damage));
    }
    if (packets.repaired_packets() > 0) {
      timeline.warnings.push_back(absl::StrFormat(
          "%s: %d packets held names that are not valid UTF-8; the invalid "
          "bytes are shown as U+FFFD",
          file, packets.repaired_packets()));
    }
  }
  for (std::string& reason : unreadable) {
    timeline.warnings.push_back(reason + " (skipped)");
  }
  builder.Finish();
  return timeline;
}

Timeline ReadWithThreads(const std::string& path, int threads) {
  ReadThreads setting(threads);
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? std::move(*t) : Timeline();
}

class ParallelSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { WriteSession(dir_); }
  TempDir dir_;
};

TEST_F(ParallelSessionTest, SessionCoversWhatCrossesFiles) {
  const Timeline t = ReadWithThreads(dir_.path(), 4);
  // a, b (two processes), c, e..h; d skipped.
  ASSERT_EQ(t.processes.size(), 8u);
  EXPECT_EQ(t.processes[1].pid, 5000);
  EXPECT_EQ(t.processes[2].pid, 5001);
  EXPECT_EQ(t.processes[3].pid, 4242);
  // The platform is b's, the first file with a snapshot.
  EXPECT_EQ(t.platform.cpu_model, "Test Xeon 8480");
  EXPECT_EQ(t.platform.pid, 5000);
  // Thread 4243 of pid 4242 renamed by c; 4242 keeps "python3"; 4244 named
  // by its sample.
  auto thread_name = [&t](int32_t pid, int32_t tid) {
    std::string name = "<no such thread>";
    for (const Thread& th : t.threads) {
      if (th.pid == pid && th.tid == tid) name = th.name;
    }
    return name;
  };
  EXPECT_EQ(thread_name(4242, 4243), "renamed_worker");
  EXPECT_EQ(thread_name(4242, 4242), "python3");
  EXPECT_EQ(thread_name(4242, 4244), "worker-4244");
  // Device 0 of pid 4242 described anew by c, one entry.
  int devices_of_4242 = 0;
  for (const Device& d : t.devices) {
    if (d.pid != 4242) continue;
    ++devices_of_4242;
    EXPECT_EQ(d.name, "NVIDIA H100 (reset)");
    EXPECT_EQ(d.sm_count, 114u);
  }
  EXPECT_EQ(devices_of_4242, 1);
  // NVML facts: b's device 0 of pid 5000 and c's of pid 4242.
  ASSERT_EQ(t.platform.nvml_devices.size(), 2u);
  EXPECT_EQ(t.platform.nvml_devices[0].pid, 5000);
  EXPECT_EQ(t.platform.nvml_devices[1].pid, 4242);
  EXPECT_EQ(t.platform.nvml_devices[1].power_limit_mw, 400'000u);
  // Warnings: b's unknown string, c's newer version and its cut, d skipped
  // last.
  ASSERT_GE(t.warnings.size(), 4u);
  EXPECT_NE(t.warnings[0].find("b.fpt: 1 names refer to string ids"),
            std::string::npos)
      << t.warnings[0];
  EXPECT_NE(t.warnings[1].find("c.fpt: written in trace format version 2"),
            std::string::npos)
      << t.warnings[1];
  EXPECT_NE(t.warnings[2].find("c.fpt"), std::string::npos) << t.warnings[2];
  EXPECT_NE(t.warnings.back().find("d.fpt"), std::string::npos);
  EXPECT_NE(t.warnings.back().find("(skipped)"), std::string::npos);
}

TEST_F(ParallelSessionTest, FourThreadsGiveTheOneThreadTimeline) {
  const std::string one = TimelineText(ReadWithThreads(dir_.path(), 1));
  const std::string four = TimelineText(ReadWithThreads(dir_.path(), 4));
  EXPECT_EQ(testing::FirstDifference(one, four), "");
  // Every other thread count too, the merge window included (2 x threads
  // files ahead).
  for (int threads : {2, 3, 8}) {
    EXPECT_EQ(testing::FirstDifference(
                  one, TimelineText(ReadWithThreads(dir_.path(), threads))),
              "")
        << threads << " threads";
  }
}

TEST_F(ParallelSessionTest, ParallelReadIsTheOneBuilderRead) {
  const std::string serial = TimelineText(ReadWithOneBuilder(dir_.path()));
  EXPECT_EQ(testing::FirstDifference(
                serial, TimelineText(ReadWithThreads(dir_.path(), 4))),
            "");
  EXPECT_EQ(testing::FirstDifference(
                serial, TimelineText(ReadWithThreads(dir_.path(), 1))),
            "");
}

TEST_F(ParallelSessionTest, AnalyzeJsonIsByteIdenticalForOneAndFourThreads) {
  testing::CliResult one;
  testing::CliResult four;
  {
    ReadThreads setting(1);
    one = testing::RunFeedprofCli("analyze --format json " + dir_.path());
  }
  {
    ReadThreads setting(4);
    four = testing::RunFeedprofCli("analyze --format json " + dir_.path());
  }
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(four.exit_code, 0) << four.err;
  EXPECT_GT(one.out.size(), 1000u);
  EXPECT_EQ(one.out, four.out);
  EXPECT_EQ(one.err, four.err);  // the reader's warnings, in one order
}

TEST_F(ParallelSessionTest, ASingleFileReadsAsBefore) {
  const std::string path = dir_.File("b.fpt");
  ReadThreads setting(4);
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(testing::FirstDifference(TimelineText(ReadWithOneBuilder(path)),
                                     TimelineText(*t)),
            "");
  absl::StatusOr<Timeline> bad = ReadFeedprofTrace(dir_.File("d.fpt"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("d.fpt"), std::string::npos);
}

// Ranks on two hosts writing to one shared directory: each host's times
// are on its own monotonic clock. node-b booted 3 days before node-a, so
// its clock reads 3 d more at the same moment; its file moves onto
// node-a's clock by the difference of the hosts' wall-minus-monotonic
// offsets. A second node-a file, whose offset differs by 7 ns of clock
// jitter, is not moved, nor is a container's on node-a under a name of its
// own, 3 us off (less than the 1 ms wall clocks agree to).
TEST(SessionHostClocks, AFurtherHostsFilesMoveOntoTheFirstHostsClock) {
  constexpr uint64_t kDays3 = 259'200'000'000'000;
  constexpr uint64_t kWall = 1'700'000'000'000'000'000;
  TempDir dir;
  auto write = [&dir](const std::string& name, uint32_t pid,
                      const std::string& host, uint64_t kernel_ns,
                      uint64_t realtime_ns) {
    std::vector<trace::Packet> packets =
        testing::SmallProcessPackets(pid, -1, "k_" + name, kernel_ns, 0);
    packets[0].mutable_header()->set_hostname(host);
    packets[0].mutable_header()->mutable_clock()->set_realtime_ns(realtime_ns);
    WriteFile(dir.File(name + ".fpt"), FramePackets(packets));
  };
  // Headers at monotonic kernel - 10: a at 1'000'000 (wall kWall), b 40 ns
  // later, c 90 ns later with 7 ns more on its wall clock.
  write("a", 100, "node-a", 1'000'010, kWall);
  write("b", 200, "node-b", kDays3 + 1'000'050, kWall + 40);
  write("c", 300, "node-a", 1'000'100, kWall + 97);
  write("d", 400, "node-a-pod", 1'000'200, kWall + 3'190);
  for (int threads : {1, 3}) {
    const Timeline t = ReadWithThreads(dir.path(), threads);
    EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
    ASSERT_EQ(t.gpu_ops.size(), 4u);
    EXPECT_EQ(t.gpu_ops[3].pid, 400);
    EXPECT_EQ(t.gpu_ops[3].start, 1'000'200);
    EXPECT_EQ(t.gpu_ops[0].pid, 100);
    EXPECT_EQ(t.gpu_ops[0].start, 1'000'010);
    EXPECT_EQ(t.gpu_ops[1].pid, 200);
    EXPECT_EQ(t.gpu_ops[1].start, 1'000'050);
    EXPECT_EQ(t.gpu_ops[1].end, 1'000'150);
    EXPECT_EQ(t.gpu_ops[2].pid, 300);
    EXPECT_EQ(t.gpu_ops[2].start, 1'000'100);
    ASSERT_EQ(t.api_calls.size(), 4u);
    EXPECT_EQ(t.api_calls[1].pid, 200);
    EXPECT_EQ(t.api_calls[1].start, 1'000'045);
    ASSERT_EQ(t.processes.size(), 4u);
    EXPECT_EQ(t.processes[1].start, 1'000'040);
  }
  // Alone, node-b's file keeps its own clock.
  absl::StatusOr<Timeline> b = ReadFeedprofTrace(dir.File("b.fpt"));
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->gpu_ops.size(), 1u);
  EXPECT_EQ(b->gpu_ops[0].start, static_cast<TimeNs>(kDays3 + 1'000'050));
}

// Wall clocks so far apart that the move would take node-b's times past
// ±2^62 ns: its file stays on its own clock, with a warning.
TEST(SessionHostClocks, AMoveOutOfRangeLeavesTheFileWithAWarning) {
  TempDir dir;
  auto write = [&dir](const std::string& name, uint32_t pid,
                      const std::string& host, uint64_t realtime_ns) {
    std::vector<trace::Packet> packets =
        testing::SmallProcessPackets(pid, -1, "k_" + name, 1'000'010, 0);
    packets[0].mutable_header()->set_hostname(host);
    packets[0].mutable_header()->mutable_clock()->set_realtime_ns(realtime_ns);
    WriteFile(dir.File(name + ".fpt"), FramePackets(packets));
  };
  write("a", 100, "node-a", 9'000'000'000'000'000'000u);
  write("b", 200, "node-b", 1);
  const Timeline t = ReadWithThreads(dir.path(), 2);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0],
            dir.File("b.fpt") +
                ": recorded on node-b, whose clock is -8999999999999999999 ns "
                "from node-a's; its times would leave the range this reader "
                "keeps, so they stay on node-b's own clock");
  ASSERT_EQ(t.gpu_ops.size(), 2u);
  EXPECT_EQ(t.gpu_ops[1].pid, 200);
  EXPECT_EQ(t.gpu_ops[1].start, 1'000'010);
}

// Disk and NFS samples of a session: each file names its disks and
// mounts with ids of its own (the same disk under different ids, different
// mounts under one id), which the read re-interns into the session's
// strings, on 1 thread and on 4; the samples of a further host (node-b,
// booted 3 days earlier) move onto the first host's clock with its other
// events.
TEST(ParallelSessionStorage, NamesAndTimesOfEveryFilesSamples) {
  constexpr uint64_t kDays3 = 259'200'000'000'000;
  constexpr uint64_t kWall = 1'700'000'000'000'000'000;
  TempDir dir;
  for (uint32_t i = 0; i < 4; ++i) {
    const uint64_t start = 1'000'000 + i * 1'000 + (i == 3 ? kDays3 : 0);
    std::vector<trace::Packet> packets = testing::SmallProcessPackets(
        100 + i, -1, "k" + std::to_string(i), start, 0);
    packets[0].mutable_header()->set_hostname(i == 3 ? "node-b" : "node-a");
    packets[0].mutable_header()->mutable_clock()->set_realtime_ns(kWall +
                                                                  i * 1'000);
    packets.push_back(testing::StringsPacket(
        {{10 + i, "nvme0n1"}, {20, i % 2 == 0 ? "/mnt/even" : "/mnt/odd"}}));
    trace::Packet batch;
    batch.mutable_host_samples()->set_base_ts_ns(start + 500);
    trace::DiskSample* d = batch.mutable_host_samples()->add_disks();
    d->set_device_id(10 + i);
    d->set_reads(1000 + i);
    d->set_read_bytes((1000 + i) * 4096);
    trace::NfsSample* n = batch.mutable_host_samples()->add_nfs();
    n->set_ts_delta(7);
    n->set_mount_point_id(20);
    n->set_ops(50 + i);
    n->set_read_bytes(i * 1'048'576);
    packets.push_back(batch);
    WriteFile(dir.File(absl::StrFormat("%c.fpt", static_cast<char>('a' + i))),
              FramePackets(packets));
  }
  const auto storage_text = [](const Timeline& t) {
    std::string text;
    for (const DiskSample& d : t.disk_samples) {
      absl::StrAppendFormat(&text, "disk %d %d %s %d %d\n", d.pid, d.ts,
                            t.strings.Get(d.device), d.reads, d.read_bytes);
    }
    for (const NfsSample& n : t.nfs_samples) {
      absl::StrAppendFormat(&text, "nfs %d %d %s %d %d\n", n.pid, n.ts,
                            t.strings.Get(n.mount_point), n.ops, n.read_bytes);
    }
    return text;
  };
  const std::string expected =
      "disk 100 1000500 nvme0n1 1000 4096000\n"
      "disk 101 1001500 nvme0n1 1001 4100096\n"
      "disk 102 1002500 nvme0n1 1002 4104192\n"
      "disk 103 1003500 nvme0n1 1003 4108288\n"
      "nfs 100 1000507 /mnt/even 50 0\n"
      "nfs 101 1001507 /mnt/odd 51 1048576\n"
      "nfs 102 1002507 /mnt/even 52 2097152\n"
      "nfs 103 1003507 /mnt/odd 53 3145728\n";
  for (int threads : {1, 4}) {
    const Timeline t = ReadWithThreads(dir.path(), threads);
    EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
    EXPECT_EQ(storage_text(t), expected) << threads << " threads";
  }
}

}  // namespace
}  // namespace feedprof
