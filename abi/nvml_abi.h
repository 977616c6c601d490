// The parts of NVML's C ABI (nvml.h) feedprof uses, for code that loads
// libnvidia-ml.so.1 with dlopen instead of linking it: the recording
// library's sampler and static facts, and `doctor`'s live checks. Plain
// constants and structs, no dependencies, so both halves can include it.
#ifndef FEEDPROF_ABI_NVML_ABI_H_
#define FEEDPROF_ABI_NVML_ABI_H_

namespace feedprof::nvml {

constexpr int kSuccess = 0;            // NVML_SUCCESS
constexpr int kInsufficientSize = 7;   // NVML_ERROR_INSUFFICIENT_SIZE
constexpr int kClockSm = 1;            // NVML_CLOCK_SM
constexpr int kClockMem = 2;           // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;     // NVML_TEMPERATURE_GPU
constexpr int kThresholdSlowdown = 1;  // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
constexpr int kErrorCorrected = 0;     // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr int kErrorUncorrected = 1;   // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatileEcc = 0;        // NVML_VOLATILE_ECC
constexpr int kAggregateEcc = 1;       // NVML_AGGREGATE_ECC

using Device = void*;  // nvmlDevice_t

struct PciInfo {  // nvmlPciInfo_t (v3)
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;
  unsigned pci_subsystem_id;
  char bus_id[32];
};

struct Utilization {  // nvmlUtilization_t
  unsigned gpu;
  unsigned memory;
};

}  // namespace feedprof::nvml

#endif  // FEEDPROF_ABI_NVML_ABI_H_
