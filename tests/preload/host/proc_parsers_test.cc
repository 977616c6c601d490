// Parsing of the procfs files the host sampler reads, from fixture text.
#include "preload/host/proc_parsers.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "preload/host/host_sample_records.h"
#include "preload/host/proc_text.h"
#include "tests/preload/host/storage_fixture.h"

namespace feedprof::preload::host {
namespace {

// A /proc/T/stat line with fields 3..52; field N gets `values[N]` when set,
// else N * 100 (so a parser reading the wrong field gets a wrong number).
std::string StatLine(const std::string& tid, const std::string& comm,
                     char state, std::vector<std::pair<int, uint64_t>> set) {
  std::string line = tid + " (" + comm + ") " + state;
  for (int field = 4; field <= 52; ++field) {
    uint64_t v = static_cast<uint64_t>(field) * 100;
    for (const auto& [f, value] : set) {
      if (f == field) v = value;
    }
    line += " " + std::to_string(v);
  }
  return line + "\n";
}

TEST(ParseTaskStat, ReadsTheNumberedFields) {
  const std::string line = StatLine(
      "4242", "python3", 'R',
      {{10, 11}, {12, 3}, {14, 250}, {15, 40}, {20, 9}, {24, 5000}, {42, 7}});
  TaskStat st;
  ASSERT_TRUE(ParseTaskStat(line, &st));
  EXPECT_EQ(st.tid, 4242u);
  EXPECT_EQ(st.comm, "python3");
  EXPECT_EQ(st.state, 'R');
  EXPECT_EQ(st.minor_faults, 11u);
  EXPECT_EQ(st.major_faults, 3u);
  EXPECT_EQ(st.utime_ticks, 250u);
  EXPECT_EQ(st.stime_ticks, 40u);
  EXPECT_EQ(st.num_threads, 9u);
  EXPECT_EQ(st.rss_pages, 5000u);
  EXPECT_EQ(st.blkio_ticks, 7u);
}

TEST(ParseTaskStat, NameWithSpacesAndParentheses) {
  const std::string comm = "a) b (c) R 9";  // looks like the next fields
  const std::string line =
      StatLine("17", comm, 'D', {{14, 1234}, {15, 56}, {42, 0}});
  TaskStat st;
  ASSERT_TRUE(ParseTaskStat(line, &st));
  EXPECT_EQ(st.tid, 17u);
  EXPECT_EQ(st.comm, comm);
  EXPECT_EQ(st.state, 'D');
  EXPECT_EQ(st.utime_ticks, 1234u);
  EXPECT_EQ(st.stime_ticks, 56u);
  EXPECT_EQ(st.blkio_ticks, 0u);
}

TEST(ParseTaskStat, EmptyNameAndOldKernelWithoutField42) {
  // Kernels before 2.6.18 end at field 41; the parser must not invent 42.
  std::string line = "5 () S";
  for (int field = 4; field <= 41; ++field) line += " " + std::to_string(field);
  TaskStat st;
  ASSERT_TRUE(ParseTaskStat(line, &st));
  EXPECT_EQ(st.comm, "");
  EXPECT_EQ(st.utime_ticks, 14u);
  EXPECT_EQ(st.blkio_ticks, 0u);
}

TEST(ParseTaskStat, RejectsCutLines) {
  TaskStat st;
  EXPECT_FALSE(ParseTaskStat("", &st));
  EXPECT_FALSE(ParseTaskStat("12 (name S 1 2 3", &st));
  EXPECT_FALSE(ParseTaskStat("12 (name) S 1 2 3 4 5 6 7 8 9 10", &st));
}

TEST(ParseContextSwitches, ReadsBothCounters) {
  const std::string status =
      "Name:\tworker\nState:\tS (sleeping)\nThreads:\t4\n"
      "voluntary_ctxt_switches:\t1523\n"
      "nonvoluntary_ctxt_switches:\t87\n";
  ContextSwitches cs;
  ASSERT_TRUE(ParseContextSwitches(status, &cs));
  EXPECT_EQ(cs.voluntary, 1523u);
  EXPECT_EQ(cs.involuntary, 87u);
  EXPECT_FALSE(ParseContextSwitches("Name:\tx\n", &cs));
}

TEST(ParseSchedstatRunNs, FirstFieldIsOnCpuNs) {
  uint64_t ns = 0;
  ASSERT_TRUE(ParseSchedstatRunNs("123456789 2000 31\n", &ns));
  EXPECT_EQ(ns, 123456789u);
  EXPECT_FALSE(ParseSchedstatRunNs("", &ns));
}

TEST(ParseProcessIo, ReadsAllSixCounters) {
  const std::string io =
      "rchar: 1000\nwchar: 2000\nsyscr: 30\nsyscw: 40\n"
      "read_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 512\n";
  ProcessIo p;
  ASSERT_TRUE(ParseProcessIo(io, &p));
  EXPECT_EQ(p.rchar, 1000u);
  EXPECT_EQ(p.wchar, 2000u);
  EXPECT_EQ(p.syscr, 30u);
  EXPECT_EQ(p.syscw, 40u);
  EXPECT_EQ(p.read_bytes, 4096u);
  EXPECT_EQ(p.write_bytes, 8192u);
  EXPECT_FALSE(ParseProcessIo("", &p));
}

TEST(ParseProcStat, AggregateCpuLineAndRunQueue) {
  const std::string stat =
      "cpu  100 2 30 4000 50 6 7 8 0 0\n"
      "cpu0 50 1 15 2000 25 3 3 4 0 0\n"
      "cpu1 50 1 15 2000 25 3 4 4 0 0\n"
      "intr 123456 0 9 0 0 0 0 0\n"
      "ctxt 999\nbtime 1700000000\nprocesses 4321\n"
      "procs_running 3\nprocs_blocked 2\n"
      "softirq 1 2 3\n";
  SystemCpu cpu;
  ASSERT_TRUE(ParseProcStat(stat, &cpu));
  EXPECT_EQ(cpu.user, 100u);
  EXPECT_EQ(cpu.nice, 2u);
  EXPECT_EQ(cpu.system, 30u);
  EXPECT_EQ(cpu.idle, 4000u);
  EXPECT_EQ(cpu.iowait, 50u);
  EXPECT_EQ(cpu.irq, 6u);
  EXPECT_EQ(cpu.softirq, 7u);
  EXPECT_EQ(cpu.steal, 8u);
  EXPECT_EQ(cpu.procs_running, 3u);
  EXPECT_EQ(cpu.procs_blocked, 2u);
  EXPECT_FALSE(ParseProcStat("cpu0 1 2 3\n", &cpu));
}

TEST(ParseMeminfo, BytesFromKilobytes) {
  const std::string meminfo =
      "MemTotal:       16303412 kB\nMemFree:         1000000 kB\n"
      "MemAvailable:    8000000 kB\nDirty:               120 kB\n"
      "Writeback:            4 kB\nWritebackTmp:        99 kB\n";
  MemInfo m;
  ASSERT_TRUE(ParseMeminfo(meminfo, &m));
  EXPECT_EQ(m.total_bytes, 16303412ull * 1024);
  EXPECT_EQ(m.available_bytes, 8000000ull * 1024);
  EXPECT_EQ(m.dirty_bytes, 120ull * 1024);
  EXPECT_EQ(m.writeback_bytes, 4ull * 1024);
}

TEST(ParseMeminfo, NumaNodeFilePrefix) {
  MemInfo m;
  ASSERT_TRUE(ParseMeminfo(
      "Node 1 MemTotal:       65536 kB\nNode 1 MemFree:  1 kB\n", &m));
  EXPECT_EQ(m.total_bytes, 65536ull * 1024);
}

TEST(ParseLoadavg1m, LocaleIndependentDecimal) {
  double load = 0;
  ASSERT_TRUE(ParseLoadavg1m("0.52 0.58 0.59 2/345 12345\n", &load));
  EXPECT_DOUBLE_EQ(load, 0.52);
  ASSERT_TRUE(ParseLoadavg1m("12.25 1 1 1/1 1\n", &load));
  EXPECT_DOUBLE_EQ(load, 12.25);
  EXPECT_FALSE(ParseLoadavg1m("", &load));
}

TEST(ParseNvidiaDriverVersion, ProprietaryOpenAndSysfsSpellings) {
  EXPECT_EQ(ParseNvidiaDriverVersion(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  "
                "Sat Aug 19 01:15:15 UTC 2023\nGCC version:  gcc 12.2.0\n"),
            "535.104.05");
  EXPECT_EQ(ParseNvidiaDriverVersion(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                "580.65.06  Release Build  (dvs-builder@U16)\n"),
            "580.65.06");
  EXPECT_EQ(ParseNvidiaDriverVersion("550.54.15\n"), "550.54.15");
  EXPECT_EQ(ParseNvidiaDriverVersion("NVRM version: x86_64 gcc 12\n"), "");
  EXPECT_EQ(ParseNvidiaDriverVersion(""), "");
}

TEST(ThreadStateFromLetter, MapsEveryKernelLetter) {
  EXPECT_EQ(ThreadStateFromLetter('R'), kThreadStateRunning);
  EXPECT_EQ(ThreadStateFromLetter('S'), kThreadStateSleeping);
  EXPECT_EQ(ThreadStateFromLetter('D'), kThreadStateDiskWait);
  EXPECT_EQ(ThreadStateFromLetter('T'), kThreadStateStopped);
  EXPECT_EQ(ThreadStateFromLetter('t'), kThreadStateStopped);
  EXPECT_EQ(ThreadStateFromLetter('Z'), kThreadStateZombie);
  EXPECT_EQ(ThreadStateFromLetter('X'), kThreadStateZombie);
  EXPECT_EQ(ThreadStateFromLetter('I'), kThreadStateIdle);
  EXPECT_EQ(ThreadStateFromLetter('?'), kThreadStateUnknown);
}

TEST(ProcText, NumbersAndKeys) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseHex("0x10de\n", &v));
  EXPECT_EQ(v, 0x10deu);
  EXPECT_TRUE(ParseHex("030200", &v));
  EXPECT_EQ(v, 0x030200u);
  EXPECT_FALSE(ParseHex("0x", &v));
  double d = 0;
  EXPECT_TRUE(ParseDecimal("16.0 GT/s PCIe", &d));
  EXPECT_DOUBLE_EQ(d, 16.0);
  EXPECT_TRUE(ParseDecimal("2.5 GT/s", &d));
  EXPECT_DOUBLE_EQ(d, 2.5);
  EXPECT_FALSE(ParseDecimal("Unknown", &d));
  EXPECT_EQ(
      FindKeyValue("processor\t: 0\nmodel name\t: Xeon Gold\n", "model name"),
      "Xeon Gold");
  EXPECT_EQ(FindKeyValue("model name\t: X\n", "model"), "");
  EXPECT_EQ(Trim("  a b \n"), "a b");
}

