// The collector driven as a driver-backed CUPTI drives it, through a
// stand-in libcupti (fake_cupti.cc) loaded by FEEDPROF_CUPTI_PATH: what it
// enables at start in each mode, the callbacks and buffers CUPTI then
// delivers, flushes, and stop. Records are still parsed by the real
// libcupti.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cupti_hooks/collector.h"
#include "cupti_hooks/cupti_entry.h"
#include "tests/cupti_hooks/capture_sink.h"
#include "tests/cupti_hooks/fake_cupti.h"

namespace feedprof::cupti {
namespace {

using test::captured;
using test::CaptureSink;
using test::FakeCuptiState;

class FakeDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    library_ = dlopen(FEEDPROF_FAKE_CUPTI, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    auto state = reinterpret_cast<FakeCuptiState* (*)()>(
        dlsym(library_, "fake_cupti_state"));
    auto reset =
        reinterpret_cast<void (*)()>(dlsym(library_, "fake_cupti_reset"));
    ASSERT_NE(state, nullptr);
    reset();
    fake_ = state();
    setenv("FEEDPROF_CUPTI_PATH", FEEDPROF_FAKE_CUPTI, 1);
    setenv("FEEDPROF_NVML", "0", 1);
    unsetenv("FEEDPROF_CUPTI_BUFFER_MB");
    testing::ResetCollectionForTest();
    testing::SetRecorderSinkForTest(&CaptureSink());
    captured().Clear();
  }
  void TearDown() override {
    StopCollection();
    testing::SetRecorderSinkForTest(nullptr);
    testing::ResetCollectionForTest();
    unsetenv("FEEDPROF_CUPTI_PATH");
    unsetenv("FEEDPROF_NVML");
  }

  // Starts collection; returns what it printed.
  std::string Start(bool* started) {
    ::testing::internal::CaptureStderr();
    *started = StartCollection();
    return ::testing::internal::GetCapturedStderr();
  }

  void ApiCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                   CUpti_ApiCallbackSite site, uint32_t correlation) {
    int32_t result = 0;
    uint64_t scratch = 0;
    CUpti_CallbackData data{};
    data.callbackSite = site;
    data.correlationId = correlation;
    data.correlationData = &scratch;
    data.functionReturnValue = &result;
    fake_->callback(nullptr, domain, cbid, &data);
  }

  // CUPTI asks for a buffer, writes `records` into it and hands it back.
  template <typename... Records>
  void Deliver(const Records&... records) {
    uint8_t* buffer = nullptr;
    size_t size = 0;
    size_t max_records = 0;
    fake_->request(&buffer, &size, &max_records);
    ASSERT_NE(buffer, nullptr);
    size_t used = 0;
    ((std::memcpy(buffer + used, &records, sizeof records),
      used += sizeof records),
     ...);
    fake_->complete(nullptr, 0, buffer, size, used);
  }

  void* library_ = nullptr;
  FakeCuptiState* fake_ = nullptr;
};

CUpti_ActivityAPI RuntimeRecord(CUpti_CallbackId cbid, uint32_t correlation) {
  CUpti_ActivityAPI a{};
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = cbid;
  a.start = 5'000;
  a.end = 9'000;
  a.threadId = 31337;
  a.correlationId = correlation;
  return a;
}

