// The Nsight Systems importer on databases built by the test, one trap per
// case: version-suffixed names, nested duplicate API rows, the memory-kind
// offset, missing tables and columns, NVTX nesting, bad and truncated files.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "common/read_progress.h"
#include "feedprof/analysis.h"
#include "feedprof/nsight_reader.h"
#include "nsight/sqlite_database.h"
#include "tests/nsight/scratch_sqlite_file.h"

namespace feedprof {
namespace {

using nsight::testing::GlobalId;
using nsight::testing::ScratchSqliteFile;

std::string Str(int64_t v) { return std::to_string(v); }

const ApiCall* FindCall(const Timeline& tl, uint64_t correlation) {
  for (const ApiCall& c : tl.api_calls) {
    if (c.correlation == correlation) return &c;
  }
  return nullptr;
}

bool AnyWarningContains(const Timeline& tl, const std::string& part) {
  return std::any_of(
      tl.warnings.begin(), tl.warnings.end(),
      [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

constexpr const char* kStringIds =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT "
    "NOT NULL);";
constexpr const char* kMemcpyTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, "
    "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
    "INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind "
    "INTEGER);";

TEST(NsightConstructedTest, NestedDuplicatesKeepInnerCuptiRow) {
  ScratchSqliteFile db("nested_duplicates");
  const std::string tid = Str(GlobalId(42, 43));
  db.Exec(kStringIds);
  db.Exec(
      "INSERT INTO StringIds VALUES (1, 'cudaMalloc'), "
      "(2, 'cudaMalloc_v3020'), (3, 'cudaFree_v3020'), (4, 'main'), "
      "(5, '/app/a.out'), (6, '/usr/lib/libcudart.so.12'), "
      "(7, 'cudaMalloc');");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER "
      "NOT NULL, callchainId INTEGER);");
  // corr 5: outer backtrace row (class 67) around the CUPTI row (class 0).
  db.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 200, 67, " +
          tid + ", 5, 1, 0, 0), (110, 190, 0, " + tid +
          ", 5, 2, 0, NULL), (300, 400, 0, " + tid +
          ", 6, 3, 0, NULL), (500, 510, 0, " + tid +
          ", NULL, 2, 0, NULL), (520, 530, 0, " + tid + ", NULL, 2, 0, NULL);");
  db.Exec(
      "CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT "
      "NULL, module INTEGER NOT NULL, unresolved INTEGER, originalIP INTEGER, "
      "stackDepth INTEGER NOT NULL);"
      "INSERT INTO CUDA_CALLCHAINS VALUES (0, 7, 6, 0, 0, 0), "
      "(0, 4, 5, 0, 0, 1);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->api_calls.size(), 4u);  // 5 rows, one nested duplicate
  const ApiCall* malloc_call = FindCall(*tl, 5);
  ASSERT_NE(malloc_call, nullptr);
  EXPECT_EQ(malloc_call->start, 110);
  EXPECT_EQ(malloc_call->end, 190);
  EXPECT_EQ(tl->strings.Get(malloc_call->name), "cudaMalloc");
  EXPECT_EQ(malloc_call->pid, 42);
  EXPECT_EQ(malloc_call->tid, 43);
  // The outer row's callchain, without the frame inside libcudart.
  ASSERT_GT(malloc_call->call_site, 0u);
  const CallSite& site = tl->call_sites[malloc_call->call_site];
  ASSERT_EQ(site.frames.size(), 1u);
  EXPECT_EQ(tl->strings.Get(site.frames[0].function), "main");
  EXPECT_EQ(tl->strings.Get(site.frames[0].module), "/app/a.out");
  EXPECT_EQ(site.frames[0].kind, FrameKind::kNative);
  const ApiCall* free_call = FindCall(*tl, 6);
  ASSERT_NE(free_call, nullptr);
  EXPECT_EQ(tl->strings.Get(free_call->name), "cudaFree");
  // Rows without a correlation id cannot be matched and are all kept.
  EXPECT_EQ(std::count_if(tl->api_calls.begin(), tl->api_calls.end(),
                          [](const ApiCall& c) { return c.correlation == 0; }),
            2);
  EXPECT_TRUE(AnyWarningContains(*tl, "1 nested duplicate"));
  EXPECT_TRUE(AnyWarningContains(*tl, "no GPU activity"));
}

TEST(NsightConstructedTest, WithoutEventClassTheSuffixedRowIsKept) {
  ScratchSqliteFile db("suffix_preference");
  const std::string tid = Str(GlobalId(7, 8));
  db.Exec(kStringIds);
  db.Exec(
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), "
      "(2, 'cudaLaunchKernel_v7000'), (3, 'k');");
  // No eventClass, no callchainId columns.
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, "
      "globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 300, " +
      tid + ", 9, 1), (120, 280, " + tid + ", 9, 2);");
  // A kernel table without gridZ/blockZ/shortName/mangledName/graphId.
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
      "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
      "INTEGER, demangledName INTEGER, gridX INTEGER, gridY INTEGER, blockX "
      "INTEGER, blockY INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (290, 400, 1, 13, 9, " +
      Str(GlobalId(7, 0)) + ", 3, 4, 5, 64, 2);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->api_calls.size(), 1u);
  EXPECT_EQ(tl->api_calls[0].start, 120);
  EXPECT_EQ(tl->api_calls[0].end, 280);
  EXPECT_EQ(tl->strings.Get(tl->api_calls[0].name), "cudaLaunchKernel");
  EXPECT_EQ(tl->api_calls[0].domain, ApiDomain::kRuntime);
  EXPECT_EQ(tl->api_calls[0].call_site, 0u);
  ASSERT_EQ(tl->gpu_ops.size(), 1u);
  const GpuOp& k = tl->gpu_ops[0];
  EXPECT_EQ(tl->strings.Get(k.name), "k");
  const LaunchShape& shape = tl->LaunchOf(k);
  EXPECT_EQ(shape.grid[0], 4u);
  EXPECT_EQ(shape.grid[1], 5u);
  EXPECT_EQ(shape.grid[2], 0u);  // column absent
  EXPECT_EQ(shape.block[0], 64u);
  EXPECT_EQ(shape.block[2], 0u);
  EXPECT_EQ(k.device, 1);
  EXPECT_EQ(k.stream, 13);
  EXPECT_EQ(k.pid, 7);
  EXPECT_EQ(k.correlation, 9u);
  ASSERT_EQ(tl->devices.size(), 1u);  // from the activity alone
  EXPECT_EQ(tl->devices[0].id, 1);
  EXPECT_TRUE(tl->available.correlation);
  EXPECT_FALSE(tl->available.sync_records);
  EXPECT_FALSE(tl->available.ranges);
}

TEST(NsightConstructedTest, MemoryKindsAreShiftedToCuptiNumbering) {
  ScratchSqliteFile db("memory_kinds");
  const std::string pid = Str(GlobalId(3, 0));
  db.Exec(kStringIds);
  db.Exec(std::string(kMemcpyTable) +
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES "
          "(10, 20, 0, 7, 1, " +
          pid +
          ", 1024, 1, 0, 2), "
          "(30, 40, 0, 7, 2, " +
          pid +
          ", 2048, 2, 2, 1), "
          "(50, 60, 0, 7, 3, " +
          pid +
          ", 4096, 10, 2, 2), "
          "(70, 80, 0, 7, 4, " +
          pid + ", 8, 11, 4, 7);");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, "
      "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
      "INTEGER, value INTEGER, bytes INTEGER, memKind INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES "
      "(90, 95, 0, 7, 5, " +
      pid + ", 0, 512, 4);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->gpu_ops.size(), 5u);
  const auto& ops = tl->gpu_ops;  // sorted by start
  EXPECT_EQ(ops[0].copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(ops[0].src_kind, MemoryKind::kPageable);
  EXPECT_EQ(ops[0].dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(ops[0].bytes, 1024u);
  EXPECT_EQ(tl->strings.Get(ops[0].name), "Memcpy HtoD");
  EXPECT_EQ(ops[1].copy_kind, CopyKind::kDtoH);
  EXPECT_EQ(ops[1].src_kind, MemoryKind::kDevice);
  EXPECT_EQ(ops[1].dst_kind, MemoryKind::kPinned);
  EXPECT_EQ(ops[2].copy_kind, CopyKind::kPtoP);
  EXPECT_EQ(ops[3].copy_kind, CopyKind::kHtoD);  // unified-memory HtoD
  EXPECT_EQ(ops[3].src_kind, MemoryKind::kManaged);
  EXPECT_EQ(ops[3].dst_kind, MemoryKind::kUnknown);
  EXPECT_EQ(ops[4].kind, GpuOpKind::kMemset);
  EXPECT_EQ(ops[4].dst_kind, MemoryKind::kManaged);
  EXPECT_EQ(ops[4].bytes, 512u);
  // No API tables: nothing to correlate with.
  EXPECT_FALSE(tl->available.api_calls);
  EXPECT_FALSE(tl->available.correlation);
  EXPECT_TRUE(tl->warnings.empty()) << tl->warnings[0];
}

// A call's size is the sum of its copies' sizes, kept within the 56 bits
// an ApiCall holds: a sum beyond stops at ApiCall::kMaxBytes.
TEST(NsightConstructedTest, ACallsBytesSumItsCopiesAndStopAtTheMaximum) {
  ScratchSqliteFile db("call_bytes");
  const std::string tid = Str(GlobalId(3, 4));
  const std::string pid = Str(GlobalId(3, 0));
  const std::string half = Str(int64_t{1} << 55);
  db.Exec(kStringIds);
  db.Exec("INSERT INTO StringIds VALUES (1, 'cudaMemcpyAsync');");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, "
      "globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 110, " +
      tid + ", 1, 1), (200, 210, " + tid + ", 2, 1);");
  db.Exec(std::string(kMemcpyTable) +
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES "
          "(120, 130, 0, 7, 1, " +
          pid + ", 1024, 1, 0, 2), (140, 150, 0, 7, 1, " + pid +
          ", 2048, 1, 0, 2), (220, 230, 0, 7, 2, " + pid + ", " + half +
          ", 1, 0, 2), (240, 250, 0, 7, 2, " + pid + ", " + half +
          ", 1, 0, 2);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  const ApiCall* small = FindCall(*tl, 1);
  const ApiCall* huge = FindCall(*tl, 2);
  ASSERT_NE(small, nullptr);
  ASSERT_NE(huge, nullptr);
  EXPECT_EQ(small->bytes, 3072u);
  EXPECT_EQ(huge->bytes, ApiCall::kMaxBytes);  // 2^56 does not fit
  EXPECT_EQ(huge->domain, ApiDomain::kRuntime);
}

TEST(NsightConstructedTest, SyncWithoutApiCallFallsBackToEnumTable) {
  ScratchSqliteFile db("sync_fallback");
  const std::string pid = Str(GlobalId(3, 0));
  const std::string tid = Str(GlobalId(3, 4));
  db.Exec(kStringIds);
  db.Exec("INSERT INTO StringIds VALUES (1, 'cudaDeviceSynchronize_v3020');");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, "
      "eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId "
      "INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (0, 100, 0, " +
      tid + ", 11, 1);");
  db.Exec(
      "CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER, name TEXT, label "
      "TEXT);"
      "INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (1, 'X', 'Event sync'), "
      "(3, 'Y', 'Stream sync');");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end "
      "INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER, "
      "correlationId INTEGER, globalPid INTEGER, syncType INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES "
      "(10, 90, 0, 1, 7, 11, " +
      pid +
      ", 3), "  // by API name: context
      "(200, 210, 0, 1, 7, 99, " +
      pid +
      ", 1), "  // no API: enum says event
      "(300, 310, 0, 1, 7, 98, " +
      pid + ", 8);");  // nothing known
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->syncs.size(), 3u);
  EXPECT_EQ(tl->syncs[0].type, SyncType::kContextSynchronize);
  EXPECT_EQ(tl->syncs[0].tid, 4);
  EXPECT_EQ(tl->syncs[1].type, SyncType::kEventSynchronize);
  EXPECT_EQ(tl->syncs[2].type, SyncType::kUnknown);
  EXPECT_TRUE(AnyWarningContains(*tl, "1 sync records have no matching"));
  EXPECT_TRUE(AnyWarningContains(*tl, "1 sync records could not be"));
}

TEST(NsightConstructedTest, NvtxRangesMarksDomainsAndDepth) {
  ScratchSqliteFile db("nvtx");
  const std::string t1 = Str(GlobalId(5, 6));
  const std::string t2 = Str(GlobalId(5, 7));
  db.Exec(kStringIds);
  db.Exec("INSERT INTO StringIds VALUES (1, 'registered step');");
  db.Exec(
      "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, "
      "eventType INTEGER NOT NULL, text TEXT, globalTid INTEGER, textId "
      "INTEGER, domainId INTEGER);");
  db.Exec(
      "INSERT INTO NVTX_EVENTS VALUES "
      "(0, NULL, 75, 'train', " +
      t1 +
      ", NULL, 3), "  // domain
      "(10, 100, 59, 'outer', " +
      t1 +
      ", NULL, 0), "
      "(20, 50, 59, NULL, " +
      t1 +
      ", 1, 3), "  // registered
      "(30, 40, 59, 'inner', " +
      t1 +
      ", NULL, 0), "
      "(60, 70, 59, 'second', " +
      t1 +
      ", NULL, 0), "
      "(15, 25, 60, 'other thread', " +
      t2 +
      ", NULL, 0), "
      "(45, NULL, 34, 'mark', " +
      t2 +
      ", NULL, 3), "
      "(80, NULL, 59, 'unterminated', " +
      t1 + ", NULL, 0);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->ranges.size(), 5u);
  ASSERT_EQ(tl->marks.size(), 1u);
  auto find = [&](const std::string& name) -> const Range& {
    return *std::find_if(
        tl->ranges.begin(), tl->ranges.end(),
        [&](const Range& r) { return tl->strings.Get(r.name) == name; });
  };
  EXPECT_EQ(find("outer").depth, 0u);
  EXPECT_EQ(find("registered step").depth, 1u);
  EXPECT_EQ(tl->strings.Get(find("registered step").domain), "train");
  EXPECT_EQ(find("inner").depth, 2u);
  EXPECT_EQ(find("second").depth, 1u);
  EXPECT_EQ(find("other thread").depth, 0u);
  EXPECT_EQ(find("other thread").tid, 7);
  EXPECT_EQ(tl->strings.Get(tl->marks[0].name), "mark");
  EXPECT_EQ(tl->strings.Get(tl->marks[0].domain), "train");
  EXPECT_EQ(tl->marks[0].ts, 45);
  EXPECT_TRUE(std::is_sorted(
      tl->ranges.begin(), tl->ranges.end(),
      [](const Range& a, const Range& b) { return a.start < b.start; }));
  EXPECT_TRUE(AnyWarningContains(*tl, "1 NVTX ranges were still open"));
  EXPECT_TRUE(AnyWarningContains(*tl, "no GPU activity"));
  EXPECT_TRUE(AnyWarningContains(*tl, "nsys profile --trace=cuda"));
  EXPECT_TRUE(tl->available.ranges);
}

TEST(NsightConstructedTest, PathWithUriCharactersOpens) {
  // '?', '#' and '%' would end or escape a file: URI if not encoded.
  ScratchSqliteFile db("odd?name#with%25chars");
  db.Exec(kStringIds);
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
      "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
      "INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 1, 0);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->gpu_ops.size(), 1u);
  EXPECT_EQ(tl->source_path, db.path());
}

TEST(NsightConstructedTest, EmptyDatabaseNamesMissingTables) {
  ScratchSqliteFile db("empty");
  db.Exec("CREATE TABLE unrelated (x INTEGER);");
  const std::string path = db.Finish();
  auto tl = ReadNsightTrace(path);
  ASSERT_FALSE(tl.ok());
  const std::string message(tl.status().message());
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos);
  EXPECT_NE(message.find("NVTX_EVENTS"), std::string::npos);
  EXPECT_NE(message.find("nsys export --type sqlite"), std::string::npos);
}

// A damaged b-tree can make SQLite walk the same pages forever; a query
// that never ends stands in for it here.
constexpr const char* kEndlessRows =
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) ";

