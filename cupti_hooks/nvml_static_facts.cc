// The NVML sampler's static facts: what the platform checks need beyond
// the sampled counters (docs/doctor.md: gpu_clocks against the maximum,
// gpu_power against the limits, gpu_temperature against the slowdown
// threshold, gpu_persistence, gpu_ecc).
//
// They change rarely or never while a job runs, so they are read once,
// before the first sample, and written as one NvmlFacts packet. Every
// NVML function is optional: one that is missing (an old driver) or that
// answers with an error (not supported, no permission) leaves its fact out
// of the packet, and the analysis says it is unknown. Nothing here can
// fail the host: no allocation, a fixed buffer, and an overflowing packet
// is dropped.
#include <dlfcn.h>

#include <cstring>

#include "cupti_hooks/nvml_sampler.h"
#include "preload/trace_framing.h"
#include "preload/wire_writer.h"

namespace feedprof::cupti {
namespace {

using namespace nvml;  // NOLINT(build/namespaces): the NVML ABI names
constexpr unsigned kNameSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE

// NvmlFacts / NvmlDevice field numbers (proto/feedprof.proto).
constexpr uint32_t kFactsTs = 1;
constexpr uint32_t kFactsDevices = 2;
constexpr uint32_t kDeviceId = 1;
constexpr uint32_t kDeviceBusId = 2;
constexpr uint32_t kDeviceName = 3;
constexpr uint32_t kPowerLimit = 4;
constexpr uint32_t kPowerDefaultLimit = 5;
constexpr uint32_t kPowerEnforcedLimit = 6;
constexpr uint32_t kMaxSmClock = 7;
constexpr uint32_t kMaxMemClock = 8;
constexpr uint32_t kSlowdownTemperature = 9;
constexpr uint32_t kPersistence = 10;
constexpr uint32_t kEccMode = 11;
constexpr uint32_t kEccVolatileCorrected = 12;
constexpr uint32_t kEccVolatileUncorrected = 13;
constexpr uint32_t kEccAggregateCorrected = 14;
constexpr uint32_t kEccAggregateUncorrected = 15;
constexpr uint32_t kRowRemapPending = 16;
constexpr uint32_t kRowRemapFailure = 17;

// NvmlEnableState: 0 unknown (left out), 1 disabled, 2 enabled.
uint64_t EnableState(bool enabled) { return enabled ? 2 : 1; }

template <typename Fn>
void Lookup(void* library, const char* name, Fn* slot) {
  *slot = reinterpret_cast<Fn>(dlsym(library, name));
}

}  // namespace

void NvmlSampler::LookupStaticFactFunctions() {
  Lookup(library_, "nvmlDeviceGetName", &get_name_);
  Lookup(library_, "nvmlDeviceGetPowerManagementLimit", &get_power_limit_);
  Lookup(library_, "nvmlDeviceGetPowerManagementDefaultLimit",
         &get_default_power_limit_);
  Lookup(library_, "nvmlDeviceGetEnforcedPowerLimit",
         &get_enforced_power_limit_);
  Lookup(library_, "nvmlDeviceGetMaxClockInfo", &get_max_clock_);
  Lookup(library_, "nvmlDeviceGetTemperatureThreshold",
         &get_temperature_threshold_);
  Lookup(library_, "nvmlDeviceGetPersistenceMode", &get_persistence_);
  Lookup(library_, "nvmlDeviceGetEccMode", &get_ecc_mode_);
  Lookup(library_, "nvmlDeviceGetTotalEccErrors", &get_ecc_errors_);
  Lookup(library_, "nvmlDeviceGetRemappedRows", &get_remapped_rows_);
}

size_t NvmlSampler::WriteStaticFacts() {
  if (!initialized_ || device_count_ == 0) return 0;
  uint8_t bytes[16384];
  wire::WireWriter w(bytes, sizeof bytes);
  const auto packet = w.BeginNested(preload::kPacketNvmlFacts, 2);
  w.Uint(kFactsTs, sink_.now_ns());
  for (uint32_t d = 0; d < device_count_; ++d) {
    const Device device = devices_[d];
    const auto out = w.BeginNested(kFactsDevices, 2);
    w.Uint(kDeviceId, TraceDeviceId(d));
    PciInfo pci{};
    if (get_pci_info_ != nullptr && get_pci_info_(device, &pci) == kSuccess) {
      w.String(
          kDeviceBusId,
          std::string_view(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id)));
    }
    char name[kNameSize] = {};
    if (get_name_ != nullptr &&
        get_name_(device, name, sizeof name) == kSuccess) {
      w.String(kDeviceName, std::string_view(name, strnlen(name, sizeof name)));
    }
    // A reported value is written even when it is 0 (presence matters).
    unsigned u = 0;
    if (get_power_limit_ != nullptr &&
        get_power_limit_(device, &u) == kSuccess) {
      w.UintAlways(kPowerLimit, u);
    }
    if (get_default_power_limit_ != nullptr &&
        get_default_power_limit_(device, &u) == kSuccess) {
      w.UintAlways(kPowerDefaultLimit, u);
    }
    if (get_enforced_power_limit_ != nullptr &&
        get_enforced_power_limit_(device, &u) == kSuccess) {
      w.UintAlways(kPowerEnforcedLimit, u);
    }
    if (get_max_clock_ != nullptr &&
        get_max_clock_(device, kClockSm, &u) == kSuccess) {
      w.UintAlways(kMaxSmClock, u);
    }
    if (get_max_clock_ != nullptr &&
        get_max_clock_(device, kClockMem, &u) == kSuccess) {
      w.UintAlways(kMaxMemClock, u);
    }
    if (get_temperature_threshold_ != nullptr &&
        get_temperature_threshold_(device, kThresholdSlowdown, &u) ==
            kSuccess) {
      w.UintAlways(kSlowdownTemperature, u);
    }
    int mode = 0;
    if (get_persistence_ != nullptr &&
        get_persistence_(device, &mode) == kSuccess) {
      w.Uint(kPersistence, EnableState(mode != 0));
    }
    int pending = 0;
    bool ecc_on = false;
    if (get_ecc_mode_ != nullptr &&
        get_ecc_mode_(device, &mode, &pending) == kSuccess) {
      ecc_on = mode != 0;
      w.Uint(kEccMode, EnableState(ecc_on));
    }
    if (ecc_on && get_ecc_errors_ != nullptr) {
      const struct {
        uint32_t field;
        int error_type;
        int counter_type;
      } counts[] = {
          {kEccVolatileCorrected, kErrorCorrected, kVolatileEcc},
          {kEccVolatileUncorrected, kErrorUncorrected, kVolatileEcc},
          {kEccAggregateCorrected, kErrorCorrected, kAggregateEcc},
          {kEccAggregateUncorrected, kErrorUncorrected, kAggregateEcc},
      };
      for (const auto& c : counts) {
        unsigned long long n = 0;
        if (get_ecc_errors_(device, c.error_type, c.counter_type, &n) ==
            kSuccess) {
          w.UintAlways(c.field, n);
        }
      }
    }
    unsigned corrected_rows = 0;
    unsigned uncorrected_rows = 0;
    unsigned remap_pending = 0;
    unsigned remap_failure = 0;
    if (get_remapped_rows_ != nullptr &&
        get_remapped_rows_(device, &corrected_rows, &uncorrected_rows,
                           &remap_pending, &remap_failure) == kSuccess) {
      w.Uint(kRowRemapPending, EnableState(remap_pending != 0));
      w.Uint(kRowRemapFailure, EnableState(remap_failure != 0));
    }
    w.EndNested(out);
  }
  w.EndNested(packet);
  if (w.overflowed()) return 0;
  return sink_.submit_packet(w.data(), w.size()) ? device_count_ : 0;
}

}  // namespace feedprof::cupti