TEST(ProcText, NextLineAndNextPartKeepEmptyParts) {
  std::string_view text = "a b\n\nlast";
  EXPECT_EQ(NextLine(&text), "a b");
  EXPECT_EQ(text, "\nlast");
  EXPECT_EQ(NextLine(&text), "");
  EXPECT_EQ(NextLine(&text), "last");
  EXPECT_TRUE(text.empty());
  // A final newline ends the last line; it does not start an empty one.
  text = "x\n";
  EXPECT_EQ(NextLine(&text), "x");
  EXPECT_TRUE(text.empty());
  std::string_view list = "0-3,,8";
  EXPECT_EQ(NextPart(&list, ','), "0-3");
  EXPECT_EQ(NextPart(&list, ','), "");
  EXPECT_EQ(NextPart(&list, ','), "8");
  EXPECT_TRUE(list.empty());
}

// /proc/diskstats of an NVMe machine, kernel 5.x: 20 fields (discards and
// flushes), partitions after their disk.
TEST(ParseDiskstats, NvmeMachineTwentyFields) {
  const std::string text = feedprof::testing::StorageDiskstats();
  DiskStats d;
  ASSERT_TRUE(FindDiskstats(text, "nvme0n1", &d));
  EXPECT_EQ(d.name, "nvme0n1");  // the disk, not a partition of it
  EXPECT_EQ(d.reads, 2893551u);
  EXPECT_EQ(d.reads_merged, 1015u);
  EXPECT_EQ(d.sectors_read, 330581066u);
  EXPECT_EQ(d.read_ms, 541219u);
  EXPECT_EQ(d.writes, 6148214u);
  EXPECT_EQ(d.writes_merged, 3920483u);
  EXPECT_EQ(d.sectors_written, 214738186u);
  EXPECT_EQ(d.write_ms, 4302765u);
  EXPECT_EQ(d.in_flight, 3u);
  EXPECT_EQ(d.io_ticks_ms, 2123064u);
  EXPECT_EQ(d.weighted_ms, 5006498u);
  ASSERT_TRUE(FindDiskstats(text, "nvme0n1p2", &d));
  EXPECT_EQ(d.reads, 2892851u);
  EXPECT_EQ(d.weighted_ms, 4843845u);
  ASSERT_TRUE(FindDiskstats(text, "nvme1n1", &d));
  EXPECT_EQ(d.reads, 10512u);
  EXPECT_EQ(d.sectors_written, 3584u);
  EXPECT_EQ(d.in_flight, 0u);
  EXPECT_FALSE(FindDiskstats(text, "nvme0", &d));  // a prefix is no name
  EXPECT_FALSE(FindDiskstats(text, "sda", &d));
  EXPECT_EQ(d.reads, 0u);
}

