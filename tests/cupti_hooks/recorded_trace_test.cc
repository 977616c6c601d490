// From CUPTI buffer to trace file: records handed to the collector's
// buffer callbacks reach the real recorder, its writer thread writes them,
// and the file read back holds the events, their interned names and the
// zero-timestamp count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "cupti_hooks/collector.h"
#include "cupti_hooks/cupti_entry.h"
#include "preload/recorder.h"
#include "preload/recorder_control.h"
#include "tests/testing/trace_test_util.h"

namespace feedprof::cupti {
namespace {

class RecordedTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/feedprof-cupti-trace-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    root_ = templ;
    unsetenv("FEEDPROF_CUPTI_PATH");
    testing::ResetCollectionForTest();
    testing::SetRecorderSinkForTest(nullptr);  // the real recorder
  }
  void TearDown() override {
    preload::RecorderSummary ignored;
    preload::StopRecorder("shutdown", &ignored);
    testing::ResetCollectionForTest();
    std::string cmd = "rm -rf '" + root_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string root_;
};

TEST_F(RecordedTraceTest, BufferRecordsEndUpInTheTraceFile) {
  preload::Config config;
  std::snprintf(config.output_dir, sizeof config.output_dir, "%s/session",
                root_.c_str());
  config.log_level = preload::LogLevel::kQuiet;
  ASSERT_TRUE(preload::BeginRecording(config, preload::TraceOrigin::kLaunch));
  ::testing::internal::CaptureStderr();
  StartCollection();  // loads libcupti; no driver here, so host-only
  ::testing::internal::GetCapturedStderr();

  uint8_t* buffer = nullptr;
  size_t size = 0;
  size_t max_records = 0;
  testing::RequestBufferForTest(&buffer, &size, &max_records);
  ASSERT_NE(buffer, nullptr);
  size_t used = 0;
  const auto append = [&](const auto& record) {
    std::memcpy(buffer + used, &record, sizeof record);
    used += sizeof record;
  };
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 2'000'000'000;
  k.end = 2'000'050'000;
  k.name = "_Z4stepi";
  k.correlationId = 17;
  k.gridX = 64;
  append(k);
  k.start = 0;  // incomplete record
  append(k);
  CUpti_ActivityAPI launch{};
  launch.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  launch.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  launch.start = 1'999'990'000;
  launch.end = 1'999'995'000;
  launch.threadId = preload::CurrentTid();
  launch.correlationId = 17;
  append(launch);
  CUpti_ActivityDevice5 device{};
  device.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  device.name = "Test GPU";
  device.numMultiprocessors = 80;
  append(device);
  testing::CompleteBufferForTest(buffer, size, used);

  preload::FlushNow(5000);
  preload::RecorderSummary summary;
  preload::StopRecorder("shutdown", &summary);
  ASSERT_TRUE(summary.file_written);
  const auto trace = feedprof::testing::ParseTraceFile(summary.path);
  EXPECT_FALSE(trace.bad_packet);

  std::map<uint32_t, std::string> strings;
  const trace::Kernel* kernel = nullptr;
  const trace::ApiCall* api = nullptr;
  uint64_t kernel_start = 0;
  uint32_t api_tid = 0;
  bool device_seen = false;
  uint64_t zero_timestamps = 0;
  for (const auto& p : trace.packets) {
    if (p.has_strings()) {
      for (const auto& s : p.strings().strings()) strings[s.id()] = s.value();
    }
    if (p.has_events()) {
      for (const auto& e : p.events().kernels()) {
        kernel = &e;
        kernel_start = p.events().base_ts_ns() + e.start_delta();
      }
      for (const auto& a : p.events().api_calls()) {
        api = &a;
        api_tid = p.events().tid();
      }
    }
    if (p.has_device() && p.device().name() == "Test GPU") {
      device_seen = p.device().sm_count() == 80;
    }
    if (p.has_drops()) zero_timestamps = p.drops().zero_timestamp_records();
  }
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(strings[kernel->name_id()], "step(int)");
  EXPECT_EQ(kernel_start, 2'000'000'000u);
  EXPECT_EQ(kernel->duration_ns(), 50'000u);
  EXPECT_EQ(kernel->grid_x(), 64u);
  EXPECT_EQ(kernel->correlation_id(), 17u);
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(strings[api->name_id()], "cudaLaunchKernel");
  EXPECT_EQ(api->correlation_id(), 17u);
  EXPECT_EQ(api_tid, preload::CurrentTid());
  EXPECT_TRUE(device_seen);
  EXPECT_EQ(zero_timestamps, 1u);
}

}  // namespace
}  // namespace feedprof::cupti
