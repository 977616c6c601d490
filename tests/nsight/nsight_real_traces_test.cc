// The Nsight Systems importer on real exports recorded by others
// (../shared/traces): the old-schema saxpy run (nsys 2022.2, A100) and the
// current-schema nsys-ai captures (nsys 2026.1). Expected counts come from
// the files themselves (queried with the sqlite3 CLI) and EXPECTED.md.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "feedprof/nsight_reader.h"

namespace feedprof {
namespace {

std::string TracePath(const std::string& relative) {
  return std::string(FEEDPROF_SHARED_TRACES_DIR) + "/" + relative;
}

#define SKIP_IF_MISSING(path)                                            \
  if (!std::filesystem::exists(path)) {                                  \
    GTEST_SKIP() << "shared trace " << (path)                            \
                 << " not found; set FEEDPROF_SHARED_TRACES_DIR to run " \
                    "the real-trace tests";                              \
  }

// One integer from a query on the raw file, to compare the import with.
int64_t QueryInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t value = -1;
  if (sqlite3_open_v2(("file:" + path + "?immutable=1").c_str(), &db,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                      nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      value = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

size_t CountOps(const Timeline& tl, GpuOpKind kind, int device = -1) {
  return static_cast<size_t>(
      std::count_if(tl.gpu_ops.begin(), tl.gpu_ops.end(), [&](const GpuOp& op) {
        return op.kind == kind && (device < 0 || op.device == device);
      }));
}

// Span and busy time (union of op intervals) over all GPU ops, in ns.
std::pair<TimeNs, TimeNs> SpanAndBusy(const Timeline& tl) {
  std::vector<std::pair<TimeNs, TimeNs>> intervals;
  for (const GpuOp& op : tl.gpu_ops) intervals.emplace_back(op.start, op.end);
  std::sort(intervals.begin(), intervals.end());
  if (intervals.empty()) return {0, 0};
  TimeNs busy = 0;
  TimeNs cur_start = intervals[0].first;
  TimeNs cur_end = intervals[0].second;
  TimeNs last_end = cur_end;
  for (const auto& [s, e] : intervals) {
    last_end = std::max(last_end, e);
    if (s > cur_end) {
      busy += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  busy += cur_end - cur_start;
  return {last_end - intervals[0].first, busy};
}

void ExpectUniqueCorrelations(const Timeline& tl) {
  std::set<std::pair<int32_t, uint64_t>> seen;
  for (const ApiCall& c : tl.api_calls) {
    if (c.correlation == 0) continue;
    EXPECT_TRUE(seen.emplace(c.pid, c.correlation).second)
        << "two API calls share pid " << c.pid << " correlation "
        << c.correlation;
  }
}

const ApiCall* FindCall(const Timeline& tl, uint64_t correlation) {
  for (const ApiCall& c : tl.api_calls) {
    if (c.correlation == correlation) return &c;
  }
  return nullptr;
}

constexpr const char* kSaxpy =
    "nsys_sqlite_saxpy/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";

TEST(NsightRealTracesTest, SaxpyOldSchemaCountsAndTiming) {
  const std::string path = TracePath(kSaxpy);
  SKIP_IF_MISSING(path);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->format, SourceFormat::kNsight);
  EXPECT_EQ(CountOps(*tl, GpuOpKind::kKernel), 5u);
  EXPECT_EQ(CountOps(*tl, GpuOpKind::kMemcpy), 15u);
  EXPECT_EQ(CountOps(*tl, GpuOpKind::kMemset), 0u);

  const auto [span, busy] = SpanAndBusy(*tl);
  EXPECT_NEAR(span / 1e6, 1097.33, 0.005);
  EXPECT_NEAR(busy / 1e6, 373.27, 0.005);

  // 24 NVTX rows: 22 push/pop ranges, one domain creation ("MPI"), one
  // thread naming ("MPI Rank 0").
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM NVTX_EVENTS"), 24);
  EXPECT_EQ(tl->ranges.size(), 22u);
  EXPECT_TRUE(tl->marks.empty());
  size_t saxpy_ranges = 0;
  size_t mpi_ranges = 0;
  for (const Range& r : tl->ranges) {
    if (tl->strings.Get(r.name) == "saxpy") ++saxpy_ranges;
    if (tl->strings.Get(r.domain) == "MPI") ++mpi_ranges;
    EXPECT_EQ(r.pid, 1230493);
  }
  EXPECT_EQ(saxpy_ranges, 5u);
  EXPECT_EQ(mpi_ranges, 17u);
  EXPECT_TRUE(tl->available.ranges);
}

TEST(NsightRealTracesTest, SaxpyNestedDuplicateApiRowsAreMerged) {
  const std::string path = TracePath(kSaxpy);
  SKIP_IF_MISSING(path);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  // 95 rows: 38 calls recorded twice (unsuffixed backtrace row around the
  // suffixed CUPTI row, same correlation id), plus 19 single rows.
  ASSERT_EQ(QueryInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
            95);
  const int64_t distinct = QueryInt(
      path,
      "SELECT count(*) FROM (SELECT DISTINCT globalTid, correlationId FROM "
      "CUPTI_ACTIVITY_KIND_RUNTIME)");
  EXPECT_EQ(distinct, 57);
  EXPECT_EQ(tl->api_calls.size(), 57u);
  ExpectUniqueCorrelations(*tl);

  std::map<std::string, int> by_name;
  for (const ApiCall& c : tl->api_calls) {
    ++by_name[std::string(tl->strings.Get(c.name))];
    EXPECT_EQ(c.pid, 1230493);
    EXPECT_EQ(c.tid, 1230493);
  }
  EXPECT_EQ(by_name["cudaLaunchKernel"], 5);
  EXPECT_EQ(by_name["cudaMemcpy"], 15);
  EXPECT_EQ(by_name["cudaMalloc"], 15);
  EXPECT_EQ(by_name["cudaFree"], 3);
  EXPECT_EQ(by_name["cudaHostRegister"], 9);
  EXPECT_EQ(by_name["cudaHostUnregister"], 9);
  EXPECT_EQ(by_name["cuModuleGetLoadingMode"], 1);
  EXPECT_EQ(by_name.count("cudaLaunchKernel_v7000"), 0u);

  // The kept row is the inner, CUPTI-timed one (eventClass 0), and it
  // carries the outer row's backtrace as its call site.
  const ApiCall* launch = FindCall(*tl, 140);
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->start, 924890173);
  EXPECT_EQ(launch->end, 924923126);
  EXPECT_EQ(launch->domain, ApiDomain::kRuntime);
  ASSERT_GT(launch->call_site, 0u);
  ASSERT_LT(launch->call_site, tl->call_sites.size());
  const CallSite& site = tl->call_sites[launch->call_site];
  // This export numbers CUDA_CALLCHAINS from 1 and the API rows from 0: the
  // launch's stack is chain 6 (callchainId 5). Its first frame past CUPTI,
  // libcuda, libcudart and the inline cudaLaunchKernel<char> wrapper is the
  // host stub of the saxpy kernel.
  ASSERT_FALSE(site.frames.empty());
  EXPECT_EQ(tl->strings.Get(site.frames[0].function),
            "saxpy(double*, double*, double*, double, int)");
  EXPECT_TRUE(tl->available.call_sites);
  for (uint64_t correlation : {135u, 138u, 209u}) {  // malloc, memcpy, free
    const ApiCall* call = FindCall(*tl, correlation);
    ASSERT_NE(call, nullptr);
    ASSERT_GT(call->call_site, 0u);
    const CallSite& s = tl->call_sites[call->call_site];
    ASSERT_FALSE(s.frames.empty());
    EXPECT_EQ(tl->strings.Get(s.frames[0].function), "main") << correlation;
  }
  EXPECT_EQ(FindCall(*tl, 1)->domain, ApiDomain::kDriver);

  // Copies: 262144000 bytes each, pageable host memory (nsys kind 0).
  const ApiCall* memcpy_call = FindCall(*tl, 138);
  ASSERT_NE(memcpy_call, nullptr);
  EXPECT_EQ(memcpy_call->bytes, 262144000u);
  size_t h2d = 0;
  for (const GpuOp& op : tl->gpu_ops) {
    if (op.kind != GpuOpKind::kMemcpy) continue;
    EXPECT_EQ(op.bytes, 262144000u);
    EXPECT_FALSE(op.async);
    if (op.copy_kind == CopyKind::kHtoD) {
      ++h2d;
      EXPECT_EQ(op.src_kind, MemoryKind::kPageable);
      EXPECT_EQ(op.dst_kind, MemoryKind::kDevice);
    } else {
      EXPECT_EQ(op.copy_kind, CopyKind::kDtoH);
      EXPECT_EQ(op.src_kind, MemoryKind::kDevice);
      EXPECT_EQ(op.dst_kind, MemoryKind::kPageable);
    }
  }
  EXPECT_EQ(h2d, 10u);
}

TEST(NsightRealTracesTest, SaxpyKernelsDevicesProcesses) {
  const std::string path = TracePath(kSaxpy);
  SKIP_IF_MISSING(path);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  const GpuOp& k = *std::find_if(
      tl->gpu_ops.begin(), tl->gpu_ops.end(),
      [](const GpuOp& op) { return op.kind == GpuOpKind::kKernel; });
  EXPECT_EQ(tl->strings.Get(k.name),
            "saxpy(double *, double *, double *, double, int)");
  EXPECT_EQ(tl->LaunchOf(k).grid[0], 2u);
  EXPECT_EQ(tl->LaunchOf(k).block[0], 512u);
  EXPECT_EQ(k.stream, 7);
  EXPECT_EQ(k.device, 0);
  EXPECT_EQ(k.pid, 1230493);
  EXPECT_EQ(k.correlation, 140u);

  ASSERT_EQ(tl->devices.size(), 1u);
  EXPECT_EQ(tl->devices[0].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(tl->devices[0].sm_count, 108u);
  EXPECT_EQ(tl->devices[0].memory_bytes, 42297524224u);
  EXPECT_EQ(tl->devices[0].pci_bus_id, "0000:03:00.0");

  // PROCESSES lists 1667 processes of the node; only the traced one stays.
  ASSERT_EQ(tl->processes.size(), 1u);
  EXPECT_EQ(tl->processes[0].pid, 1230493);
  EXPECT_EQ(tl->processes[0].command, "./saxpy-mpi-cuda");
  bool main_thread = false;
  for (const Thread& t : tl->threads) {
    if (t.tid == 1230493) main_thread = t.is_main;
  }
  EXPECT_TRUE(main_thread);
  EXPECT_TRUE(tl->available.api_calls);
  EXPECT_TRUE(tl->available.correlation);
}

TEST(NsightRealTracesTest, SaxpySchedulerEventsBecomeThreadSamples) {
  const std::string path = TracePath(kSaxpy);
  SKIP_IF_MISSING(path);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(tl->available.host_samples);
  // On-CPU time of the main thread: the sum of its switched-in intervals.
  const int64_t main_tid = 302119224788637;
  const int64_t on_cpu = QueryInt(
      path,
      "SELECT sum(nxt - start) FROM (SELECT start, isSchedIn, lead(start) "
      "OVER (ORDER BY start) AS nxt FROM SCHED_EVENTS WHERE globalTid = " +
          std::to_string(main_tid) +
          ") WHERE isSchedIn = 1 AND nxt IS NOT NULL");
  ASSERT_EQ(on_cpu, 1900723471);
  std::vector<ThreadSample> main;
  std::set<int32_t> tids;
  for (const ThreadSample& s : tl->thread_samples) {
    tids.insert(s.tid);
    if (s.tid == 1230493) main.push_back(s);
  }
  EXPECT_EQ(tids.size(), 8u);  // every thread with scheduler events
  ASSERT_GT(main.size(), 2000u);
  EXPECT_EQ(main.front().ts, 21932);      // first switch
  EXPECT_EQ(main.back().ts, 2192378988);  // last switch
  EXPECT_EQ(main.back().user_ns, on_cpu);
  EXPECT_EQ(main[1].ts - main[0].ts, 1000000);  // 1 ms period
  size_t running = 0;
  for (size_t i = 1; i < main.size(); ++i) {
    ASSERT_GE(main[i].user_ns, main[i - 1].user_ns);
    ASSERT_LE(main[i].user_ns - main[i - 1].user_ns,
              main[i].ts - main[i - 1].ts);
    running += main[i].state == ThreadState::kRunning;
  }
  // On CPU 1.90 s of 2.19 s: most samples find it running.
  EXPECT_GT(running, main.size() * 8 / 10);
  EXPECT_EQ(tl->threads.size(), 8u);
}

// The saxpy capture sampled the main thread's stacks (COMPOSITE_EVENTS,
// SAMPLING_CALLCHAINS: 5451 samples, 294 distinct stacks of 1 to 35 frames,
// 11 of them with kernel frames).
TEST(NsightRealTracesTest, SaxpyCpuSamplesBecomeStackSamples) {
  const std::string path = TracePath(kSaxpy);
  SKIP_IF_MISSING(path);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(QueryInt(path, "SELECT count(*) FROM COMPOSITE_EVENTS"), 5451);
  ASSERT_EQ(tl->stack_samples.size(), 5451u);
  std::set<uint32_t> stacks;
  size_t kernel_stacks = 0;
  for (const StackSample& s : tl->stack_samples) {
    EXPECT_EQ(s.pid, 1230493);
    EXPECT_EQ(s.tid, 1230493);
    // The median gap between consecutive samples: about 5 kHz.
    EXPECT_EQ(s.weight_ns, 197070);
    ASSERT_GT(s.stack, 0u);
    ASSERT_LT(s.stack, tl->call_sites.size());
    if (stacks.insert(s.stack).second) {
      const CallSite& site = tl->call_sites[s.stack];
      EXPECT_FALSE(site.python);
      EXPECT_GE(site.frames.size(), 1u);
      EXPECT_LE(site.frames.size(), 35u);
      kernel_stacks += std::any_of(
          site.frames.begin(), site.frames.end(), [&](const Frame& f) {
            return tl->strings.Get(f.module) == "[kernel.kallsyms]";
          });
    }
  }
  EXPECT_EQ(stacks.size(), 294u);
  EXPECT_EQ(kernel_stacks, 11u);
  EXPECT_TRUE(std::is_sorted(
      tl->stack_samples.begin(), tl->stack_samples.end(),
      [](const StackSample& a, const StackSample& b) { return a.ts < b.ts; }));
  // The second sample (id 2): seven frames in the loader, innermost first.
  const StackSample& second = tl->stack_samples[1];
  EXPECT_EQ(second.ts, 25074100);
  const CallSite& site = tl->call_sites[second.stack];
  ASSERT_EQ(site.frames.size(), 7u);
  EXPECT_EQ(tl->strings.Get(site.frames[0].function), "do_lookup_x");
  EXPECT_EQ(tl->strings.Get(site.frames[1].function), "_dl_lookup_symbol_x");
  EXPECT_EQ(tl->strings.Get(site.frames[6].function), "0x7fd9a16fe558");
  for (const Frame& f : site.frames) {
    EXPECT_EQ(f.kind, FrameKind::kNative);
    EXPECT_EQ(tl->strings.Get(f.module), "/lib64/ld-2.31.so");
  }
  for (const std::string& w : tl->warnings) {
    EXPECT_EQ(w.find("SAMPLING_CALLCHAINS"), std::string::npos) << w;
    EXPECT_EQ(w.find("COMPOSITE_EVENTS"), std::string::npos) << w;
  }
}

TEST(NsightRealTracesTest, MockCurrentSchema) {
  const std::string path = TracePath("nsys_ai/mock.sqlite");
  SKIP_IF_MISSING(path);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(CountOps(*tl, GpuOpKind::kKernel), 2u);
  EXPECT_EQ(CountOps(*tl, GpuOpKind::kMemcpy), 1u);
  EXPECT_EQ(tl->api_calls.size(), 9u);
  ExpectUniqueCorrelations(*tl);
  ASSERT_EQ(tl->syncs.size(), 1u);
  // The export's syncType says 2 ("Stream wait sync" in its own enum table),
  // but the call is cudaStreamSynchronize: classified by the API name.
  ASSERT_EQ(
      QueryInt(path,
               "SELECT syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"),
      2);
  const SyncRecord& sync = tl->syncs[0];
  EXPECT_EQ(sync.type, SyncType::kStreamSynchronize);
  EXPECT_EQ(sync.correlation, 172u);
  EXPECT_EQ(sync.pid, 91186);
  EXPECT_EQ(sync.tid, 91186);
  EXPECT_EQ(sync.stream, 7);
  EXPECT_EQ(sync.end - sync.start, 1540179933 - 1540166277);
  EXPECT_TRUE(tl->available.sync_records);
  EXPECT_FALSE(tl->available.ranges);        // no NVTX_EVENTS table
  EXPECT_FALSE(tl->available.host_samples);  // no SCHED_EVENTS table
  EXPECT_TRUE(tl->thread_samples.empty());

  const GpuOp& copy = *std::find_if(
      tl->gpu_ops.begin(), tl->gpu_ops.end(),
      [](const GpuOp& op) { return op.kind == GpuOpKind::kMemcpy; });
  EXPECT_EQ(copy.copy_kind, CopyKind::kDtoH);
  EXPECT_EQ(copy.src_kind, MemoryKind::kDevice);
  EXPECT_EQ(copy.dst_kind, MemoryKind::kPinned);
  EXPECT_TRUE(copy.async);  // launched by cudaMemcpyAsync
  EXPECT_EQ(copy.bytes, 4u);

  std::set<std::string> names;
  for (const ApiCall& c : tl->api_calls) {
    names.emplace(tl->strings.Get(c.name));
  }
  EXPECT_EQ(names,
            (std::set<std::string>{
                "cuModuleGetLoadingMode", "cudaGetDeviceProperties",
                "cudaStreamIsCapturing", "cudaMalloc", "cudaLaunchKernel",
                "cudaHostAlloc", "cudaMemcpyAsync", "cudaStreamSynchronize"}));
  ASSERT_EQ(tl->devices.size(), 1u);
  EXPECT_EQ(tl->devices[0].name, "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(tl->devices[0].sm_count, 68u);
  EXPECT_EQ(tl->devices[0].memory_bytes, 10736893952u);
}

struct MfuExpectation {
  const char* file;
  size_t kernels;
  size_t memcpys;
  size_t memsets;
  size_t syncs;
  size_t api_calls;
  size_t nvtx;
  size_t event_syncs;  // cudaEventQuery
  size_t stream_waits;
  size_t stream_syncs;
  int32_t first_pid;  // the two training processes: first_pid, +1
};

class NsightMfuTest : public ::testing::TestWithParam<MfuExpectation> {};

TEST_P(NsightMfuTest, TwoGpuTrainingRun) {
  const MfuExpectation& e = GetParam();
  const std::string path = TracePath(std::string("nsys_ai/") + e.file);
  SKIP_IF_MISSING(path);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(CountOps(*tl, GpuOpKind::kKernel), e.kernels);
  EXPECT_EQ(CountOps(*tl, GpuOpKind::kMemcpy), e.memcpys);
  EXPECT_EQ(CountOps(*tl, GpuOpKind::kMemset), e.memsets);
  EXPECT_EQ(tl->syncs.size(), e.syncs);
  EXPECT_EQ(tl->api_calls.size(), e.api_calls);
  EXPECT_EQ(tl->ranges.size(), e.nvtx);
  ExpectUniqueCorrelations(*tl);

  // Two GPUs, one process each, no GPU description tables in this export.
  ASSERT_EQ(tl->devices.size(), 2u);
  EXPECT_EQ(tl->devices[0].id, 0);
  EXPECT_EQ(tl->devices[1].id, 1);
  EXPECT_GT(CountOps(*tl, GpuOpKind::kKernel, 0), 0u);
  EXPECT_GT(CountOps(*tl, GpuOpKind::kKernel, 1), 0u);
  std::set<int32_t> gpu_pids;
  for (const GpuOp& op : tl->gpu_ops) gpu_pids.insert(op.pid);
  EXPECT_EQ(gpu_pids, (std::set<int32_t>{e.first_pid, e.first_pid + 1}));

  std::map<SyncType, size_t> by_type;
  for (const SyncRecord& s : tl->syncs) {
    ++by_type[s.type];
    EXPECT_NE(s.tid, 0);  // thread taken from the correlated call
  }
  EXPECT_EQ(by_type[SyncType::kEventSynchronize], e.event_syncs);
  EXPECT_EQ(by_type[SyncType::kStreamWaitEvent], e.stream_waits);
  EXPECT_EQ(by_type[SyncType::kStreamSynchronize], e.stream_syncs);
  EXPECT_EQ(by_type[SyncType::kUnknown], 0u);

  // NVTX names are inline text or registered strings; none is empty.
  for (const Range& r : tl->ranges) {
    EXPECT_FALSE(tl->strings.Get(r.name).empty());
  }
  EXPECT_TRUE(std::is_sorted(
      tl->gpu_ops.begin(), tl->gpu_ops.end(),
      [](const GpuOp& a, const GpuOp& b) { return a.start < b.start; }));
  EXPECT_TRUE(tl->stack_samples.empty());  // captured without CPU sampling
}

INSTANTIATE_TEST_SUITE_P(
    BeforeAndAfter, NsightMfuTest,
    ::testing::Values(MfuExpectation{"mfu_2gpu_before.sqlite", 4010, 1020, 269,
                                     366, 7466, 19118, 133, 200, 33, 144},
                      MfuExpectation{"mfu_2gpu_after.sqlite", 3587, 904, 242,
                                     334, 6682, 17113, 124, 180, 30, 148}),
    [](const ::testing::TestParamInfo<MfuExpectation>& param) {
      return std::string(param.param.file).find("before") != std::string::npos
                 ? std::string("Before")
                 : std::string("After");
    });

TEST(NsightRealTracesTest, MfuBeforeHasPageableCopies) {
  const std::string path = TracePath("nsys_ai/mfu_2gpu_before.sqlite");
  SKIP_IF_MISSING(path);
  auto tl = ReadNsightTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  size_t pageable_h2d = 0;
  size_t dtod = 0;
  for (const GpuOp& op : tl->gpu_ops) {
    if (op.kind != GpuOpKind::kMemcpy) continue;
    if (op.copy_kind == CopyKind::kHtoD &&
        op.src_kind == MemoryKind::kPageable) {
      ++pageable_h2d;
    }
    if (op.copy_kind == CopyKind::kDtoD) ++dtod;
  }
  EXPECT_EQ(pageable_h2d, 34u);
  EXPECT_EQ(dtod, 986u);
}

}  // namespace
}  // namespace feedprof
