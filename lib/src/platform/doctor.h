// `feedprof doctor`: the platform checks on the live machine, in about a
// second, before a run.
//
// It reads the machine's facts (machine_reader.h), loads NVML when the
// driver has it, samples CPU time over a short interval for iowait while
// the rest is read, and runs every check (platform_checks.h).
#ifndef FEEDPROF_PLATFORM_DOCTOR_H_
#define FEEDPROF_PLATFORM_DOCTOR_H_

#include <string>

#include "feedprof/platform.h"
#include "platform/machine_facts.h"
#include "platform/machine_reader.h"

namespace feedprof::platform {

struct DoctorOptions {
  std::string root = "/";  // tests point it at a constructed tree
  ReadOptions read;
  // Loaded with dlopen; empty: NVML is not tried.
  std::string nvml_library = "libnvidia-ml.so.1";
  // The iowait sample spans at least this long (the rest of the reading
  // happens inside it).
  int cpu_sample_ms = 250;
};

struct DoctorResult {
  MachineFacts facts;
  PlatformReport report;
  double elapsed_s = 0;
  std::string hostname;
};

DoctorResult RunDoctor(const DoctorOptions& options);

// 0 when no check fails, 1 when one does.
int DoctorExitCode(const PlatformReport& report);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_DOCTOR_H_