// A virtio VM: this machine's own line (kernel 5.x, 20 fields), and a
// 4.18-5.4 kernel's with discards but no flushes (18 fields).
TEST(ParseDiskstats, VirtioVmEighteenAndTwentyFields) {
  DiskStats d;
  const std::string twenty =
      "   7       7 loop7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
      " 254       0 vda 1387768 45697 49146010 3681054 733061 171182 "
      "361293712 1395699 0 393904 5195027 629037 79 346179112 114321 53583 "
      "3950\n"
      " 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
  ASSERT_TRUE(FindDiskstats(twenty, "vda", &d));
  EXPECT_EQ(d.reads, 1387768u);
  EXPECT_EQ(d.reads_merged, 45697u);
  EXPECT_EQ(d.sectors_read, 49146010u);
  EXPECT_EQ(d.read_ms, 3681054u);
  EXPECT_EQ(d.writes, 733061u);
  EXPECT_EQ(d.writes_merged, 171182u);
  EXPECT_EQ(d.sectors_written, 361293712u);
  EXPECT_EQ(d.write_ms, 1395699u);
  EXPECT_EQ(d.in_flight, 0u);
  EXPECT_EQ(d.io_ticks_ms, 393904u);
  EXPECT_EQ(d.weighted_ms, 5195027u);  // not the discards after it

  const std::string eighteen =
      " 252       0 vda 98210 3187 6412226 61853 211943 172045 6920536 "
      "403721 2 221320 410432 0 0 0 0\n"
      " 252       1 vda1 98012 3187 6398914 61786 211943 172045 6920536 "
      "403721 2 221296 465508 0 0 0 0\n";
  ASSERT_TRUE(FindDiskstats(eighteen, "vda", &d));
  EXPECT_EQ(d.reads, 98210u);
  EXPECT_EQ(d.sectors_read, 6412226u);
  EXPECT_EQ(d.sectors_written, 6920536u);
  EXPECT_EQ(d.in_flight, 2u);
  EXPECT_EQ(d.io_ticks_ms, 221320u);
  EXPECT_EQ(d.weighted_ms, 410432u);
}

