// GPU counters from NVML, sampled on a thread of their own.
//
// Activity records say what ran on the GPU; they do not say how hard the
// GPU was working, whether it was throttling, or how busy its PCIe link was.
// Those come from NVML: SM and memory utilization, SM and memory clocks,
// power, throttle (clock event) reasons, PCIe TX/RX throughput, current and
// maximum link generation and width, temperature. libnvidia-ml is dlopen'ed
// (it exists only where a driver is installed); without it the sampler says
// so in one debug line and does nothing. Each sample of all devices becomes
// one CounterBatch packet. Devices are numbered like CUDA numbers them when
// the PCI bus id of the device is known from CUDA (a resolver supplies it),
// else by NVML index. Before the first sample the sampler writes the
// devices' static facts (power limits, maximum clocks, slowdown
// temperature, persistence and ECC modes, ECC error counts, row remapping)
// as one NvmlFacts packet (nvml_static_facts.cc).
//
// Threads: Start() spawns the sampling thread; Stop() (any thread) ends and
// joins it. SampleOnce() may also be called directly (tests, benchmarks).
#ifndef FEEDPROF_CUPTI_HOOKS_NVML_SAMPLER_H_
#define FEEDPROF_CUPTI_HOOKS_NVML_SAMPLER_H_

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "abi/nvml_abi.h"
#include "cupti_hooks/recorder_sink.h"

namespace feedprof::cupti {

class NvmlSampler {
 public:
  static constexpr uint32_t kMaxDevices = 64;
  // The counters, in the order they are sampled; their names are interned
  // as CounterSample.name_id.
  static constexpr const char* kCounterNames[] = {
      "sm_util_pct",
      "mem_util_pct",
      "sm_clock_mhz",
      "mem_clock_mhz",
      "power_w",
      "clock_event_reasons",
      "pcie_tx_bytes_per_s",
      "pcie_rx_bytes_per_s",
      "pcie_link_gen",
      "pcie_link_width",
      "pcie_link_gen_max",
      "pcie_link_width_max",
      "temperature_c",
  };
  static constexpr size_t kCounterCount =
      sizeof(kCounterNames) / sizeof(kCounterNames[0]);

  // Maps a PCI bus id ("0000:3b:00.0") to a CUDA device ordinal, or -1.
  using DeviceResolver = int (*)(const char* pci_bus_id);

  explicit NvmlSampler(const RecorderSink& sink) : sink_(sink) {}
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  // Loads NVML from `library` and initializes it. False (after one debug
  // line) when it is absent or has no device.
  bool Load(const char* library = "libnvidia-ml.so.1");
  void set_device_resolver(DeviceResolver resolver) { resolver_ = resolver; }

  // One sample of every device as one CounterBatch packet; returns the
  // number of counter samples written.
  size_t SampleOnce();
  // The static facts of every device as one NvmlFacts packet; returns the
  // number of devices written (0 when nothing could be written). The
  // sampling thread calls it once before its first sample.
  size_t WriteStaticFacts();

  // Samples every `interval_ms` on a new thread until Stop().
  bool Start(uint32_t interval_ms);
  void Stop();
  // In the child of a fork: forget the thread and never call NVML again.
  void ForgetAfterFork();

  uint32_t device_count() const { return device_count_; }

 private:
  using Device = nvml::Device;
  using PciInfo = nvml::PciInfo;
  using Utilization = nvml::Utilization;

  static void* ThreadMain(void* self);
  void LookupStaticFactFunctions();
  uint32_t TraceDeviceId(uint32_t index);

  const RecorderSink& sink_;
  DeviceResolver resolver_ = nullptr;
  void* library_ = nullptr;
  bool initialized_ = false;
  uint32_t device_count_ = 0;
  Device devices_[kMaxDevices] = {};
  uint32_t name_ids_[kCounterCount] = {};

  int (*init_)() = nullptr;
  int (*shutdown_)() = nullptr;
  int (*get_count_)(unsigned*) = nullptr;
  int (*get_handle_)(unsigned, Device*) = nullptr;
  int (*get_utilization_)(Device, Utilization*) = nullptr;
  int (*get_clock_)(Device, int, unsigned*) = nullptr;
  int (*get_power_)(Device, unsigned*) = nullptr;
  int (*get_clock_reasons_)(Device, unsigned long long*) = nullptr;
  int (*get_pcie_throughput_)(Device, int, unsigned*) = nullptr;
  int (*get_link_gen_)(Device, unsigned*) = nullptr;
  int (*get_link_width_)(Device, unsigned*) = nullptr;
  int (*get_max_link_gen_)(Device, unsigned*) = nullptr;
  int (*get_max_link_width_)(Device, unsigned*) = nullptr;
  int (*get_temperature_)(Device, int, unsigned*) = nullptr;
  int (*get_pci_info_)(Device, PciInfo*) = nullptr;
  // Static facts (nvml_static_facts.cc).
  int (*get_name_)(Device, char*, unsigned) = nullptr;
  int (*get_power_limit_)(Device, unsigned*) = nullptr;
  int (*get_default_power_limit_)(Device, unsigned*) = nullptr;
  int (*get_enforced_power_limit_)(Device, unsigned*) = nullptr;
  int (*get_max_clock_)(Device, int, unsigned*) = nullptr;
  int (*get_temperature_threshold_)(Device, int, unsigned*) = nullptr;
  int (*get_persistence_)(Device, int*) = nullptr;
  int (*get_ecc_mode_)(Device, int*, int*) = nullptr;
  int (*get_ecc_errors_)(Device, int, int, unsigned long long*) = nullptr;
  int (*get_remapped_rows_)(Device, unsigned*, unsigned*, unsigned*,
                            unsigned*) = nullptr;

  pthread_t thread_{};
  bool thread_running_ = false;
  uint32_t interval_ms_ = 100;
  std::atomic<bool> stop_{false};
  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;  // guards the wait
  pthread_cond_t wake_ = PTHREAD_COND_INITIALIZER;
};

// Compares two PCI bus ids as numbers ("0000:3B:00.0" and
// "00000000:3b:00.0" are the same device).
bool SamePciBusId(const char* a, const char* b);

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_NVML_SAMPLER_H_
