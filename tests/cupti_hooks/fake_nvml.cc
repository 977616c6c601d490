// A stand-in for libnvidia-ml with two devices and fixed readings, so the
// NVML sampler's loading, device mapping and encoding can be checked on a
// machine without a driver. Device 1 lacks a temperature sensor, ECC and
// row remapping. Static facts: device 0 has its power limit lowered, is
// not in persistence mode and has ECC errors and a pending row remap.
#include <cstring>

namespace {
struct FakeDevice {
  const char* bus_id;
  unsigned gpu_util, mem_util, sm_clock, mem_clock, power_mw;
  unsigned long long reasons;
  unsigned tx_kb, rx_kb, gen, width, max_gen, max_width, temperature;
  const char* name;
  unsigned power_limit_mw, default_limit_mw, enforced_limit_mw;
  unsigned max_sm_clock, max_mem_clock, slowdown_c;
  int persistence;
  unsigned long long ecc[4];  // volatile corr, uncorr; aggregate corr, uncorr
};
FakeDevice g_devices[2] = {
    {"00000000:3B:00.0",
     87,
     40,
     1980,
     2619,
     350500,
     4,
     1000,
     250000,
     4,
     16,
     5,
     16,
     65,
     "NVIDIA H100 80GB HBM3",
     300000,
     700000,
     300000,
     1980,
     2619,
     87,
     0,
     {5, 2, 11, 3}},
    {"00000000:AF:00.0",
     0,
     0,
     210,
     405,
     61000,
     1,
     0,
     0,
     1,
     16,
     5,
     16,
     0,
     "NVIDIA H100 80GB HBM3",
     700000,
     700000,
     700000,
     1980,
     2619,
     0,
     1,
     {0, 0, 0, 0}},
};
FakeDevice* Dev(void* d) { return static_cast<FakeDevice*>(d); }
}  // namespace

#define FAKE extern "C" __attribute__((visibility("default"))) int
struct Utilization {
  unsigned gpu, memory;
};
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

FAKE nvmlInit_v2() { return 0; }
FAKE nvmlShutdown() { return 0; }
FAKE nvmlDeviceGetCount_v2(unsigned* n) {
  *n = 2;
  return 0;
}
FAKE nvmlDeviceGetHandleByIndex_v2(unsigned i, void** d) {
  if (i >= 2) return 2;
  *d = &g_devices[i];
  return 0;
}
FAKE nvmlDeviceGetUtilizationRates(void* d, Utilization* u) {
  u->gpu = Dev(d)->gpu_util;
  u->memory = Dev(d)->mem_util;
  return 0;
}
FAKE nvmlDeviceGetClockInfo(void* d, int type, unsigned* v) {
  *v = type == 1 ? Dev(d)->sm_clock : Dev(d)->mem_clock;
  return 0;
}
FAKE nvmlDeviceGetPowerUsage(void* d, unsigned* v) {
  *v = Dev(d)->power_mw;
  return 0;
}
FAKE nvmlDeviceGetCurrentClocksEventReasons(void* d, unsigned long long* v) {
  *v = Dev(d)->reasons;
  return 0;
}
FAKE nvmlDeviceGetPcieThroughput(void* d, int counter, unsigned* v) {
  *v = counter == 0 ? Dev(d)->tx_kb : Dev(d)->rx_kb;
  return 0;
}
FAKE nvmlDeviceGetCurrPcieLinkGeneration(void* d, unsigned* v) {
  *v = Dev(d)->gen;
  return 0;
}
FAKE nvmlDeviceGetCurrPcieLinkWidth(void* d, unsigned* v) {
  *v = Dev(d)->width;
  return 0;
}
FAKE nvmlDeviceGetMaxPcieLinkGeneration(void* d, unsigned* v) {
  *v = Dev(d)->max_gen;
  return 0;
}
FAKE nvmlDeviceGetMaxPcieLinkWidth(void* d, unsigned* v) {
  *v = Dev(d)->max_width;
  return 0;
}
FAKE nvmlDeviceGetTemperature(void* d, int, unsigned* v) {
  if (Dev(d) == &g_devices[1]) return 3;  // NVML_ERROR_NOT_SUPPORTED
  *v = Dev(d)->temperature;
  return 0;
}
FAKE nvmlDeviceGetPciInfo_v3(void* d, PciInfo* info) {
  std::memset(info, 0, sizeof *info);
  std::strcpy(info->bus_id, Dev(d)->bus_id);
  return 0;
}

// Static facts.
FAKE nvmlDeviceGetName(void* d, char* name, unsigned size) {
  std::strncpy(name, Dev(d)->name, size - 1);
  return 0;
}
FAKE nvmlDeviceGetPowerManagementLimit(void* d, unsigned* v) {
  *v = Dev(d)->power_limit_mw;
  return 0;
}
FAKE nvmlDeviceGetPowerManagementDefaultLimit(void* d, unsigned* v) {
  *v = Dev(d)->default_limit_mw;
  return 0;
}
FAKE nvmlDeviceGetEnforcedPowerLimit(void* d, unsigned* v) {
  *v = Dev(d)->enforced_limit_mw;
  return 0;
}
FAKE nvmlDeviceGetMaxClockInfo(void* d, int type, unsigned* v) {
  *v = type == 1 ? Dev(d)->max_sm_clock : Dev(d)->max_mem_clock;
  return 0;
}
FAKE nvmlDeviceGetTemperatureThreshold(void* d, int, unsigned* v) {
  if (Dev(d)->slowdown_c == 0) return 3;
  *v = Dev(d)->slowdown_c;
  return 0;
}
FAKE nvmlDeviceGetPersistenceMode(void* d, int* mode) {
  *mode = Dev(d)->persistence;
  return 0;
}
FAKE nvmlDeviceGetEccMode(void* d, int* current, int* pending) {
  if (Dev(d) == &g_devices[1]) return 3;
  *current = 1;
  *pending = 1;
  return 0;
}
FAKE nvmlDeviceGetTotalEccErrors(void* d, int error_type, int counter_type,
                                 unsigned long long* v) {
  if (Dev(d) == &g_devices[1]) return 3;
  *v = Dev(d)->ecc[counter_type * 2 + error_type];
  return 0;
}
FAKE nvmlDeviceGetRemappedRows(void* d, unsigned* corrected,
                               unsigned* uncorrected, unsigned* pending,
                               unsigned* failure) {
  if (Dev(d) == &g_devices[1]) return 3;
  *corrected = 0;
  *uncorrected = 2;
  *pending = 1;
  *failure = 0;
  return 0;
}