// A 3.10 kernel: 14 fields; the 7-field partition lines of kernels before
// 2.6.25 are refused.
TEST(ParseDiskstats, OldKernelFourteenFieldsAndAncientPartitions) {
  const std::string text =
      "   8       0 sda 181734 6590 11251930 1253412 403512 362104 20118408 "
      "5398112 0 1213418 6650802\n"
      "   8       1 sda1 2127 0 16798 3140 2055 0 4110 1024 0 3660 4164\n"
      "  11       0 sr0 0 0 0 0 0 0 0 0 0 0 0\n";
  DiskStats d;
  ASSERT_TRUE(FindDiskstats(text, "sda", &d));
  EXPECT_EQ(d.reads, 181734u);
  EXPECT_EQ(d.reads_merged, 6590u);
  EXPECT_EQ(d.sectors_read, 11251930u);
  EXPECT_EQ(d.read_ms, 1253412u);
  EXPECT_EQ(d.writes, 403512u);
  EXPECT_EQ(d.writes_merged, 362104u);
  EXPECT_EQ(d.sectors_written, 20118408u);
  EXPECT_EQ(d.write_ms, 5398112u);
  EXPECT_EQ(d.io_ticks_ms, 1213418u);
  EXPECT_EQ(d.weighted_ms, 6650802u);
  EXPECT_FALSE(
      ParseDiskstatsLine("   8    1 sda1 35486 2838418 4563 36504", &d));
  EXPECT_FALSE(
      FindDiskstats("   8    1 sda1 35486 2838418 4563 36504\n", "sda1", &d));
}