TEST_F(FakeDriverTest, FullCollectionSetsUpEverythingQuietly) {
  bool started = false;
  EXPECT_EQ(Start(&started), "");
  EXPECT_TRUE(started);
  EXPECT_EQ(testing::LastCollectionMode(), CollectionMode::kFull);

  // One clock, system thread ids.
  EXPECT_EQ(fake_->timestamp_callback, CaptureSink().now_ns);
  EXPECT_EQ(fake_->thread_id_type, CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  // Every activity kind.
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_OVERHEAD,
        CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
        CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT,
        CUPTI_ACTIVITY_KIND_STREAM}) {
    EXPECT_TRUE(fake_->kinds_enabled[kind]) << kind;
  }
  // Devices, contexts and streams that existed before the start still get
  // records (a stream's kind is needed to find legacy default-stream use).
  EXPECT_TRUE(fake_->kinds_dumped[CUPTI_ACTIVITY_KIND_DEVICE]);
  EXPECT_TRUE(fake_->kinds_dumped[CUPTI_ACTIVITY_KIND_CONTEXT]);
  EXPECT_TRUE(fake_->kinds_dumped[CUPTI_ACTIVITY_KIND_STREAM]);
  EXPECT_FALSE(fake_->kinds_dumped[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]);
  // Callbacks for blocking calls and context teardown, none for launches.
  const auto& cb = fake_->callback_enabled;
  EXPECT_TRUE(cb[CUPTI_CB_DOMAIN_RUNTIME_API]
                [CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020]);
  EXPECT_TRUE(cb[CUPTI_CB_DOMAIN_RUNTIME_API]
                [CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020]);
  EXPECT_TRUE(cb[CUPTI_CB_DOMAIN_RUNTIME_API]
                [CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020]);
  EXPECT_TRUE(
      cb[CUPTI_CB_DOMAIN_DRIVER_API][CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize]);
  EXPECT_TRUE(cb[CUPTI_CB_DOMAIN_RESOURCE]
                [CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING]);
  EXPECT_FALSE(cb[CUPTI_CB_DOMAIN_RUNTIME_API]
                 [CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000]);
  EXPECT_FALSE(
      cb[CUPTI_CB_DOMAIN_DRIVER_API][CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel]);
  // Activity records: noise and callback-owned calls off, launches on.
  EXPECT_TRUE(
      fake_
          ->runtime_activity_off[CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020]);
  EXPECT_TRUE(fake_->runtime_activity_off
                  [CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020]);
  EXPECT_FALSE(fake_->runtime_activity_off
                   [CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000]);
  EXPECT_TRUE(
      fake_->driver_activity_off[CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent]);
  EXPECT_FALSE(
      fake_->driver_activity_off[CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel]);
}

TEST_F(FakeDriverTest, CallbacksAndBuffersFlowIntoTheTrace) {
  bool started = false;
  Start(&started);
  ASSERT_TRUE(started);
  fake_->dropped_per_completion = 7;

  ApiCallback(CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
              CUPTI_API_ENTER, 90);
  ApiCallback(CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
              CUPTI_API_EXIT, 90);
  ASSERT_EQ(captured().api_calls.size(), 1u);
  EXPECT_EQ(captured().api_calls[0].correlation_id, 90u);
  EXPECT_NE(captured().api_calls[0].call_site_id, 0u);

  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 10'000;
  k.end = 12'000;
  k.name = "_Z6kernelv";
  k.correlationId = 91;
  Deliver(
      k, RuntimeRecord(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 91),
      RuntimeRecord(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 90));
  const auto batches = captured().Batches();
  int kernels = 0;
  int api_calls = 0;
  for (const auto& b : batches) {
    kernels += b.kernels_size();
    api_calls += b.api_calls_size();
  }
  EXPECT_EQ(kernels, 1);
  // The sync came from the callback already; its activity record is not
  // written a second time.
  EXPECT_EQ(api_calls, 1);
  EXPECT_EQ(captured().records_dropped, 7u);
}

