// HostSampleBatch and ThreadInfo packets from the hand-written encoder,
// parsed back with libprotobuf field by field.
#include "preload/host/host_sample_batch_encoder.h"

#include <cstdint>
#include <vector>

#include "feedprof.pb.h"
#include "gtest/gtest.h"

namespace feedprof::preload::host {
namespace {

using feedprof::trace::Packet;

ThreadSampleRecord Thread(uint64_t ts, uint32_t tid, uint64_t user) {
  ThreadSampleRecord s;
  s.ts_ns = ts;
  s.tid = tid;
  s.state = kThreadStateDiskWait;
  s.user_ns = user;
  s.system_ns = 3000000;
  s.name_id = 17;
  s.voluntary_switches = 1234;
  s.involuntary_switches = 56;
  s.io_wait_ns = 40000000;
  return s;
}

TEST(HostSampleBatchEncoder, EveryFieldRoundTrips) {
  std::vector<uint8_t> buf(4096);
  HostSampleBatchEncoder enc(buf.data(), buf.size());
  const uint64_t base = 5000000000ull;
  enc.Begin(base);
  ASSERT_TRUE(enc.AddThread(Thread(base + 100, 4242, 150000000)));
  ASSERT_TRUE(enc.AddThread(Thread(base + 90, 4243, 0)));  // earlier: < 0

  ProcessSampleRecord p;
  p.ts_ns = base + 2000;
  p.read_bytes = 1;
  p.write_bytes = 2;
  p.rchar = 3;
  p.wchar = 4;
  p.syscr = 5;
  p.syscw = 6;
  p.minor_faults = 7;
  p.major_faults = 8;
  p.rss_bytes = 9ull << 30;
  p.num_threads = 10;
  p.user_ns = 11;
  p.system_ns = 12;
  ASSERT_TRUE(enc.AddProcess(p));

  SystemSampleRecord s;
  s.ts_ns = base + 3000;
  s.cpu_user_ns = 21;
  s.cpu_nice_ns = 22;
  s.cpu_system_ns = 23;
  s.cpu_idle_ns = 24;
  s.cpu_iowait_ns = 25;
  s.cpu_irq_ns = 26;
  s.cpu_softirq_ns = 27;
  s.cpu_steal_ns = 28;
  s.procs_running = 29;
  s.procs_blocked = 30;
  s.mem_available_bytes = 31;
  s.mem_dirty_bytes = 32;
  s.mem_writeback_bytes = 33;
  s.load_1m = 1.75;
  ASSERT_TRUE(enc.AddSystem(s));
  // A second round: deltas are per field, against the previous sample.
  ASSERT_TRUE(enc.AddThread(Thread(base + 10000100, 4242, 160000000)));
  p.ts_ns = base + 10002000;
  ASSERT_TRUE(enc.AddProcess(p));
  EXPECT_EQ(enc.sample_count(), 6u);

  const size_t size = enc.Finish();
  ASSERT_GT(size, 0u);
  Packet packet;
  ASSERT_TRUE(packet.ParseFromArray(enc.data(), static_cast<int>(size)));
  ASSERT_TRUE(packet.has_host_samples());
  const auto& batch = packet.host_samples();
  EXPECT_EQ(batch.base_ts_ns(), base);
  ASSERT_EQ(batch.threads_size(), 3);
  ASSERT_EQ(batch.process_size(), 2);
  ASSERT_EQ(batch.system_size(), 1);

  const auto& t0 = batch.threads(0);
  EXPECT_EQ(t0.ts_delta(), 100);
  EXPECT_EQ(t0.tid(), 4242u);
  EXPECT_EQ(t0.user_ns(), 150000000u);
  EXPECT_EQ(t0.system_ns(), 3000000u);
  EXPECT_EQ(t0.state(), feedprof::trace::THREAD_STATE_DISK_WAIT);
  EXPECT_EQ(t0.name_id(), 17u);
  EXPECT_EQ(t0.voluntary_switches(), 1234u);
  EXPECT_EQ(t0.involuntary_switches(), 56u);
  EXPECT_EQ(t0.io_wait_ns(), 40000000u);
  EXPECT_EQ(batch.threads(1).ts_delta(), -10);
  EXPECT_EQ(batch.threads(1).tid(), 4243u);
  EXPECT_EQ(batch.threads(1).user_ns(), 0u);
  EXPECT_EQ(batch.threads(2).ts_delta(), 10000100 - 90);
  EXPECT_EQ(batch.threads(2).user_ns(), 160000000u);

  const auto& p0 = batch.process(0);
  EXPECT_EQ(p0.ts_delta(), 2000);
  EXPECT_EQ(p0.read_bytes(), 1u);
  EXPECT_EQ(p0.write_bytes(), 2u);
  EXPECT_EQ(p0.rchar(), 3u);
  EXPECT_EQ(p0.wchar(), 4u);
  EXPECT_EQ(p0.syscr(), 5u);
  EXPECT_EQ(p0.syscw(), 6u);
  EXPECT_EQ(p0.minor_faults(), 7u);
  EXPECT_EQ(p0.major_faults(), 8u);
  EXPECT_EQ(p0.rss_bytes(), 9ull << 30);
  EXPECT_EQ(p0.num_threads(), 10u);
  EXPECT_EQ(p0.user_ns(), 11u);
  EXPECT_EQ(p0.system_ns(), 12u);
  EXPECT_EQ(batch.process(1).ts_delta(), 10000000);

  const auto& s0 = batch.system(0);
  EXPECT_EQ(s0.ts_delta(), 3000);
  EXPECT_EQ(s0.cpu_user_ns(), 21u);
  EXPECT_EQ(s0.cpu_nice_ns(), 22u);
  EXPECT_EQ(s0.cpu_system_ns(), 23u);
  EXPECT_EQ(s0.cpu_idle_ns(), 24u);
  EXPECT_EQ(s0.cpu_iowait_ns(), 25u);
  EXPECT_EQ(s0.cpu_irq_ns(), 26u);
  EXPECT_EQ(s0.cpu_softirq_ns(), 27u);
  EXPECT_EQ(s0.cpu_steal_ns(), 28u);
  EXPECT_EQ(s0.procs_running(), 29u);
  EXPECT_EQ(s0.procs_blocked(), 30u);
  EXPECT_EQ(s0.mem_available_bytes(), 31u);
  EXPECT_EQ(s0.mem_dirty_bytes(), 32u);
  EXPECT_EQ(s0.mem_writeback_bytes(), 33u);
  EXPECT_DOUBLE_EQ(s0.load_1m(), 1.75);
}

// Disk and NFS samples: every field, the deltas of each field against
// its own previous sample, and values past 32 bits (bytes, counters).
TEST(HostSampleBatchEncoder, DiskAndNfsSamplesRoundTrip) {
  std::vector<uint8_t> buf(4096);
  HostSampleBatchEncoder enc(buf.data(), buf.size());
  const uint64_t base = 7000000000ull;
  enc.Begin(base);
  DiskSampleRecord d;
  d.ts_ns = base + 500;
  d.device_id = 3;
  d.reads = 2893551;
  d.reads_merged = 1015;
  d.read_bytes = 330581066ull * 512;
  d.read_ms = 541219;
  d.writes = 6148214;
  d.writes_merged = 3920483;
  d.write_bytes = 214738186ull * 512;
  d.write_ms = 4302765;
  d.in_flight = 3;
  d.busy_ms = 2123064;
  d.weighted_ms = 5006498;
  ASSERT_TRUE(enc.AddDisk(d));
  DiskSampleRecord d2 = d;
  d2.device_id = 4;
  d2.reads = 10512;
  d2.in_flight = 0;
  ASSERT_TRUE(enc.AddDisk(d2));  // same instant: delta 0
  NfsSampleRecord n;
  n.ts_ns = base + 800;
  n.mount_point_id = 5;
  n.ops = 10097;
  n.transmissions = 10100;
  n.major_timeouts = 3;
  n.rtt_ms = 25590;
  n.execute_ms = 26287;
  n.read_ops = 4096;
  n.read_bytes = 4295491584ull;
  n.read_rtt_ms = 20480;
  ASSERT_TRUE(enc.AddNfs(n));
  // The next slow round, 100 ms on; a thread sample between does not move
  // the disks' deltas.
  ASSERT_TRUE(enc.AddThread(Thread(base + 50000000, 4242, 1)));
  d.ts_ns = base + 100000500;
  d.reads += 100;
  ASSERT_TRUE(enc.AddDisk(d));
  n.ts_ns = base + 100000700;
  ASSERT_TRUE(enc.AddNfs(n));
  EXPECT_EQ(enc.sample_count(), 6u);

  const size_t size = enc.Finish();
  ASSERT_GT(size, 0u);
  Packet packet;
  ASSERT_TRUE(packet.ParseFromArray(enc.data(), static_cast<int>(size)));
  const auto& batch = packet.host_samples();
  ASSERT_EQ(batch.disks_size(), 3);
  ASSERT_EQ(batch.nfs_size(), 2);
  ASSERT_EQ(batch.threads_size(), 1);

  const auto& d0 = batch.disks(0);
  EXPECT_EQ(d0.ts_delta(), 500);
  EXPECT_EQ(d0.device_id(), 3u);
  EXPECT_EQ(d0.reads(), 2893551u);
  EXPECT_EQ(d0.reads_merged(), 1015u);
  EXPECT_EQ(d0.read_bytes(), 169257505792u);
  EXPECT_EQ(d0.read_ms(), 541219u);
  EXPECT_EQ(d0.writes(), 6148214u);
  EXPECT_EQ(d0.writes_merged(), 3920483u);
  EXPECT_EQ(d0.write_bytes(), 109945951232u);
  EXPECT_EQ(d0.write_ms(), 4302765u);
  EXPECT_EQ(d0.in_flight(), 3u);
  EXPECT_EQ(d0.busy_ms(), 2123064u);
  EXPECT_EQ(d0.weighted_ms(), 5006498u);
  const auto& d1 = batch.disks(1);
  EXPECT_EQ(d1.ts_delta(), 0);
  EXPECT_EQ(d1.device_id(), 4u);
  EXPECT_EQ(d1.reads(), 10512u);
  EXPECT_EQ(d1.in_flight(), 0u);
  EXPECT_EQ(batch.disks(2).ts_delta(), 100000000);
  EXPECT_EQ(batch.disks(2).reads(), 2893651u);

  const auto& n0 = batch.nfs(0);
  EXPECT_EQ(n0.ts_delta(), 800);
  EXPECT_EQ(n0.mount_point_id(), 5u);
  EXPECT_EQ(n0.ops(), 10097u);
  EXPECT_EQ(n0.transmissions(), 10100u);
  EXPECT_EQ(n0.major_timeouts(), 3u);
  EXPECT_EQ(n0.rtt_ms(), 25590u);
  EXPECT_EQ(n0.execute_ms(), 26287u);
  EXPECT_EQ(n0.read_ops(), 4096u);
  EXPECT_EQ(n0.read_bytes(), 4295491584u);
  EXPECT_EQ(n0.read_rtt_ms(), 20480u);
  EXPECT_EQ(batch.nfs(1).ts_delta(), 99999900);
  EXPECT_EQ(batch.threads(0).ts_delta(), 50000000);
}

TEST(HostSampleBatchEncoder, FullBufferRejectsWholeSamplesOnly) {
  std::vector<uint8_t> buf(256);
  HostSampleBatchEncoder enc(buf.data(), buf.size());
  enc.Begin(1000);
  size_t added = 0;
  while (enc.AddThread(Thread(1000 + added, 100 + added, 1ull << 40))) {
    ++added;
  }
  ASSERT_GT(added, 2u);
  EXPECT_EQ(enc.sample_count(), added);
  const size_t size = enc.Finish();
  ASSERT_GT(size, 0u);
  ASSERT_LE(size, buf.size());
  Packet packet;
  ASSERT_TRUE(packet.ParseFromArray(enc.data(), static_cast<int>(size)));
  ASSERT_EQ(packet.host_samples().threads_size(), static_cast<int>(added));
  EXPECT_EQ(packet.host_samples().threads(static_cast<int>(added) - 1).tid(),
            100 + added - 1);
}

TEST(HostSampleBatchEncoder, EmptyBatchIsNoPacket) {
  std::vector<uint8_t> buf(256);
  HostSampleBatchEncoder enc(buf.data(), buf.size());
  enc.Begin(1);
  EXPECT_EQ(enc.Finish(), 0u);
  ThreadSampleRecord s;
  EXPECT_FALSE(enc.AddThread(s));  // not begun
}

TEST(EncodeThreadInfoPacket, RoundTrips) {
  uint8_t buf[128];
  const size_t n =
      EncodeThreadInfoPacket(77, "data (loader) 3", true, buf, sizeof buf);
  ASSERT_GT(n, 0u);
  Packet packet;
  ASSERT_TRUE(packet.ParseFromArray(buf, static_cast<int>(n)));
  ASSERT_TRUE(packet.has_thread());
  EXPECT_EQ(packet.thread().tid(), 77u);
  EXPECT_EQ(packet.thread().name(), "data (loader) 3");
  EXPECT_TRUE(packet.thread().is_main());
  EXPECT_EQ(EncodeThreadInfoPacket(1, "x", false, buf, 3), 0u);
}

}  // namespace
}  // namespace feedprof::preload::host
