// The NVML sampler: absent library (the real case on this machine), and a
// stand-in library with fixed readings whose CounterBatch is parsed and
// checked value by value.
#include "cupti_hooks/nvml_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "preload/log.h"
#include "tests/cupti/capture_sink.h"

namespace feedprof::cupti {
namespace {

using test::captured;
using test::CaptureSink;

TEST(PciBusIdTest, ComparedAsNumbers) {
  EXPECT_TRUE(SamePciBusId("0000:3b:00.0", "00000000:3B:00.0"));
  EXPECT_FALSE(SamePciBusId("0000:3b:00.0", "0000:3c:00.0"));
  EXPECT_FALSE(SamePciBusId("0000:3b:00.0", "0000:3b:00.1"));
  EXPECT_FALSE(SamePciBusId("garbage", "0000:3b:00.0"));
  EXPECT_FALSE(SamePciBusId(nullptr, "0000:3b:00.0"));
}

TEST(NvmlSamplerTest, AbsentLibraryIsSkippedWithOneDebugLine) {
  const preload::LogLevel before = preload::CurrentLogLevel();
  preload::SetLogLevel(preload::LogLevel::kDebug);
  NvmlSampler sampler(CaptureSink());
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(sampler.Load("libnvidia-ml-missing.so.1"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  preload::SetLogLevel(before);
  EXPECT_EQ(err.rfind("feedprof: NVML not found", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(sampler.SampleOnce(), 0u);
  EXPECT_FALSE(sampler.Start(10));
}

TEST(NvmlSamplerTest, QuietWhenNotDebugging) {
  const preload::LogLevel before = preload::CurrentLogLevel();
  preload::SetLogLevel(preload::LogLevel::kQuiet);
  NvmlSampler sampler(CaptureSink());
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(sampler.Load("libnvidia-ml-missing.so.1"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  preload::SetLogLevel(before);
}

int MapFirstGpuToCuda5(const char* bus_id) {
  return SamePciBusId(bus_id, "0000:3b:00.0") ? 5 : -1;
}

TEST(NvmlSamplerTest, EveryCounterOfEveryDevice) {
  captured().Clear();
  NvmlSampler sampler(CaptureSink());
  ASSERT_TRUE(sampler.Load(FEEDPROF_FAKE_NVML));
  sampler.set_device_resolver(&MapFirstGpuToCuda5);
  EXPECT_EQ(sampler.device_count(), 2u);
  const size_t written = sampler.SampleOnce();
  EXPECT_EQ(written, 25u);  // 13 + 12 (device 1 has no temperature)

  ASSERT_EQ(captured().packets.size(), 1u);
  ASSERT_TRUE(captured().packets[0].has_counters());
  const trace::CounterBatch& batch = captured().packets[0].counters();
  EXPECT_GT(batch.base_ts_ns(), 0u);
  std::map<std::pair<uint32_t, std::string>, double> values;
  for (const auto& s : batch.samples()) {
    EXPECT_EQ(s.ts_delta(), 0);
    values[{s.device_id(), captured().Text(s.name_id())}] = s.value();
  }
  ASSERT_EQ(values.size(), 25u);
  // NVML device 0 is CUDA device 5 by its PCI bus id; device 1 keeps its
  // NVML index.
  EXPECT_EQ((values[{5, "sm_util_pct"}]), 87);
  EXPECT_EQ((values[{5, "mem_util_pct"}]), 40);
  EXPECT_EQ((values[{5, "sm_clock_mhz"}]), 1980);
  EXPECT_EQ((values[{5, "mem_clock_mhz"}]), 2619);
  EXPECT_DOUBLE_EQ((values[{5, "power_w"}]), 350.5);
  EXPECT_EQ((values[{5, "clock_event_reasons"}]), 4);
  EXPECT_EQ((values[{5, "pcie_tx_bytes_per_s"}]), 1000 * 1024);
  EXPECT_EQ((values[{5, "pcie_rx_bytes_per_s"}]), 250000.0 * 1024);
  EXPECT_EQ((values[{5, "pcie_link_gen"}]), 4);
  EXPECT_EQ((values[{5, "pcie_link_width"}]), 16);
  EXPECT_EQ((values[{5, "pcie_link_gen_max"}]), 5);
  EXPECT_EQ((values[{5, "pcie_link_width_max"}]), 16);
  EXPECT_EQ((values[{5, "temperature_c"}]), 65);
  // Zero readings are readings.
  EXPECT_EQ(values.count({1, "sm_util_pct"}), 1u);
  EXPECT_EQ((values[{1, "sm_util_pct"}]), 0);
  EXPECT_EQ((values[{1, "pcie_link_gen"}]), 1);
  EXPECT_EQ(values.count({1, "temperature_c"}), 0u);
}

TEST(NvmlSamplerTest, SamplingThreadStartsAndStops) {
  captured().Clear();
  NvmlSampler sampler(CaptureSink());
  ASSERT_TRUE(sampler.Load(FEEDPROF_FAKE_NVML));
  ASSERT_TRUE(sampler.Start(5));
  EXPECT_FALSE(sampler.Start(5));  // one thread at a time
  sampler.Stop();
  sampler.Stop();
  // The first sample is taken at once.
  ASSERT_GE(captured().packets.size(), 1u);
  EXPECT_TRUE(captured().packets[0].has_counters());
  EXPECT_EQ(captured().packets[0].counters().samples_size(), 25);
}

}  // namespace
}  // namespace feedprof::cupti
