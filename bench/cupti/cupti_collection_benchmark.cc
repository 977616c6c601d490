// Costs of the CUPTI collection paths (README "Speed"):
//  * converting one CUPTI kernel record into the trace (target < 50 ns),
//    alone and through libcupti's own record iterator on a full buffer;
//  * one API callback (entry + exit) of a blocking call, with and without
//    capturing its call site, and of a call the callbacks ignore.
// The sink accepts packets without copying them, so what is measured is
// the collector's own work.
#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "cupti_hooks/activity_converter.h"
#include "cupti_hooks/api_callbacks.h"
#include "cupti_hooks/api_table.h"
#include "cupti_hooks/call_sites.h"
#include "cupti_hooks/cupti_loader.h"

namespace feedprof::cupti {
namespace {

uint64_t g_packet_bytes = 0;
uint64_t g_api_calls = 0;

bool KeepPacket(const uint8_t*, size_t size) {
  g_packet_bytes += size;
  return true;
}
uint32_t InternAny(std::string_view text) {
  return static_cast<uint32_t>(text.size() + 1);
}
void KeepApiCall(const preload::ApiCallRecord& record) {
  g_api_calls += record.call_site_id + 1;
}
void IgnoreDrops(uint64_t, uint64_t, uint64_t) {}
uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<uint64_t>(ts.tv_nsec);
}
const RecorderSink kSink{&KeepPacket, &InternAny, &KeepApiCall, &IgnoreDrops,
                         &MonotonicNs};

struct Loaded {
  CuptiApi api;
  std::unique_ptr<ApiTable> table = std::make_unique<ApiTable>();
  bool ok = false;
  Loaded() {
    char message[1024];
    ok = LoadCupti(&api, message, sizeof message) == LoadStatus::kLoaded;
    if (ok) table->Build(api);
  }
};
Loaded& cupti() {
  static Loaded* loaded = new Loaded();
  return *loaded;
}

// False, with the benchmark marked as failed, when libcupti is missing.
bool CuptiLoaded(benchmark::State& state) {
  if (cupti().ok) return true;
  state.SkipWithError("libcupti not found");
  return false;
}

CUpti_ActivityKernel10 Kernel(uint64_t start) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = start + 4'321;
  k.name = "_ZN2at6native29vectorized_elementwise_kernelILi4EEEvv";
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = 7;
  k.correlationId = static_cast<uint32_t>(start / 1000);
  k.gridX = 1024;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = 128;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 32;
  k.staticSharedMemory = 0;
  k.dynamicSharedMemory = 4096;
  return k;
}

void BM_ConvertKernelRecord(benchmark::State& state) {
  if (!CuptiLoaded(state)) return;
  auto converter =
      std::make_unique<ActivityConverter>(cupti().api, *cupti().table, kSink);
  CUpti_ActivityKernel10 k = Kernel(1'000'000'000);
  for (auto _ : state) {
    k.start += 5'000;
    k.end += 5'000;
    ++k.correlationId;
    benchmark::DoNotOptimize(
        converter->ConvertRecord(reinterpret_cast<CUpti_Activity*>(&k)));
  }
  converter->SubmitBatches();
  state.SetItemsProcessed(state.iterations());
  state.counters["bytes_per_kernel"] =
      benchmark::Counter(static_cast<double>(g_packet_bytes) /
                         static_cast<double>(state.iterations()));
  g_packet_bytes = 0;
}
BENCHMARK(BM_ConvertKernelRecord);

// The whole completion path for a buffer of kernels: libcupti's iterator,
// typed views, encoding, packet submission. Reported per record.
void BM_ConvertKernelBuffer(benchmark::State& state) {
  if (!CuptiLoaded(state)) return;
  auto converter =
      std::make_unique<ActivityConverter>(cupti().api, *cupti().table, kSink);
  const size_t records = static_cast<size_t>(state.range(0));
  std::vector<CUpti_ActivityKernel10> buffer(records);
  for (size_t i = 0; i < records; ++i)
    buffer[i] = Kernel(1'000'000 + 5'000 * i);
  for (auto _ : state) {
    converter->ConvertBuffer(reinterpret_cast<uint8_t*>(buffer.data()),
                             records * sizeof(CUpti_ActivityKernel10));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ConvertKernelBuffer)->Arg(32'768);

void CallOnce(ApiCallbackHandler& handler, CUpti_CallbackId cbid,
              uint32_t correlation) {
  int32_t result = 0;
  CUpti_CallbackData data{};
  data.callbackSite = CUPTI_API_ENTER;
  data.correlationId = correlation;
  data.functionReturnValue = &result;
  handler.OnCallback(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &data);
  data.callbackSite = CUPTI_API_EXIT;
  handler.OnCallback(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &data);
}

void BM_ApiCallbackWithoutCallSite(benchmark::State& state) {
  if (!CuptiLoaded(state)) return;
  ApiCallbackHandler handler(*cupti().table, kSink, nullptr);
  uint32_t correlation = 0;
  for (auto _ : state) {
    CallOnce(handler, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
             ++correlation);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ApiCallbackWithoutCallSite);

// A hot call site: native unwinding plus one table probe per call.
void BM_ApiCallbackWithCallSite(benchmark::State& state) {
  if (!CuptiLoaded(state)) return;
  auto call_sites = std::make_unique<CallSiteRecorder>(kSink);
  ApiCallbackHandler handler(*cupti().table, kSink, call_sites.get());
  uint32_t correlation = 0;
  for (auto _ : state) {
    CallOnce(handler, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
             ++correlation);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["call_sites"] = call_sites->call_sites();
}
BENCHMARK(BM_ApiCallbackWithCallSite);

// A call the collector enables no callback for would not reach it at all;
// this is the cost if CUPTI delivers one anyway (the role check).
void BM_ApiCallbackIgnoredLaunch(benchmark::State& state) {
  if (!CuptiLoaded(state)) return;
  ApiCallbackHandler handler(*cupti().table, kSink, nullptr);
  uint32_t correlation = 0;
  for (auto _ : state) {
    CallOnce(handler, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
             ++correlation);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ApiCallbackIgnoredLaunch);

}  // namespace
}  // namespace feedprof::cupti

BENCHMARK_MAIN();
