// The callback path, driven with constructed CUpti_CallbackData exactly as
// CUPTI passes it: blocking calls are recorded with call sites, launches
// are not, nested calls share their site, reentrant entries do nothing.
#include "cupti_hooks/api_callbacks.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "cupti_hooks/call_sites.h"
#include "cupti_hooks/reentrancy_guard.h"
#include "tests/cupti_hooks/capture_sink.h"
#include "tests/cupti_hooks/loaded_cupti_test.h"

namespace feedprof::cupti {
namespace {

using test::captured;
using test::CaptureSink;

int g_flushes = 0;
void CountFlush() { ++g_flushes; }

class ApiCallbacksTest : public test::LoadedCuptiTest {
 public:
  void SetUp() override {
    LoadedCuptiTest::SetUp();
    if (HasFatalFailure()) return;
    captured().Clear();
    call_sites_ = std::make_unique<CallSiteRecorder>(CaptureSink());
    handler_ = std::make_unique<ApiCallbackHandler>(*table_, CaptureSink(),
                                                    call_sites_.get());
    handler_->set_flush_hook(&CountFlush);
    g_flushes = 0;
  }

  // One API call: entry, then exit, as CUPTI reports them.
  void Call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
            uint32_t correlation, const void* params = nullptr,
            int32_t result = 0) {
    Enter(domain, cbid, correlation, params);
    Exit(domain, cbid, correlation, params, result);
  }
  void Enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
             uint32_t correlation, const void* params = nullptr) {
    CUpti_CallbackData data{};
    data.callbackSite = CUPTI_API_ENTER;
    data.functionParams = params;
    data.correlationId = correlation;
    data.correlationData = &scratch_;
    handler_->OnCallback(domain, cbid, &data);
  }
  void Exit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
            uint32_t correlation, const void* params = nullptr,
            int32_t result = 0) {
    CUpti_CallbackData data{};
    data.callbackSite = CUPTI_API_EXIT;
    data.functionParams = params;
    data.functionReturnValue = &result;
    data.correlationId = correlation;
    data.correlationData = &scratch_;
    handler_->OnCallback(domain, cbid, &data);
  }

  std::vector<trace::CallSite> CallSitePackets() {
    std::vector<trace::CallSite> sites;
    for (const auto& p : captured().packets) {
      if (!p.has_call_sites()) continue;
      for (const auto& s : p.call_sites().call_sites()) sites.push_back(s);
    }
    return sites;
  }

  uint64_t scratch_ = 0;
  std::unique_ptr<CallSiteRecorder> call_sites_;
  std::unique_ptr<ApiCallbackHandler> handler_;
};

constexpr auto kRuntime = CUPTI_CB_DOMAIN_RUNTIME_API;
constexpr auto kDriver = CUPTI_CB_DOMAIN_DRIVER_API;

// Two distinct places in the program that make the same blocking call.
[[gnu::noinline]] void SyncFromPlaceA(ApiCallbacksTest* t, uint32_t corr);
[[gnu::noinline]] void SyncFromPlaceB(ApiCallbacksTest* t, uint32_t corr);

TEST_F(ApiCallbacksTest, BlockingCallIsRecordedWithItsCallSite) {
  cudaMemcpy_v3020_params params{};
  params.count = 4096;
  Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 42, &params, 0);

  ASSERT_EQ(captured().api_calls.size(), 1u);
  const preload::ApiCallRecord& r = captured().api_calls[0];
  EXPECT_EQ(captured().Text(r.name_id), "cudaMemcpy");
  EXPECT_EQ(r.correlation_id, 42u);
  EXPECT_EQ(r.bytes, 4096u);
  EXPECT_EQ(r.callback_id,
            static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020));
  EXPECT_EQ(r.domain, 1u);
  EXPECT_EQ(r.return_code, 0);
  // The test clock advances 1 µs per reading: entry and exit are adjacent.
  EXPECT_EQ(r.end_ns - r.start_ns, 1000u);
  EXPECT_NE(r.call_site_id, 0u);

  const auto sites = CallSitePackets();
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].id(), r.call_site_id);
  EXPECT_FALSE(sites[0].python());  // no interpreter in this process
  ASSERT_GE(sites[0].frames_size(), 1);
  EXPECT_LE(sites[0].frames_size(), 8);
  EXPECT_NE(sites[0].frames(0).pc(), 0u);
  // Native frames name the module they are in.
  EXPECT_NE(captured().Text(sites[0].frames(0).file_id()), "");
}

void SyncFromPlaceA(ApiCallbacksTest* t, uint32_t corr) {
  t->Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, corr);
}
void SyncFromPlaceB(ApiCallbacksTest* t, uint32_t corr) {
  t->Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, corr);
}

TEST_F(ApiCallbacksTest, ACallSiteIsInternedOncePerPlace) {
  // One loop, so the frames outside the two places are the same too.
  for (uint32_t i = 0; i < 7; ++i) {
    auto* place = i == 5 ? &SyncFromPlaceB : &SyncFromPlaceA;
    place(this, 100 + i);
  }

  const auto& calls = captured().api_calls;
  ASSERT_EQ(calls.size(), 7u);
  std::set<uint32_t> ids;
  for (const auto& c : calls) ids.insert(c.call_site_id);
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(calls[0].call_site_id, calls[4].call_site_id);
  EXPECT_EQ(calls[0].call_site_id, calls[6].call_site_id);
  EXPECT_NE(calls[0].call_site_id, calls[5].call_site_id);
  EXPECT_EQ(CallSitePackets().size(), 2u);  // one packet per new site
  EXPECT_EQ(call_sites_->call_sites(), 2u);
}

