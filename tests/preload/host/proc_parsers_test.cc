// Parsing of the procfs files the host sampler reads, from fixture text.
#include "preload/host/proc_parsers.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "preload/host/host_sample_records.h"
#include "preload/host/proc_text.h"

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

}  // namespace
}  // namespace feedprof::preload::host