// A read that filled its buffer ends mid-line: that line is not read,
// whatever it holds.
TEST(ParseDiskstats, CutLastLineIsNotRead) {
  const std::string text = feedprof::testing::StorageDiskstats();
  const size_t at = text.find("nvme1n1 10512 7 2690816 1802");
  ASSERT_NE(at, std::string::npos);
  DiskStats d;
  // Cut inside the 11th counter (1893 -> 18): it would parse, wrongly.
  const std::string cut = text.substr(0, at + 51);
  EXPECT_TRUE(ParseDiskstatsLine(cut.substr(cut.rfind('\n') + 1), &d));
  EXPECT_EQ(d.weighted_ms, 18u);
  EXPECT_FALSE(FindDiskstats(cut, "nvme1n1", &d));
  EXPECT_TRUE(FindDiskstats(cut, "nvme0n1", &d));
  EXPECT_EQ(d.reads, 2893551u);
  EXPECT_FALSE(FindDiskstats("", "nvme0n1", &d));
}

struct MountstatsResult {
  NfsOpTotals totals[3];
  bool found[3];
  size_t count = 0;
};

MountstatsResult ScanMountstats(std::string_view text, bool complete) {
  static const char* const kPoints[] = {"/mnt/nfs", "/mnt/my data", "/data"};
  MountstatsResult r;
  r.count = ParseMountstats(text, complete, kPoints, 3, r.totals, r.found);
  return r;
}

// An NFS v4.2 block (statvers=1.1, errors column) and an NFS v3 one (no
// errors column) at a mount point with a space (\040 in the file), among
// mounts of other types, another NFS mount, and "no device" lines.
TEST(ParseMountstats, SumsEveryOperationAndReadsAlone) {
  const MountstatsResult r =
      ScanMountstats(feedprof::testing::StorageMountstats(), true);
  EXPECT_EQ(r.count, 2u);
  ASSERT_TRUE(r.found[0]);
  const NfsOpTotals& v4 = r.totals[0];
  EXPECT_EQ(v4.ops, feedprof::testing::kNfs4Ops);
  EXPECT_EQ(v4.ops, 10097u);
  EXPECT_EQ(v4.transmissions, feedprof::testing::kNfs4Transmissions);
  EXPECT_EQ(v4.major_timeouts, 3u);
  EXPECT_EQ(v4.rtt_ms, feedprof::testing::kNfs4RttMs);
  EXPECT_EQ(v4.rtt_ms, 25590u);
  EXPECT_EQ(v4.execute_ms, feedprof::testing::kNfs4ExecuteMs);
  EXPECT_EQ(v4.read_ops, 4096u);
  EXPECT_EQ(v4.read_bytes, 4295491584u);
  EXPECT_EQ(v4.read_rtt_ms, 20480u);
  ASSERT_TRUE(r.found[1]);
  const NfsOpTotals& v3 = r.totals[1];
  EXPECT_EQ(v3.ops, 620u);
  EXPECT_EQ(v3.transmissions, 621u);
  EXPECT_EQ(v3.major_timeouts, 1u);
  EXPECT_EQ(v3.rtt_ms, 4080u);
  EXPECT_EQ(v3.execute_ms, 4195u);
  EXPECT_EQ(v3.read_ops, 500u);
  EXPECT_EQ(v3.read_bytes, 32768000u);
  EXPECT_EQ(v3.read_rtt_ms, 4000u);
  // /data is xfs: no NFS statistics.
  EXPECT_FALSE(r.found[2]);
  EXPECT_EQ(r.totals[2].ops, 0u);
}