TEST_F(ApiCallbacksTest, LaunchesAndNoiseAreNotRecordedHere) {
  Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1);
  Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 2);
  Call(kDriver, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 3);
  EXPECT_TRUE(captured().api_calls.empty());
  EXPECT_TRUE(CallSitePackets().empty());
}

TEST_F(ApiCallbacksTest, NestedDriverCallSharesTheOuterCallSite) {
  cuMemcpyDtoH_v2_params driver_params{};
  driver_params.ByteCount = 4;
  Enter(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 10);
  Call(kDriver, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, 10, &driver_params, 0);
  Exit(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 10, nullptr, 0);

  const auto& calls = captured().api_calls;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(captured().Text(calls[0].name_id), "cuMemcpyDtoH");
  EXPECT_EQ(calls[0].domain, 2u);
  EXPECT_EQ(calls[0].bytes, 4u);
  EXPECT_EQ(captured().Text(calls[1].name_id), "cudaMemcpy");
  EXPECT_NE(calls[1].call_site_id, 0u);
  EXPECT_EQ(calls[0].call_site_id, calls[1].call_site_id);
  // The outer call encloses the inner one.
  EXPECT_LT(calls[1].start_ns, calls[0].start_ns);
  EXPECT_GT(calls[1].end_ns, calls[0].end_ns);
  EXPECT_EQ(CallSitePackets().size(), 1u);
}

TEST_F(ApiCallbacksTest, FailedCallKeepsItsReturnCode) {
  Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 5, nullptr,
       /*cudaErrorMemoryAllocation=*/2);
  ASSERT_EQ(captured().api_calls.size(), 1u);
  EXPECT_EQ(captured().api_calls[0].return_code, 2);
}

TEST_F(ApiCallbacksTest, ReentrantEntryDoesNothing) {
  {
    ReentrancyGuard outer;  // as if the collector were already running here
    ASSERT_TRUE(outer.entered());
    Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 7);
  }
  EXPECT_TRUE(captured().api_calls.empty());
  EXPECT_EQ(handler_->stats().reentrant, 2u);  // entry and exit refused
  Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 8);
  EXPECT_EQ(captured().api_calls.size(), 1u);
}

TEST_F(ApiCallbacksTest, ExitWithoutEntryIsCountedNotRecorded) {
  Exit(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 9);
  EXPECT_TRUE(captured().api_calls.empty());
  EXPECT_EQ(handler_->stats().unmatched_exits, 1u);
}

TEST_F(ApiCallbacksTest, ContextTeardownFlushesFirst) {
  Call(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, 11);
  EXPECT_EQ(g_flushes, 1);
  ASSERT_EQ(captured().api_calls.size(), 1u);
  EXPECT_EQ(captured().Text(captured().api_calls[0].name_id),
            "cudaDeviceReset");

  CUpti_ResourceData resource{};
  handler_->OnCallback(CUPTI_CB_DOMAIN_RESOURCE,
                       CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &resource);
  EXPECT_EQ(g_flushes, 2);
  handler_->OnCallback(CUPTI_CB_DOMAIN_RESOURCE,
                       CUPTI_CBID_RESOURCE_STREAM_CREATED, &resource);
  EXPECT_EQ(g_flushes, 2);
  EXPECT_EQ(handler_->stats().flushes, 2u);
}

TEST_F(ApiCallbacksTest, WithoutCallSiteRecorderCallsHaveNoSite) {
  ApiCallbackHandler no_sites(*table_, CaptureSink(), nullptr);
  CUpti_CallbackData data{};
  data.callbackSite = CUPTI_API_ENTER;
  data.correlationId = 3;
  no_sites.OnCallback(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &data);
  data.callbackSite = CUPTI_API_EXIT;
  no_sites.OnCallback(kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &data);
  ASSERT_EQ(captured().api_calls.size(), 1u);
  EXPECT_EQ(captured().api_calls[0].call_site_id, 0u);
  EXPECT_TRUE(CallSitePackets().empty());
}

TEST(CallSiteRecorderTest, HashDependsOnEveryFrame) {
  RawCallSite a;
  a.count = 3;
  a.address[0] = 0x1000;
  a.address[1] = 0x2000;
  a.address[2] = 0x3000;
  RawCallSite b = a;
  b.address[2] = 0x3001;
  RawCallSite c = a;
  c.python = true;
  c.offset[0] = c.offset[1] = c.offset[2] = 0;
  c.identity[0] = c.identity[1] = c.identity[2] = 0;
  EXPECT_NE(CallSiteRecorder::Hash(a), CallSiteRecorder::Hash(b));
  EXPECT_NE(CallSiteRecorder::Hash(a), CallSiteRecorder::Hash(c));
  EXPECT_EQ(CallSiteRecorder::Hash(a), CallSiteRecorder::Hash(RawCallSite(a)));
}

}  // namespace
}  // namespace feedprof::cupti
