// The NVML sampler: absent library (the real case on this machine), and a
// stand-in library with fixed readings whose CounterBatch and NvmlFacts
// packets are parsed (by libprotobuf) and checked value by value.
#include "cupti_hooks/nvml_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "preload/log.h"
#include "tests/cupti_hooks/capture_sink.h"

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
  // The static facts and the first sample are taken at once, in that
  // order; the facts only once.
  ASSERT_GE(captured().packets.size(), 2u);
  EXPECT_TRUE(captured().packets[0].has_nvml_facts());
  EXPECT_EQ(captured().packets[0].nvml_facts().devices_size(), 2);
  EXPECT_TRUE(captured().packets[1].has_counters());
  EXPECT_EQ(captured().packets[1].counters().samples_size(), 25);
  for (size_t i = 1; i < captured().packets.size(); ++i) {
    EXPECT_FALSE(captured().packets[i].has_nvml_facts()) << i;
  }
}

TEST(NvmlSamplerTest, StaticFactsOfEveryDevice) {
  captured().Clear();
  NvmlSampler sampler(CaptureSink());
  ASSERT_TRUE(sampler.Load(FEEDPROF_FAKE_NVML));
  sampler.set_device_resolver(&MapFirstGpuToCuda5);
  EXPECT_EQ(sampler.WriteStaticFacts(), 2u);
  ASSERT_EQ(captured().packets.size(), 1u);
  ASSERT_TRUE(captured().packets[0].has_nvml_facts());
  const trace::NvmlFacts& facts = captured().packets[0].nvml_facts();
  EXPECT_GT(facts.ts_ns(), 0u);
  ASSERT_EQ(facts.devices_size(), 2);

  // Device 0 (CUDA 5 by its bus id): lowered power limit, persistence off,
  // ECC errors, a pending row remap.
  const trace::NvmlDevice& busy = facts.devices(0);
  EXPECT_EQ(busy.device_id(), 5u);
  EXPECT_EQ(busy.pci_bus_id(), "00000000:3B:00.0");
  EXPECT_EQ(busy.name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(busy.power_limit_mw(), 300000u);
  EXPECT_EQ(busy.power_default_limit_mw(), 700000u);
  EXPECT_EQ(busy.power_enforced_limit_mw(), 300000u);
  EXPECT_EQ(busy.max_sm_clock_mhz(), 1980u);
  EXPECT_EQ(busy.max_mem_clock_mhz(), 2619u);
  EXPECT_EQ(busy.slowdown_temperature_c(), 87u);
  EXPECT_EQ(busy.persistence_mode(), trace::NVML_STATE_DISABLED);
  EXPECT_EQ(busy.ecc_mode(), trace::NVML_STATE_ENABLED);
  EXPECT_EQ(busy.ecc_volatile_corrected(), 5u);
  EXPECT_EQ(busy.ecc_volatile_uncorrected(), 2u);
  EXPECT_EQ(busy.ecc_aggregate_corrected(), 11u);
  EXPECT_EQ(busy.ecc_aggregate_uncorrected(), 3u);
  EXPECT_EQ(busy.row_remap_pending(), trace::NVML_STATE_ENABLED);
  EXPECT_EQ(busy.row_remap_failure(), trace::NVML_STATE_DISABLED);

  // Device 1 keeps its NVML index; what NVML refuses is left out, not 0.
  const trace::NvmlDevice& idle = facts.devices(1);
  EXPECT_EQ(idle.device_id(), 1u);
  EXPECT_EQ(idle.pci_bus_id(), "00000000:AF:00.0");
  EXPECT_EQ(idle.power_limit_mw(), 700000u);
  EXPECT_EQ(idle.persistence_mode(), trace::NVML_STATE_ENABLED);
  EXPECT_FALSE(idle.has_slowdown_temperature_c());
  EXPECT_EQ(idle.ecc_mode(), trace::NVML_STATE_UNKNOWN);
  EXPECT_FALSE(idle.has_ecc_volatile_uncorrected());
  EXPECT_FALSE(idle.has_ecc_aggregate_corrected());
  EXPECT_EQ(idle.row_remap_pending(), trace::NVML_STATE_UNKNOWN);
}

TEST(NvmlSamplerTest, NoStaticFactsWithoutNvml) {
  captured().Clear();
  NvmlSampler sampler(CaptureSink());
  EXPECT_FALSE(sampler.Load("libnvidia-ml-missing.so.1"));
  EXPECT_EQ(sampler.WriteStaticFacts(), 0u);
  EXPECT_TRUE(captured().packets.empty());
}

}  // namespace
}  // namespace feedprof::cupti
