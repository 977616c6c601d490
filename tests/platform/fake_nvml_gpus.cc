// A stand-in for libnvidia-ml with the two GPUs of tests/platform's
// constructed server, so doctor's NVML reading and checks run on a machine
// without a driver. GPU0 (0000:3b:00.0) is busy and in trouble: hardware
// slowdown and power cap, lowered power limit, near its slowdown
// temperature, persistence off, uncorrected ECC errors, another process on
// it. GPU1 (0000:af:00.0) is idle and healthy, its link at Gen1. Values are
// in NVML's units (MHz, mW, °C).
#include <cstring>

namespace {
struct FakeDevice {
  const char* bus_id;
  const char* name;
  unsigned util, sm_clock, sm_max;
  unsigned long long reasons;
  unsigned power_mw, limit_mw, default_limit_mw, temp, slowdown;
  int persistence;
  unsigned long long uncorrected, corrected;
  unsigned gen, width, max_gen, max_width;
  unsigned processes;
};
FakeDevice g_devices[2] = {
    {"00000000:3B:00.0", "NVIDIA A100-SXM4-80GB", 87, 1410, 1980, 0xC, 300500,
     300000, 400000, 84, 87, 0, 2, 14, 4, 16, 4, 16, 2},
    {"00000000:AF:00.0", "NVIDIA A100-SXM4-80GB", 0, 210, 1980, 0x1, 61000,
     400000, 400000, 30, 87, 1, 0, 0, 1, 16, 4, 16, 0},
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
struct ProcessInfo {
  unsigned pid;
  unsigned long long used;
  unsigned gi, ci;
};

FAKE nvmlInit_v2() { return 0; }
FAKE nvmlShutdown() { return 0; }
extern "C" __attribute__((visibility("default"))) const char* nvmlErrorString(
    int) {
  return "fake error";
}
FAKE nvmlSystemGetDriverVersion(char* v, unsigned n) {
  std::strncpy(v, "550.54.15", n);
  return 0;
}
FAKE nvmlSystemGetCudaDriverVersion_v2(int* v) {
  *v = 12040;
  return 0;
}
FAKE nvmlDeviceGetCount_v2(unsigned* n) {
  *n = 2;
  return 0;
}
FAKE nvmlDeviceGetHandleByIndex_v2(unsigned i, void** d) {
  if (i >= 2) return 2;
  *d = &g_devices[i];
  return 0;
}
FAKE nvmlDeviceGetName(void* d, char* name, unsigned n) {
  std::strncpy(name, Dev(d)->name, n);
  return 0;
}
FAKE nvmlDeviceGetPciInfo_v3(void* d, PciInfo* info) {
  std::memset(info, 0, sizeof *info);
  std::strcpy(info->bus_id, Dev(d)->bus_id);
  return 0;
}
FAKE nvmlDeviceGetUtilizationRates(void* d, Utilization* u) {
  u->gpu = Dev(d)->util;
  u->memory = 0;
  return 0;
}
FAKE nvmlDeviceGetClockInfo(void* d, int, unsigned* v) {
  *v = Dev(d)->sm_clock;
  return 0;
}
FAKE nvmlDeviceGetMaxClockInfo(void* d, int, unsigned* v) {
  *v = Dev(d)->sm_max;
  return 0;
}
FAKE nvmlDeviceGetCurrentClocksEventReasons(void* d, unsigned long long* v) {
  *v = Dev(d)->reasons;
  return 0;
}
FAKE nvmlDeviceGetPowerUsage(void* d, unsigned* v) {
  *v = Dev(d)->power_mw;
  return 0;
}
FAKE nvmlDeviceGetEnforcedPowerLimit(void* d, unsigned* v) {
  *v = Dev(d)->limit_mw;
  return 0;
}
FAKE nvmlDeviceGetPowerManagementDefaultLimit(void* d, unsigned* v) {
  *v = Dev(d)->default_limit_mw;
  return 0;
}
FAKE nvmlDeviceGetTemperature(void* d, int, unsigned* v) {
  *v = Dev(d)->temp;
  return 0;
}
FAKE nvmlDeviceGetTemperatureThreshold(void* d, int, unsigned* v) {
  *v = Dev(d)->slowdown;
  return 0;
}
FAKE nvmlDeviceGetPersistenceMode(void* d, int* v) {
  *v = Dev(d)->persistence;
  return 0;
}
FAKE nvmlDeviceGetEccMode(void*, int* current, int* pending) {
  *current = 1;
  *pending = 1;
  return 0;
}
FAKE nvmlDeviceGetTotalEccErrors(void* d, int type, int,
                                 unsigned long long* v) {
  *v = type == 1 ? Dev(d)->uncorrected : Dev(d)->corrected;
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
FAKE nvmlDeviceGetComputeRunningProcesses_v3(void* d, unsigned* count,
                                             ProcessInfo* infos) {
  const unsigned n = Dev(d)->processes;
  if (*count < n) {
    *count = n;
    return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  }
  for (unsigned i = 0; i < n; ++i) {
    infos[i] = {i == 0 ? 4242u : 777u, i == 0 ? 10ull << 30 : 1ull << 30, 0, 0};
  }
  *count = n;
  return 0;
}