TEST(NsightConstructedTest, AStatementThatNeverEndsFailsWithinItsStepLimit) {
  ScratchSqliteFile db("endless");
  db.Exec(kStringIds);
  auto opened = nsight::SqliteDatabase::Open(db.Finish());
  ASSERT_TRUE(opened.ok()) << opened.status();
  auto stmt = (*opened)->Prepare(std::string(kEndlessRows) + "SELECT x FROM n");
  ASSERT_TRUE(stmt.ok()) << stmt.status();
  int64_t rows = 0;
  while (stmt->Step()) ++rows;
  EXPECT_GT(rows, 1000);  // it did run
  EXPECT_EQ(stmt->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(std::string(stmt->status().message())
                .find("the query did not finish within 1000000 SQLite steps"),
            std::string::npos)
      << stmt->status();
  // A statement's count starts again after Reset; another statement has
  // its own.
  auto scan = (*opened)->Prepare(std::string(kEndlessRows) +
                                 "SELECT x FROM n LIMIT 50000");
  ASSERT_TRUE(scan.ok());
  int64_t scanned = 0;
  while (scan->Step()) ++scanned;
  EXPECT_TRUE(scan->status().ok()) << scan->status();
  EXPECT_EQ(scanned, 50000);
}

TEST(NsightConstructedTest, ATableThatNeverEndsIsReadUpToTheLimit) {
  // ThreadNames as a view with endless rows: the import ends, and the
  // kernel is still read.
  ScratchSqliteFile db("endless_threads");
  db.Exec(kStringIds);
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
      "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
      "INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 1, 0);");
  db.Exec(std::string("CREATE VIEW ThreadNames AS ") + kEndlessRows +
          "SELECT x AS globalTid, 1 AS nameId FROM n;");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->gpu_ops.size(), 1u);
}

