#include "cupti_hooks/nvml_sampler.h"

#include <dlfcn.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "preload/log.h"
#include "preload/trace_framing.h"
#include "preload/wire_writer.h"

namespace feedprof::cupti {
namespace {

using namespace nvml;       // NOLINT(build/namespaces): the NVML ABI names
constexpr int kPcieTx = 0;  // NVML_PCIE_UTIL_TX_BYTES
constexpr int kPcieRx = 1;  // NVML_PCIE_UTIL_RX_BYTES

// Packet / CounterBatch / CounterSample field numbers.
constexpr uint32_t kBatchBaseTs = 1;
constexpr uint32_t kBatchSamples = 2;
constexpr uint32_t kSampleTsDelta = 1;
constexpr uint32_t kSampleDevice = 2;
constexpr uint32_t kSampleName = 3;
constexpr uint32_t kSampleValue = 4;

template <typename Fn>
void Lookup(void* library, const char* name, Fn* slot) {
  *slot = reinterpret_cast<Fn>(dlsym(library, name));
}

bool ParsePciBusId(const char* text, unsigned long long parts[4]) {
  // domain:bus:device.function, all hexadecimal.
  char* end = nullptr;
  for (int i = 0; i < 4; ++i) {
    parts[i] = std::strtoull(text, &end, 16);
    if (end == text) return false;
    const char expected = i < 2 ? ':' : (i == 2 ? '.' : '\0');
    if (*end != expected) return false;
    text = end + 1;
  }
  return true;
}

}  // namespace

bool SamePciBusId(const char* a, const char* b) {
  unsigned long long pa[4];
  unsigned long long pb[4];
  if (a == nullptr || b == nullptr || !ParsePciBusId(a, pa) ||
      !ParsePciBusId(b, pb)) {
    return false;
  }
  for (int i = 0; i < 4; ++i) {
    if (pa[i] != pb[i]) return false;
  }
  return true;
}

NvmlSampler::~NvmlSampler() {
  Stop();
  if (initialized_ && shutdown_ != nullptr) shutdown_();
  if (library_ != nullptr) dlclose(library_);
}

bool NvmlSampler::Load(const char* library) {
  library_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    preload::LogDebug("NVML not found (%s); GPU counters are not sampled",
                      library);
    return false;
  }
  Lookup(library_, "nvmlInit_v2", &init_);
  Lookup(library_, "nvmlShutdown", &shutdown_);
  Lookup(library_, "nvmlDeviceGetCount_v2", &get_count_);
  Lookup(library_, "nvmlDeviceGetHandleByIndex_v2", &get_handle_);
  if (init_ == nullptr || shutdown_ == nullptr || get_count_ == nullptr ||
      get_handle_ == nullptr || init_() != kSuccess) {
    preload::LogDebug("NVML (%s) is unusable; GPU counters are not sampled",
                      library);
    dlclose(library_);
    library_ = nullptr;
    return false;
  }
  initialized_ = true;
  Lookup(library_, "nvmlDeviceGetUtilizationRates", &get_utilization_);
  Lookup(library_, "nvmlDeviceGetClockInfo", &get_clock_);
  Lookup(library_, "nvmlDeviceGetPowerUsage", &get_power_);
  Lookup(library_, "nvmlDeviceGetCurrentClocksEventReasons",
         &get_clock_reasons_);
  if (get_clock_reasons_ == nullptr) {
    Lookup(library_, "nvmlDeviceGetCurrentClocksThrottleReasons",
           &get_clock_reasons_);
  }
  Lookup(library_, "nvmlDeviceGetPcieThroughput", &get_pcie_throughput_);
  Lookup(library_, "nvmlDeviceGetCurrPcieLinkGeneration", &get_link_gen_);
  Lookup(library_, "nvmlDeviceGetCurrPcieLinkWidth", &get_link_width_);
  Lookup(library_, "nvmlDeviceGetMaxPcieLinkGeneration", &get_max_link_gen_);
  Lookup(library_, "nvmlDeviceGetMaxPcieLinkWidth", &get_max_link_width_);
  Lookup(library_, "nvmlDeviceGetTemperature", &get_temperature_);
  Lookup(library_, "nvmlDeviceGetPciInfo_v3", &get_pci_info_);
  LookupStaticFactFunctions();

  unsigned count = 0;
  if (get_count_(&count) != kSuccess) count = 0;
  for (unsigned i = 0; i < count && device_count_ < kMaxDevices; ++i) {
    Device device = nullptr;
    if (get_handle_(i, &device) == kSuccess) {
      devices_[device_count_++] = device;
    }
  }
  if (device_count_ == 0) {
    preload::LogDebug("NVML sees no GPU; GPU counters are not sampled");
    return false;
  }
  return true;
}

uint32_t NvmlSampler::TraceDeviceId(uint32_t index) {
  if (resolver_ == nullptr || get_pci_info_ == nullptr) return index;
  PciInfo info{};
  if (get_pci_info_(devices_[index], &info) != kSuccess) return index;
  const int cuda = resolver_(info.bus_id);
  return cuda >= 0 ? static_cast<uint32_t>(cuda) : index;
}

