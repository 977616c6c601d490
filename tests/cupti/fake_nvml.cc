// A stand-in for libnvidia-ml with two devices and fixed readings, so the
// NVML sampler's loading, device mapping and encoding can be checked on a
// machine without a driver. Device 1 lacks a temperature sensor.
#include <cstring>

namespace {
struct FakeDevice {
  const char* bus_id;
  unsigned gpu_util, mem_util, sm_clock, mem_clock, power_mw;
  unsigned long long reasons;
  unsigned tx_kb, rx_kb, gen, width, max_gen, max_width, temperature;
};
FakeDevice g_devices[2] = {
    {"00000000:3B:00.0", 87, 40, 1980, 2619, 350500, 4, 1000, 250000, 4, 16, 5,
     16, 65},
    {"00000000:AF:00.0", 0, 0, 210, 405, 61000, 1, 0, 0, 1, 16, 5, 16, 0},
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