// An export of `kernels` kernel rows (rowids 1..kernels).
std::string KernelExport(ScratchSqliteFile& db, int kernels) {
  db.Exec(kStringIds);
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
      "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
      "INTEGER);");
  db.Exec(std::string("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ") +
          kEndlessRows + "SELECT x * 10, x * 10 + 5, 0, 7, x, 0 FROM n LIMIT " +
          Str(kernels) + ";");
  return db.Finish();
}

TEST(NsightConstructedTest, RowsAreEstimatedAndCountedAsTheyAreRead) {
  ScratchSqliteFile file("row_progress");
  const std::string path = KernelExport(file, 50'000);
  auto opened = nsight::SqliteDatabase::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status();
  nsight::SqliteDatabase& db = **opened;
  std::vector<uint64_t> reported;
  db.SetProgress([&](uint64_t rows) { reported.push_back(rows); });
  auto stmt = db.Prepare("SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL");
  ASSERT_TRUE(stmt.ok());
  int64_t rows = 0;
  while (stmt->Step()) ++rows;
  EXPECT_EQ(rows, 50'000);
  // Reported while the statement stepped, rising, never past the rows
  // returned.
  ASSERT_GE(reported.size(), 10u);
  EXPECT_TRUE(std::is_sorted(reported.begin(), reported.end()));
  EXPECT_GT(reported.back(), 40'000u);
  EXPECT_LE(reported.back(), 50'000u);

  EXPECT_EQ(db.EstimatedRows("CUPTI_ACTIVITY_KIND_KERNEL"), 50'000u);
  EXPECT_EQ(db.EstimatedRows("StringIds"), 0u);    // empty
  EXPECT_EQ(db.EstimatedRows("NVTX_EVENTS"), 0u);  // missing
}

TEST(NsightConstructedTest, AHugeRowidIsNotTakenForThatManyRows) {
  // A damaged or edited export whose largest rowid is 2^62: the estimate
  // (and the room reserved from it) stays within the file's size, and the
  // rows are read.
  ScratchSqliteFile file("huge_rowid");
  file.Exec(kStringIds);
  file.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
      "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
      "INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (rowid, start, end, deviceId, "
      "streamId, correlationId, globalPid) VALUES (1, 10, 20, 0, 7, 1, 0), "
      "(4611686018427387904, 30, 40, 0, 7, 2, 0);");
  const std::string path = file.Finish();
  auto opened = nsight::SqliteDatabase::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ((*opened)->EstimatedRows("CUPTI_ACTIVITY_KIND_KERNEL"),
            std::filesystem::file_size(path) / 8);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->gpu_ops.size(), 2u);
}

TEST(NsightConstructedTest, AReadShowsItsShareOfTheRowsOnTheProgressLine) {
  ScratchSqliteFile file("progress_line");
  const std::string path = KernelExport(file, 200'000);
  // A terminal whose clock moves 100 ms each time it is read.
  std::vector<std::string> lines;
  int64_t now_ns = 0;
  common::ReadProgress::Output output;
  output.write = [&](std::string_view text) { lines.emplace_back(text); };
  output.now = [&] {
    now_ns += 100'000'000;
    return common::ReadProgress::Clock::time_point(
        std::chrono::nanoseconds(now_ns));
  };
  output.force = true;
  {
    common::ReadProgress root("db", std::filesystem::file_size(path), output);
    common::ReadProgress::ScopedParent parent(&root);
    auto tl = ReadNsightTrace(path);
    ASSERT_TRUE(tl.ok()) << tl.status();
    EXPECT_EQ(tl->gpu_ops.size(), 200'000u);
  }
  // Lines while the kernels were read, each a share of the file that only
  // grows and stays short of 100 %, then the line cleared.
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.back(), "\r\033[K");
  int last = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::string prefix = "\r\033[Kfeedprof: reading db: ";
    ASSERT_EQ(line.rfind(prefix, 0), 0u) << line;
    const int share = std::stoi(line.substr(prefix.size()));
    EXPECT_GE(share, last) << line;
    EXPECT_LT(share, 100) << line;
    last = share;
  }
  EXPECT_GT(last, 50);
}

TEST(NsightConstructedTest, ZeroByteSqliteFileIsNotAnExport) {
  const std::string path = ::testing::TempDir() + "/nsight_zero.sqlite";
  { std::ofstream(path, std::ios::trunc); }
  auto tl = ReadNsightTrace(path);
  ASSERT_FALSE(tl.ok());
  EXPECT_NE(tl.status().message().find("not a SQLite database"),
            std::string::npos)
      << tl.status();
  std::filesystem::remove(path);
}

TEST(NsightConstructedTest, NotSqliteAndMissingFile) {
  const std::string path = ::testing::TempDir() + "/nsight_not_sqlite.json";
  { std::ofstream(path) << "{\"traceEvents\": []}"; }
  auto tl = ReadNsightTrace(path);
  ASSERT_FALSE(tl.ok());
  EXPECT_EQ(tl.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(tl.status().message().find("not a SQLite database"),
            std::string::npos);
  EXPECT_NE(tl.status().message().find("nsys export --type sqlite"),
            std::string::npos);
  EXPECT_FALSE(LooksLikeSqliteFile(path));
  std::filesystem::remove(path);

  auto missing = ReadNsightTrace(::testing::TempDir() + "/no/such.sqlite");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

// Writes the first `keep` bytes of `from` to a temp file and returns it.
std::string TruncatedCopy(const std::string& from, double keep,
                          const std::string& name) {
  std::ifstream in(from, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  bytes.resize(static_cast<size_t>(static_cast<double>(bytes.size()) * keep));
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Each cut either fails with a message naming the file, or is salvaged with
// a warning; never a crash.
void ExpectErrorOrWarning(const std::string& path) {
  auto tl = ReadNsightTrace(path);
  if (!tl.ok()) {
    EXPECT_NE(tl.status().message().find(path), std::string::npos)
        << tl.status();
  } else {
    EXPECT_FALSE(tl->warnings.empty()) << path;
  }
}

TEST(NsightConstructedTest, TruncatedMockIsAnErrorOrSalvaged) {
  const std::string mock =
      std::string(FEEDPROF_SHARED_TRACES_DIR) + "/nsys_ai/mock.sqlite";
  if (!std::filesystem::exists(mock)) {
    GTEST_SKIP() << "shared trace " << mock << " not found";
  }
  const std::string half = TruncatedCopy(mock, 0.5, "nsight_mock_half.sqlite");
  auto tl = ReadNsightTrace(half);
  if (!tl.ok()) {
    EXPECT_EQ(tl.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(tl.status().message().find(half), std::string::npos);
    EXPECT_NE(tl.status().message().find("corrupt or truncated"),
              std::string::npos)
        << tl.status();
  } else {
    EXPECT_TRUE(AnyWarningContains(*tl, "is truncated or corrupt"));
    // At most what the whole file holds.
    EXPECT_LE(tl->gpu_ops.size(), 3u);
    EXPECT_LE(tl->api_calls.size(), 9u);
  }
  std::filesystem::remove(half);
}

TEST(NsightConstructedTest, TruncatedTableIsSalvagedWithWarning) {
  ScratchSqliteFile db("salvage");
  db.Exec(kStringIds);
  db.Exec("INSERT INTO StringIds VALUES (1, 'k');");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
      "deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid "
      "INTEGER, demangledName INTEGER);");
  // 20000 kernels, written in start order: the first pages of the table
  // hold the first kernels.
  db.Exec(
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE "
      "i < 19999) INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT i * 10, "
      "i * 10 + 5, 0, 7, i + 1, " +
      Str(GlobalId(5, 0)) + ", 1 FROM n;");
  const std::string cut =
      TruncatedCopy(db.Finish(), 0.6, "nsight_salvage_cut.sqlite");
  auto tl = ReadNsightTrace(cut);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_GT(tl->gpu_ops.size(), 1000u);
  EXPECT_LT(tl->gpu_ops.size(), 20000u);
  EXPECT_TRUE(AnyWarningContains(*tl, "is truncated or corrupt"));
  EXPECT_TRUE(AnyWarningContains(
      *tl, "table CUPTI_ACTIVITY_KIND_KERNEL could not be read completely"));
  // The salvaged kernels are whole rows from the start of the table.
  for (size_t i = 0; i < tl->gpu_ops.size(); ++i) {
    ASSERT_EQ(tl->gpu_ops[i].start, static_cast<TimeNs>(i) * 10);
    ASSERT_EQ(tl->strings.Get(tl->gpu_ops[i].name), "k");
  }
  std::filesystem::remove(cut);
}

TEST(NsightConstructedTest, TruncatedCopiesAtManyCutsNeverCrash) {
  const std::string saxpy =
      std::string(FEEDPROF_SHARED_TRACES_DIR) +
      "/nsys_sqlite_saxpy/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";
  if (!std::filesystem::exists(saxpy)) {
    GTEST_SKIP() << "shared trace " << saxpy << " not found";
  }
  for (double keep : {0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99}) {
    SCOPED_TRACE(keep);
    const std::string path =
        TruncatedCopy(saxpy, keep, "nsight_saxpy_cut.sqlite");
    ExpectErrorOrWarning(path);
    std::filesystem::remove(path);
  }
}

// Times at the ends of int64 (a damaged or hand-edited export) would
// overflow every later difference: such rows are skipped and counted.
TEST(NsightConstructedTest, RowsWithOutOfRangeTimesAreSkippedWithAWarning) {
  ScratchSqliteFile db("out_of_range_times");
  const std::string tid = Str(GlobalId(42, 43));
  db.Exec(kStringIds);
  db.Exec(
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), "
      "(2, 'k');");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER NOT NULL);");
  db.Exec(
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES "
      "(-9223372036854775808, 9223372036854775807, 0, " +
      tid + ", 1, 1), (100, 110, 0, " + tid + ", 2, 1);");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, deviceId INTEGER NOT NULL, streamId INTEGER, "
      "correlationId INTEGER, globalPid INTEGER, shortName INTEGER);");
  db.Exec(
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
      "(120, 9223372036854775807, 0, 7, 1, " +
      Str(GlobalId(42, 0)) + ", 2), (130, 150, 0, 7, 2, " +
      Str(GlobalId(42, 0)) + ", 2);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->api_calls.size(), 1u);
  EXPECT_EQ(tl->api_calls[0].start, 100);
  EXPECT_EQ(tl->api_calls[0].end, 110);
  ASSERT_EQ(tl->gpu_ops.size(), 1u);
  EXPECT_EQ(tl->gpu_ops[0].start, 130);
  EXPECT_EQ(tl->gpu_ops[0].end, 150);
  EXPECT_EQ(tl->gpu_ops[0].correlation, 2u);
  EXPECT_TRUE(AnyWarningContains(*tl, "skipped 2 events whose start or end"));
}

// ±2^62 itself is out of range: a row from -2^62 to 2^62 lasts 2^63 ns, one
// past INT64_MAX. The widest row kept, ±(2^62 - 1), analyses to exact
// figures.
TEST(NsightConstructedTest, TimesAtTwoToThe62AreSkippedTheWidestKeptAnalyse) {
  ScratchSqliteFile db("two_to_the_62");
  const std::string tid = Str(GlobalId(42, 43));
  const std::string pid = Str(GlobalId(42, 0));
  const std::string edge = "4611686018427387904";    // 2^62
  const std::string widest = "4611686018427387903";  // 2^62 - 1
  db.Exec(kStringIds);
  db.Exec(
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), "
      "(2, 'k');");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER NOT NULL);");
  db.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (-" + edge + ", " +
          edge + ", 0, " + tid + ", 1, 1), (-" + widest + ", -" + widest +
          ", 0, " + tid + ", 2, 1);");
  db.Exec(
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, "
      "end INTEGER NOT NULL, deviceId INTEGER NOT NULL, streamId INTEGER, "
      "correlationId INTEGER, globalPid INTEGER, shortName INTEGER);");
  db.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-" + edge + ", " +
          edge + ", 0, 7, 1, " + pid + ", 2), (-" + widest + ", " + widest +
          ", 0, 7, 2, " + pid + ", 2);");
  auto tl = ReadNsightTrace(db.Finish());
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->gpu_ops.size(), 1u);
  EXPECT_EQ(tl->gpu_ops[0].start, -4611686018427387903);
  EXPECT_EQ(tl->gpu_ops[0].end, 4611686018427387903);
  ASSERT_EQ(tl->api_calls.size(), 1u);
  EXPECT_EQ(tl->api_calls[0].correlation, 2u);
  EXPECT_TRUE(AnyWarningContains(*tl, "skipped 2 events whose start or end"));

  auto report = Analyze(*tl, AnalysisOptions{});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->devices.size(), 1u);
  EXPECT_EQ(report->devices[0].span_ns, 9223372036854775806);  // 2^63 - 2
  EXPECT_EQ(report->devices[0].busy_ns, 9223372036854775806);
  EXPECT_EQ(report->devices[0].idle_ns, 0);
}

}  // namespace
}  // namespace feedprof