size_t NvmlSampler::SampleOnce() {
  if (!initialized_ || device_count_ == 0) return 0;
  // Interned here, on the sampling thread, not in Load(): Load runs inside
  // the recorder's injection entry point, where interning is refused.
  for (size_t i = 0; i < kCounterCount; ++i) {
    if (name_ids_[i] == 0) name_ids_[i] = sink_.intern_string(kCounterNames[i]);
  }
  uint8_t bytes[16384];
  wire::WireWriter w(bytes, sizeof bytes);
  const auto packet = w.BeginNested(preload::kPacketCounters, 2);
  const uint64_t now = sink_.now_ns();
  w.Uint(kBatchBaseTs, now);
  size_t samples = 0;
  for (uint32_t d = 0; d < device_count_; ++d) {
    const Device device = devices_[d];
    const uint32_t device_id = TraceDeviceId(d);
    double values[kCounterCount];
    bool have[kCounterCount] = {};
    const auto set = [&](size_t i, double v) {
      values[i] = v;
      have[i] = true;
    };
    Utilization utilization{};
    if (get_utilization_ != nullptr &&
        get_utilization_(device, &utilization) == kSuccess) {
      set(0, utilization.gpu);
      set(1, utilization.memory);
    }
    unsigned u = 0;
    if (get_clock_ != nullptr && get_clock_(device, kClockSm, &u) == 0) {
      set(2, u);
    }
    if (get_clock_ != nullptr && get_clock_(device, kClockMem, &u) == 0) {
      set(3, u);
    }
    if (get_power_ != nullptr && get_power_(device, &u) == 0) {
      set(4, u / 1000.0);  // mW
    }
    unsigned long long reasons = 0;
    if (get_clock_reasons_ != nullptr &&
        get_clock_reasons_(device, &reasons) == 0) {
      set(5, static_cast<double>(reasons));
    }
    if (get_pcie_throughput_ != nullptr &&
        get_pcie_throughput_(device, kPcieTx, &u) == 0) {
      set(6, u * 1024.0);  // KB/s
    }
    if (get_pcie_throughput_ != nullptr &&
        get_pcie_throughput_(device, kPcieRx, &u) == 0) {
      set(7, u * 1024.0);
    }
    if (get_link_gen_ != nullptr && get_link_gen_(device, &u) == 0) set(8, u);
    if (get_link_width_ != nullptr && get_link_width_(device, &u) == 0) {
      set(9, u);
    }
    if (get_max_link_gen_ != nullptr && get_max_link_gen_(device, &u) == 0) {
      set(10, u);
    }
    if (get_max_link_width_ != nullptr &&
        get_max_link_width_(device, &u) == 0) {
      set(11, u);
    }
    if (get_temperature_ != nullptr &&
        get_temperature_(device, kTemperatureGpu, &u) == 0) {
      set(12, u);
    }
    for (size_t i = 0; i < kCounterCount; ++i) {
      if (!have[i]) continue;
      const auto sample = w.BeginNested(kBatchSamples, 1);
      w.Uint(kSampleDevice, device_id);
      w.Uint(kSampleName, name_ids_[i]);
      // A zero reading is a reading: written explicitly.
      w.Tag(kSampleValue, wire::WireType::kFixed64);
      uint64_t bits;
      static_assert(sizeof bits == sizeof values[i]);
      __builtin_memcpy(&bits, &values[i], sizeof bits);
      uint8_t le[8];
      for (int b = 0; b < 8; ++b) le[b] = static_cast<uint8_t>(bits >> (8 * b));
      w.RawBytes(le, sizeof le);
      w.EndNested(sample);
      ++samples;
    }
  }
  (void)kSampleTsDelta;  // every sample is at the batch's base time
  w.EndNested(packet);
  if (samples == 0 || w.overflowed()) return 0;
  return sink_.submit_packet(w.data(), w.size()) ? samples : 0;
}

void* NvmlSampler::ThreadMain(void* arg) {
  auto* self = static_cast<NvmlSampler*>(arg);
  // The static facts and the first sample are taken at once, even if
  // Stop() comes right after.
  self->WriteStaticFacts();
  self->SampleOnce();
  pthread_mutex_lock(&self->mutex_);
  while (!self->stop_.load()) {
    timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    const uint64_t ns = static_cast<uint64_t>(deadline.tv_nsec) +
                        uint64_t{self->interval_ms_} * 1'000'000;
    deadline.tv_sec += static_cast<time_t>(ns / 1'000'000'000);
    deadline.tv_nsec = static_cast<long>(ns % 1'000'000'000);
    while (!self->stop_.load() &&
           pthread_cond_timedwait(&self->wake_, &self->mutex_, &deadline) ==
               0) {
    }
    if (self->stop_.load()) break;
    pthread_mutex_unlock(&self->mutex_);
    self->SampleOnce();
    pthread_mutex_lock(&self->mutex_);
  }
  pthread_mutex_unlock(&self->mutex_);
  return nullptr;
}

bool NvmlSampler::Start(uint32_t interval_ms) {
  if (!initialized_ || device_count_ == 0 || thread_running_) return false;
  interval_ms_ = interval_ms == 0 ? 100 : interval_ms;
  stop_.store(false);
  thread_running_ = pthread_create(&thread_, nullptr, &ThreadMain, this) == 0;
  return thread_running_;
}

void NvmlSampler::Stop() {
  if (!thread_running_) return;
  pthread_mutex_lock(&mutex_);
  stop_.store(true);
  pthread_cond_signal(&wake_);
  pthread_mutex_unlock(&mutex_);
  pthread_join(thread_, nullptr);
  thread_running_ = false;
}

void NvmlSampler::ForgetAfterFork() {
  thread_running_ = false;  // the thread does not exist in the child
  initialized_ = false;     // and NVML state is not ours to use here
  device_count_ = 0;
}

}  // namespace feedprof::cupti