// A read cut inside the v4 block: that mount is not given (its sums would
// miss operations and go backwards next time); the v3 block before it is.
TEST(ParseMountstats, CutReadDropsTheBlockItEndsIn) {
  const std::string text = feedprof::testing::StorageMountstats();
  const size_t at = text.find("GETATTR: 2500", text.find("/mnt/nfs "));
  ASSERT_NE(at, std::string::npos);
  MountstatsResult r = ScanMountstats(text.substr(0, at + 9), false);
  EXPECT_EQ(r.count, 1u);
  EXPECT_FALSE(r.found[0]);
  EXPECT_EQ(r.totals[0].ops, 0u);
  EXPECT_TRUE(r.found[1]);
  EXPECT_EQ(r.totals[1].ops, 620u);
  // The same text as a whole file (its last block without the blank line
  // that ends it) is read to its end.
  r = ScanMountstats(text.substr(0, at), true);
  EXPECT_TRUE(r.found[0]);
  EXPECT_EQ(r.totals[0].ops, 1u + 4096 + 1200 + 1200);
  // Nothing, or text without the mounts asked for, finds nothing.
  EXPECT_EQ(ScanMountstats("", true).count, 0u);
  EXPECT_EQ(
      ScanMountstats("device proc mounted on /proc with fstype proc\n", true)
          .count,
      0u);
}

// The scanner fed a line at a time: what a reader of the file in pieces
// does. An escaped mount point matches only its unescaped path, and a
// mount point that only starts like one asked for is another.
TEST(MountstatsScanner, LineByLineAndEscapedMountPoints) {
  const char* const points[] = {"/mnt/my data", "/mnt/a\\b"};
  NfsOpTotals totals[2];
  bool found[2];
  MountstatsScanner scanner(points, 2, totals, found);
  std::string text = feedprof::testing::Nfs3Block("/mnt/my\\040data2") +
                     feedprof::testing::Nfs3Block("/mnt/my data") +
                     feedprof::testing::Nfs3Block("/mnt/a\\134b") +
                     feedprof::testing::Nfs3Block("/mnt/my\\040data") +
                     feedprof::testing::Nfs4Block("/mnt/never/read");
  std::string_view rest = text;
  size_t lines = 0;
  while (!rest.empty() && !scanner.all_found()) {
    scanner.Line(NextLine(&rest));
    ++lines;
  }
  scanner.End();
  EXPECT_TRUE(scanner.all_found());
  EXPECT_TRUE(found[0]);
  EXPECT_EQ(totals[0].read_bytes, 32768000u);
  EXPECT_TRUE(found[1]);
  EXPECT_EQ(totals[1].ops, 620u);
  // Stopped at the end of the last block asked for (4 blocks of 15
  // lines), before the block after it.
  EXPECT_EQ(lines, 60u);
  EXPECT_EQ(rest.substr(0, 30), "device storage01:/export/datas");
}

}  // namespace
}  // namespace feedprof::preload::host
