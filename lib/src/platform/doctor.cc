#include "platform/doctor.h"

#include <unistd.h>

#include <chrono>
#include <thread>

#include "platform/platform_checks.h"

namespace feedprof::platform {

DoctorResult RunDoctor(const DoctorOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const MachineRoot root(options.root);
  DoctorResult r;
  const CpuTimeSample sample = BeginCpuTimeSample(root);
  r.facts = ReadMachineFacts(root, options.read);
  if (!options.nvml_library.empty()) {
    r.facts.nvml = ReadNvml(options.nvml_library, &r.facts.gpus);
  } else {
    r.facts.nvml.Unknown("NVML was not tried");
  }
  const auto until =
      sample.at + std::chrono::milliseconds(options.cpu_sample_ms);
  std::this_thread::sleep_until(until);
  FinishCpuTimeSample(root, sample, &r.facts.load);

  r.report.source = r.facts.source;
  r.report.findings = CheckPlatform(r.facts);
  if (root.live()) {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) r.hostname = host;
  } else {
    r.hostname = root.Attribute("/proc/sys/kernel/hostname").value_or("");
  }
  r.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return r;
}

int DoctorExitCode(const PlatformReport& report) {
  return report.Count(PlatformStatus::kFail) > 0 ? 1 : 0;
}

}  // namespace feedprof::platform
