// CPU samples of an Nsight Systems export (COMPOSITE_EVENTS and
// SAMPLING_CALLCHAINS) on databases built by the test: which thread each
// sample belongs to, its frames innermost first, one call site per distinct
// stack, the weight taken from the gaps between samples, and rows that do
// not follow the schema.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "feedprof/nsight_reader.h"
#include "tests/nsight/scratch_sqlite_file.h"

namespace feedprof {
namespace {

using nsight::testing::GlobalId;
using nsight::testing::ScratchSqliteFile;

std::string Str(int64_t v) { return std::to_string(v); }

size_t WarningsContaining(const Timeline& tl, const std::string& part) {
  return static_cast<size_t>(std::count_if(
      tl.warnings.begin(), tl.warnings.end(),
      [&](const std::string& w) { return w.find(part) != std::string::npos; }));
}

// (function, module) of each frame of `stack`, innermost first.
std::vector<std::pair<std::string, std::string>> Frames(const Timeline& tl,
                                                        uint32_t stack) {
  std::vector<std::pair<std::string, std::string>> out;
  if (stack >= tl.call_sites.size()) return out;
  for (const Frame& f : tl.call_sites[stack].frames) {
    EXPECT_EQ(f.kind, FrameKind::kNative);
    out.emplace_back(tl.strings.Get(f.function), tl.strings.Get(f.module));
  }
  return out;
}

using FrameList = std::vector<std::pair<std::string, std::string>>;

// An export with one traced process (pid 42: an API call on thread 43) and
// the sampling tables as nsys 2022.2 declares them, without NOT NULL so
// that tests can write the rows a damaged file would hold.
void WriteBase(ScratchSqliteFile& db) {
  db.Exec(
      "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT "
      "NOT NULL);"
      "INSERT INTO StringIds VALUES (1, 'cudaMalloc_v3020'), "
      "(2, 'leaf'), (3, '/app/libwork.so'), (4, 'main'), (5, '/app/a.out'), "
      "(6, 'decode'), (7, '/usr/lib/libjpeg.so'), (8, 'worker_loop'), "
      "(9, 'do_syscall_64'), (10, '[kernel.kallsyms]');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER "
      "NOT NULL);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 0, " +
      Str(GlobalId(42, 43)) +
      ", 1, 1, 0);"
      "CREATE TABLE COMPOSITE_EVENTS (id INTEGER PRIMARY KEY, start INTEGER, "
      "cpu INTEGER, threadState INTEGER, globalTid INTEGER, cpuCycles "
      "INTEGER);"
      "CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER, symbol INTEGER, module "
      "INTEGER, kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, "
      "specialEntry INTEGER, originalIP INTEGER, unwindMethod INTEGER, "
      "stackDepth INTEGER);");
}

// One COMPOSITE_EVENTS row.
std::string SampleRow(int64_t id, int64_t start, int64_t global_tid) {
  return "(" + Str(id) + ", " + Str(start) + ", 3, 1, " + Str(global_tid) +
         ", 0)";
}

// One SAMPLING_CALLCHAINS row.
std::string ChainRow(int64_t id, int64_t depth, const std::string& symbol,
                     const std::string& module, int kernel_mode = 0) {
  return "(" + Str(id) + ", " + symbol + ", " + module + ", " +
         Str(kernel_mode) + ", 0, 0, 0, 4096, 7, " + Str(depth) + ")";
}

TEST(NsightStackSamplesTest, TwoThreadsInTimeOrderWithSharedCallSites) {
  ScratchSqliteFile db("stack_samples_two_threads");
  WriteBase(db);
  const int64_t main = GlobalId(42, 43);
  const int64_t worker = GlobalId(42, 44);
  // Ids out of time order: the samples are ordered by time, not by id.
  // Main: 1000, 1200, 1400 and, after 3.6 us off the CPU, 5000.
  db.Exec("INSERT INTO COMPOSITE_EVENTS VALUES " + SampleRow(5, 1000, main) +
          ", " + SampleRow(2, 1100, worker) + ", " + SampleRow(3, 1200, main) +
          ", " + SampleRow(4, 1300, worker) + ", " + SampleRow(1, 1400, main) +
          ", " + SampleRow(6, 5000, main) + ";");
  // Chains 5 and 3 are the same stack; 2 and 4 too; 1 enters the kernel;
  // 6 is a one-frame stack.
  db.Exec("INSERT INTO SAMPLING_CALLCHAINS VALUES " + ChainRow(5, 0, "2", "3") +
          ", " + ChainRow(5, 1, "4", "5") + ", " + ChainRow(3, 1, "4", "5") +
          ", " + ChainRow(3, 0, "2", "3") + ", " + ChainRow(2, 0, "6", "7") +
          ", " + ChainRow(2, 1, "8", "3") + ", " + ChainRow(4, 0, "6", "7") +
          ", " + ChainRow(4, 1, "8", "3") + ", " +
          ChainRow(1, 0, "9", "10", 1) + ", " + ChainRow(1, 1, "2", "3") +
          ", " + ChainRow(1, 2, "4", "5") + ", " + ChainRow(6, 0, "4", "5") +
          ";");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();

  ASSERT_EQ(tl->stack_samples.size(), 6u);
  const std::vector<TimeNs> times = {1000, 1100, 1200, 1300, 1400, 5000};
  const std::vector<int32_t> tids = {43, 44, 43, 44, 43, 43};
  for (size_t i = 0; i < times.size(); ++i) {
    const StackSample& s = tl->stack_samples[i];
    EXPECT_EQ(s.ts, times[i]) << i;
    EXPECT_EQ(s.pid, 42) << i;
    EXPECT_EQ(s.tid, tids[i]) << i;
    // Gaps 200, 200, 3600 (main) and 200 (worker): the median is 200.
    EXPECT_EQ(s.weight_ns, 200) << i;
  }
  const auto& samples = tl->stack_samples;
  EXPECT_EQ(Frames(*tl, samples[0].stack),
            (FrameList{{"leaf", "/app/libwork.so"}, {"main", "/app/a.out"}}));
  EXPECT_EQ(samples[2].stack, samples[0].stack);
  EXPECT_EQ(Frames(*tl, samples[1].stack),
            (FrameList{{"decode", "/usr/lib/libjpeg.so"},
                       {"worker_loop", "/app/libwork.so"}}));
  EXPECT_EQ(samples[3].stack, samples[1].stack);
  EXPECT_EQ(Frames(*tl, samples[4].stack),
            (FrameList{{"do_syscall_64", "[kernel.kallsyms]"},
                       {"leaf", "/app/libwork.so"},
                       {"main", "/app/a.out"}}));
  EXPECT_EQ(Frames(*tl, samples[5].stack), (FrameList{{"main", "/app/a.out"}}));
  std::set<uint32_t> distinct;
  for (const StackSample& s : samples) {
    EXPECT_GT(s.stack, 0u);
    EXPECT_FALSE(tl->call_sites[s.stack].python);
    distinct.insert(s.stack);
  }
  EXPECT_EQ(distinct.size(), 4u);
  EXPECT_EQ(tl->call_sites.size(), 5u);  // the empty site and the four

  // The worker thread had no other event: it is listed now.
  bool worker_listed = false;
  for (const Thread& t : tl->threads) {
    if (t.pid == 42 && t.tid == 44) worker_listed = !t.is_main;
  }
  EXPECT_TRUE(worker_listed);
  EXPECT_EQ(WarningsContaining(*tl, "COMPOSITE_EVENTS"), 0u);
  EXPECT_EQ(WarningsContaining(*tl, "SAMPLING_CALLCHAINS"), 0u);
}

TEST(NsightStackSamplesTest, OneSamplePerThreadHasAnUnknownWeight) {
  ScratchSqliteFile db("stack_samples_single");
  WriteBase(db);
  db.Exec("INSERT INTO COMPOSITE_EVENTS VALUES " +
          SampleRow(1, 1000, GlobalId(42, 43)) + ", " +
          SampleRow(2, 1000, GlobalId(42, 43)) + ", " +
          SampleRow(3, 2000, GlobalId(42, 44)) + ";");
  db.Exec("INSERT INTO SAMPLING_CALLCHAINS VALUES " + ChainRow(1, 0, "2", "3") +
          ", " + ChainRow(2, 0, "2", "3") + ", " + ChainRow(3, 0, "2", "3") +
          ";");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->stack_samples.size(), 3u);
  for (const StackSample& s : tl->stack_samples) {
    EXPECT_EQ(s.weight_ns, 0);  // no positive gap to take a period from
    EXPECT_EQ(s.stack, tl->stack_samples[0].stack);
  }
  EXPECT_EQ(tl->call_sites.size(), 2u);
}

TEST(NsightStackSamplesTest, WithoutTheTablesThereAreNoSamplesAndNoWarning) {
  ScratchSqliteFile db("stack_samples_absent");
  db.Exec(
      "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT "
      "NOT NULL);"
      "INSERT INTO StringIds VALUES (1, 'cudaMalloc_v3020');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER "
      "NOT NULL);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 0, " +
      Str(GlobalId(42, 43)) + ", 1, 1, 0);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(tl->stack_samples.empty());
  EXPECT_EQ(tl->call_sites.size(), 1u);
  EXPECT_EQ(WarningsContaining(*tl, "COMPOSITE_EVENTS"), 0u);
  EXPECT_EQ(WarningsContaining(*tl, "SAMPLING_CALLCHAINS"), 0u);

  // Empty tables, as a capture that sampled nothing leaves them.
  ScratchSqliteFile empty("stack_samples_empty");
  WriteBase(empty);
  auto tl2 = ReadNsightTrace(empty.Finish());
  ASSERT_TRUE(tl2.ok()) << tl2.status();
  EXPECT_TRUE(tl2->stack_samples.empty());
  EXPECT_EQ(WarningsContaining(*tl2, "COMPOSITE_EVENTS"), 0u);
  EXPECT_EQ(WarningsContaining(*tl2, "SAMPLING_CALLCHAINS"), 0u);
}

TEST(NsightStackSamplesTest, SamplesOfProcessesWithoutEventsAreLeftOut) {
  ScratchSqliteFile db("stack_samples_other_process");
  WriteBase(db);
  // pid 77 (say the launcher of the traced process) has no CUDA or NVTX
  // event: its samples and their stacks are left out, without a warning.
  db.Exec("INSERT INTO COMPOSITE_EVENTS VALUES " +
          SampleRow(1, 1000, GlobalId(77, 77)) + ", " +
          SampleRow(2, 1100, GlobalId(42, 43)) + ";");
  db.Exec("INSERT INTO SAMPLING_CALLCHAINS VALUES " + ChainRow(1, 0, "6", "7") +
          ", " + ChainRow(2, 0, "2", "3") + ";");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->stack_samples.size(), 1u);
  EXPECT_EQ(tl->stack_samples[0].pid, 42);
  EXPECT_EQ(Frames(*tl, tl->stack_samples[0].stack),
            (FrameList{{"leaf", "/app/libwork.so"}}));
  EXPECT_EQ(tl->call_sites.size(), 2u);
  for (const Process& p : tl->processes) EXPECT_NE(p.pid, 77);
  EXPECT_EQ(WarningsContaining(*tl, "COMPOSITE_EVENTS"), 0u);
}

TEST(NsightStackSamplesTest,
     MalformedRowsGiveAUsableTimelineAndOneWarningEach) {
  ScratchSqliteFile db("stack_samples_malformed");
  WriteBase(db);
  const int64_t main = GlobalId(42, 43);
  db.Exec("INSERT INTO COMPOSITE_EVENTS VALUES " +
          // 1, 2: NULL symbol / module in a frame.
          SampleRow(1, 1000, main) + ", " + SampleRow(2, 1100, main) + ", " +
          // 3, 4: depth gaps (1 missing; 0 given twice).
          SampleRow(3, 1200, main) + ", " + SampleRow(4, 1300, main) + ", " +
          // 5, 6: no chain rows at all.
          SampleRow(5, 1400, main) + ", " + SampleRow(6, 1500, main) + ", " +
          // 7, 8: unknown thread (NULL, 0); 9: NULL time.
          "(7, 1600, 3, 1, NULL, 0), (8, 1700, 3, 1, 0, 0), "
          "(9, NULL, 3, 1, " +
          Str(main) + ", 0);");
  db.Exec("INSERT INTO SAMPLING_CALLCHAINS VALUES " +
          ChainRow(1, 0, "NULL", "3") + ", " + ChainRow(1, 1, "4", "5") + ", " +
          ChainRow(2, 0, "2", "NULL") + ", " + ChainRow(3, 0, "2", "3") + ", " +
          ChainRow(3, 2, "4", "5") + ", " + ChainRow(4, 0, "6", "7") + ", " +
          ChainRow(4, 0, "2", "3") + ", " + ChainRow(4, 1, "8", "3") + ", " +
          // A row with no sample id, and chains of samples that do not
          // exist (or are skipped): read past, never interned.
          ChainRow(7, 0, "9", "10") + ", (NULL, 2, 3, 0, 0, 0, 0, 0, 0, 0), " +
          ChainRow(99, 0, "9", "10") + ";");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();

  ASSERT_EQ(tl->stack_samples.size(), 6u);
  const auto& s = tl->stack_samples;
  EXPECT_EQ(Frames(*tl, s[0].stack),
            (FrameList{{"", "/app/libwork.so"}, {"main", "/app/a.out"}}));
  EXPECT_EQ(Frames(*tl, s[1].stack), (FrameList{{"leaf", ""}}));
  EXPECT_EQ(Frames(*tl, s[2].stack),
            (FrameList{{"leaf", "/app/libwork.so"}, {"main", "/app/a.out"}}));
  // Depth 0 given twice: the first row (by the table's order) stands.
  const FrameList fourth = Frames(*tl, s[3].stack);
  ASSERT_EQ(fourth.size(), 2u);
  EXPECT_EQ(fourth[1], (std::pair<std::string, std::string>{
                           "worker_loop", "/app/libwork.so"}));
  EXPECT_EQ(s[4].stack, 0u);  // kept, with the empty call site
  EXPECT_EQ(s[5].stack, 0u);
  EXPECT_EQ(s[5].ts, 1500);
  EXPECT_EQ(tl->call_sites.size(), 5u);

  EXPECT_EQ(WarningsContaining(*tl, "have a NULL sample id, depth, symbol"),
            1u);
  EXPECT_EQ(WarningsContaining(*tl, "3 rows of SAMPLING_CALLCHAINS"), 1u);
  EXPECT_EQ(WarningsContaining(*tl,
                               "2 sampled stacks in SAMPLING_CALLCHAINS "
                               "skip or repeat a stack depth"),
            1u);
  EXPECT_EQ(WarningsContaining(*tl,
                               "2 CPU samples in COMPOSITE_EVENTS have "
                               "no call chain"),
            1u);
  EXPECT_EQ(WarningsContaining(*tl,
                               "2 CPU samples in COMPOSITE_EVENTS name "
                               "no thread"),
            1u);
  EXPECT_EQ(WarningsContaining(*tl,
                               "1 CPU samples in COMPOSITE_EVENTS have "
                               "no time"),
            1u);
}

TEST(NsightStackSamplesTest, MissingColumnsAndMissingChainTableAreSurvived) {
  // A COMPOSITE_EVENTS without globalTid, and no SAMPLING_CALLCHAINS: no
  // sample names a thread, one warning, no crash.
  ScratchSqliteFile db("stack_samples_missing_columns");
  db.Exec(
      "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT "
      "NOT NULL);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER "
      "NOT NULL);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 0, " +
      Str(GlobalId(42, 43)) +
      ", 1, 1, 0);"
      "CREATE TABLE COMPOSITE_EVENTS (id INTEGER PRIMARY KEY, start "
      "INTEGER);"
      "INSERT INTO COMPOSITE_EVENTS VALUES (1, 1000), (2, 1100);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(tl->stack_samples.empty());
  EXPECT_EQ(WarningsContaining(*tl, "name no thread"), 1u);

  // Samples with threads but no chain table: kept with unknown stacks.
  ScratchSqliteFile db2("stack_samples_no_chain_table");
  db2.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER "
      "NOT NULL);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 0, " +
      Str(GlobalId(42, 43)) +
      ", 1, 1, 0);"
      "CREATE TABLE COMPOSITE_EVENTS (id INTEGER PRIMARY KEY, start "
      "INTEGER, globalTid INTEGER);"
      "INSERT INTO COMPOSITE_EVENTS VALUES (1, 1000, " +
      Str(GlobalId(42, 43)) + "), (2, 1250, " + Str(GlobalId(42, 43)) + ");");
  auto tl2 = ReadNsightTrace(db2.Finish());
  ASSERT_TRUE(tl2.ok()) << tl2.status();
  ASSERT_EQ(tl2->stack_samples.size(), 2u);
  EXPECT_EQ(tl2->stack_samples[0].stack, 0u);
  EXPECT_EQ(tl2->stack_samples[1].weight_ns, 250);
  EXPECT_EQ(WarningsContaining(*tl2, "no call chain"), 1u);
}

}  // namespace
}  // namespace feedprof