TEST_F(FakeDriverTest, FlushesAndStop) {
  bool started = false;
  Start(&started);
  ASSERT_TRUE(started);
  FlushCollection(false);
  EXPECT_EQ(fake_->flushes, 1);
  EXPECT_EQ(fake_->last_flush_flag, 0u);
  FlushCollection(true);
  EXPECT_EQ(fake_->flushes, 2);
  EXPECT_EQ(fake_->last_flush_flag,
            static_cast<uint32_t>(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

  // A context going away is flushed first, as is cudaDeviceReset.
  CUpti_ResourceData resource{};
  fake_->callback(nullptr, CUPTI_CB_DOMAIN_RESOURCE,
                  CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &resource);
  EXPECT_EQ(fake_->flushes, 3);
  ApiCallback(CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, CUPTI_API_ENTER,
              5);
  EXPECT_EQ(fake_->flushes, 4);
  EXPECT_EQ(fake_->last_flush_flag,
            static_cast<uint32_t>(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  ApiCallback(CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, CUPTI_API_EXIT,
              5);

  StopCollection();
  EXPECT_EQ(fake_->flushes, 5);
  EXPECT_EQ(fake_->last_flush_flag,
            static_cast<uint32_t>(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  EXPECT_EQ(fake_->unsubscribes, 1);
  // After stop, later flushes and callbacks do nothing.
  FlushCollection(true);
  EXPECT_EQ(fake_->flushes, 5);
  const size_t calls = captured().api_calls.size();
  ApiCallback(CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
              CUPTI_API_ENTER, 6);
  ApiCallback(CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
              CUPTI_API_EXIT, 6);
  EXPECT_EQ(captured().api_calls.size(), calls);
}

TEST_F(FakeDriverTest, AnotherSubscriberKeepsActivitiesWithoutCallSites) {
  fake_->subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  bool started = false;
  const std::string err = Start(&started);
  EXPECT_TRUE(started);
  EXPECT_EQ(testing::LastCollectionMode(), CollectionMode::kActivityOnly);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(err.rfind("feedprof: another tool already holds the CUPTI "
                      "subscriber (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_"
                      "SUPPORTED)",
                      0),
            0u)
      << err;
  EXPECT_TRUE(fake_->kinds_enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]);
  // Blocking calls now come from their activity records.
  EXPECT_FALSE(fake_->runtime_activity_off
                   [CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020]);
  EXPECT_TRUE(
      fake_
          ->runtime_activity_off[CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020]);
  Deliver(
      RuntimeRecord(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 90));
  const auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].api_calls_size(), 1);
  EXPECT_EQ(captured().Text(batches[0].api_calls(0).name_id()),
            "cudaStreamSynchronize");
  EXPECT_EQ(batches[0].api_calls(0).call_site_id(), 0u);
}

TEST_F(FakeDriverTest, ActivitiesRefusedMeansHostOnlyAndUnsubscribed) {
  fake_->kernel_enable_result = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  bool started = false;
  const std::string err = Start(&started);
  EXPECT_FALSE(started);
  EXPECT_EQ(testing::LastCollectionMode(), CollectionMode::kHostOnly);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos)
      << err;
  EXPECT_NE(err.find("host-only"), std::string::npos) << err;
  EXPECT_FALSE(fake_->subscribed);
  FlushCollection(true);
  EXPECT_EQ(fake_->flushes, 0);
}

TEST_F(FakeDriverTest, OtherCudaMajorIsRefused) {
  fake_->version = 120900;
  bool started = false;
  const std::string err = Start(&started);
  EXPECT_FALSE(started);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("has CUPTI API version 120900, this build needs 130001"),
            std::string::npos)
      << err;
  EXPECT_FALSE(fake_->subscribed);
  EXPECT_FALSE(fake_->kinds_enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]);
}

TEST_F(FakeDriverTest, WithoutTheTimestampCallbackTheClockOffsetIsApplied) {
  fake_->timestamp_callback_result = CUPTI_ERROR_NOT_SUPPORTED;
  fake_->cupti_timestamp = 500;
  const uint64_t before = captured().now;
  bool started = false;
  Start(&started);
  ASSERT_TRUE(started);
  const uint64_t after = captured().now;
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 600;
  k.end = 700;
  k.name = "_Z1kv";
  Deliver(k);
  const auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  // CUPTI time 600 is 100 ns after CUPTI's 500 = the recorder's "now".
  const uint64_t start = batches[0].base_ts_ns();
  EXPECT_GT(start, before + 100);
  EXPECT_LE(start, after + 100);
  EXPECT_EQ(batches[0].kernels(0).duration_ns(), 100u);
}

TEST_F(FakeDriverTest, ForkedChildNeverCallsCupti) {
  bool started = false;
  Start(&started);
  ASSERT_TRUE(started);
  OnForkChild();
  FlushCollection(true);
  StopCollection();
  EXPECT_EQ(fake_->flushes, 0);
  EXPECT_EQ(fake_->unsubscribes, 0);
  ApiCallback(CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
              CUPTI_API_ENTER, 1);
  ApiCallback(CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
              CUPTI_API_EXIT, 1);
  EXPECT_TRUE(captured().api_calls.empty());
}

}  // namespace
}  // namespace feedprof::cupti
