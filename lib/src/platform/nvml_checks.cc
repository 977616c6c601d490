// Driver and NVML checks: which driver is loaded and whether NVML agrees
// with it, then per GPU what only NVML can say: clocks against their
// maximum, the reasons the clocks are held down (power, heat, hardware
// slowdown), power against its limit, temperature against the slowdown
// threshold, persistence mode, ECC errors and the processes sharing it.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "platform/finding_builder.h"
#include "platform/platform_checks.h"

namespace feedprof::platform {
namespace {

// Thresholds (docs/doctor.md).
constexpr double kPowerLimitShare = 0.95;    // enforced vs default limit
constexpr uint32_t kTemperatureMarginC = 5;  // below the slowdown point
constexpr double kBusyClockShare = 0.8;      // SM clock vs max while busy

std::string CudaVersion(int v) {
  return absl::StrCat(v / 1000, ".", (v % 1000) / 10);
}

void CheckDriver(const MachineFacts& m, FindingBuilder* b) {
  const bool have_gpus = m.gpus.known() && !m.gpus->empty();
  const Fact<std::string>& module = m.kernel_driver_version;
  if (m.nvml.known()) {
    const NvmlFacts& n = *m.nvml;
    std::string value = absl::StrCat("driver ", n.driver_version);
    if (n.cuda_driver_version) {
      absl::StrAppend(&value, ", CUDA ", CudaVersion(*n.cuda_driver_version),
                      " (driver API)");
    }
    if (module.known()) absl::StrAppend(&value, ", kernel module ", *module);
    if (module.known() && !n.driver_version.empty() &&
        *module != n.driver_version) {
      b->Add("nvidia_driver", "", PlatformStatus::kFail, value,
             "the user-space driver (NVML) and the loaded kernel module are "
             "different versions: CUDA initialization fails or misbehaves",
             "Reboot, or reload the nvidia kernel module after the driver "
             "update.");
      return;
    }
    b->Add("nvidia_driver", "", PlatformStatus::kOk, value,
           "the driver is loaded and NVML answers");
    return;
  }
  if (module.known()) {
    b->Add("nvidia_driver", "", PlatformStatus::kOk,
           absl::StrCat("kernel module ", *module),
           "the NVIDIA kernel module is loaded (the CUDA version is known "
           "only through NVML)");
    return;
  }
  if (have_gpus && m.driver_probed) {
    b->Add("nvidia_driver", "", PlatformStatus::kFail,
           "no NVIDIA kernel module loaded",
           absl::StrCat("the machine has NVIDIA GPUs but ", module.why_unknown,
                        ": CUDA cannot use them"),
           "Install the NVIDIA driver, or load it (`sudo modprobe nvidia`); "
           "in a container, run it with the NVIDIA container runtime.");
    return;
  }
  b->Unknown("nvidia_driver", "", module.why_unknown);
}

void CheckNvmlLoaded(const MachineFacts& m, FindingBuilder* b) {
  if (!m.nvml.known()) {
    b->Unknown("nvml", "", m.nvml.why_unknown,
               m.live ? "Where the GPUs are, install the NVIDIA driver (it "
                        "ships libnvidia-ml.so.1) or run in the NVIDIA "
                        "container runtime."
                      : "");
    return;
  }
  b->Add("nvml", "", PlatformStatus::kOk,
         absl::StrCat("NVML sees ", m.nvml->devices,
                      m.nvml->devices == 1 ? " GPU" : " GPUs"),
         "clocks, throttling, power, temperature, ECC and processes are read "
         "through NVML");
}

void CheckGpu(const MachineFacts& m, const GpuFacts& g, FindingBuilder* b) {
  const NvmlGpuFacts& n = *g.nvml;
  const std::string subject = g.Label();
  const bool busy = n.utilization_pct && *n.utilization_pct > 0;
  const std::string when =
      n.samples > 1 ? absl::StrCat(" over ", n.samples, " NVML samples") : "";

  // Clocks.
  if (n.sm_clock_mhz && n.sm_max_clock_mhz) {
    std::string value = absl::StrCat("SM ", *n.sm_clock_mhz, " of ",
                                     *n.sm_max_clock_mhz, " MHz");
    if (n.utilization_pct) {
      absl::StrAppend(&value, ", utilization ", *n.utilization_pct, "%");
    }
    absl::StrAppend(&value, when);
    if (busy &&
        static_cast<double>(*n.sm_clock_mhz) <
            kBusyClockShare * static_cast<double>(*n.sm_max_clock_mhz)) {
      b->Add("gpu_clocks", subject, PlatformStatus::kWarn, value,
             "busy below its maximum clock: see the throttle reasons",
             "Check cooling and the power limit (gpu_throttle, gpu_power).");
    } else {
      b->Add("gpu_clocks", subject, PlatformStatus::kOk, value,
             busy ? "busy near its maximum clock"
                  : "idle GPUs lower their clocks; they rise under load");
    }
  } else if (n.sm_clock_mhz && n.from_trace) {
    std::string value =
        absl::StrCat("SM ", *n.sm_clock_mhz, " MHz (median while busy)");
    if (n.utilization_pct) {
      absl::StrAppend(&value, ", utilization up to ", *n.utilization_pct, "%");
    }
    absl::StrAppend(&value, when);
    b->Add("gpu_clocks", subject, PlatformStatus::kOk, value,
           "the maximum clock is not recorded; the throttle reasons say "
           "whether anything held the clock down");
  } else {
    b->Unknown("gpu_clocks", subject,
               "no SM clock reading (NVML does not report it for this GPU, "
               "or the trace did not sample it)");
  }

  // Clock event (throttle) reasons.
  if (n.clock_event_reasons) {
    const uint64_t r = *n.clock_event_reasons;
    const std::string value = absl::StrCat(DescribeClockReasons(r),
                                           absl::StrFormat(" (0x%x)", r), when);
    if ((r & (kReasonHwSlowdown | kReasonHwThermal | kReasonHwPowerBrake)) !=
        0) {
      b->Add("gpu_throttle", subject, PlatformStatus::kFail, value,
             "the hardware holds the clocks down (overheating, a power "
             "supply or power-brake signal): kernels run slower than the "
             "GPU can",
             "Check the cooling, fans and power supply; `nvidia-smi -q -d "
             "PERFORMANCE` shows the active reasons.");
    } else if ((r & (kReasonSwThermal | kReasonSwPowerCap |
                     kReasonApplicationsClocks)) != 0) {
      b->Add("gpu_throttle", subject, PlatformStatus::kWarn, value,
             (r & kReasonSwPowerCap) != 0
                 ? "the driver lowers the clocks to stay under the power "
                   "limit: the GPU's own limit, not the host, sets the pace"
                 : "the driver holds the clocks below their maximum (heat or "
                   "an application clock setting)",
             "See gpu_power and gpu_temperature; `nvidia-smi -rac` resets "
             "application clocks.");
    } else {
      b->Add("gpu_throttle", subject, PlatformStatus::kOk, value,
             (r & kReasonGpuIdle) != 0 ? "idle: nothing holds the clocks down"
                                       : "nothing holds the clocks down");
    }
  } else {
    b->Unknown("gpu_throttle", subject,
               "no clock event (throttle) reasons from NVML for this GPU");
  }

  // Power.
  if (n.power_limit_mw) {
    std::string value =
        n.power_mw
            ? absl::StrFormat("%.1f of %.1f W", *n.power_mw / 1000.0,
                              *n.power_limit_mw / 1000.0)
            : absl::StrFormat("limit %.1f W", *n.power_limit_mw / 1000.0);
    if (n.default_power_limit_mw) {
      absl::StrAppend(&value,
                      absl::StrFormat(" (default limit %.1f W)",
                                      *n.default_power_limit_mw / 1000.0));
    }
    if (n.default_power_limit_mw &&
        static_cast<double>(*n.power_limit_mw) <
            kPowerLimitShare * static_cast<double>(*n.default_power_limit_mw)) {
      b->Add("gpu_power", subject, PlatformStatus::kWarn, value,
             "the power limit was lowered below the default: under load the "
             "clocks drop earlier",
             "`sudo nvidia-smi -i " + std::to_string(g.index) +
                 " -pl <watts>` restores it (if the cooling and supply "
                 "allow).");
    } else {
      b->Add("gpu_power", subject, PlatformStatus::kOk, value,
             "the power limit is the default");
    }
  } else if (n.power_mw) {
    b->Add("gpu_power", subject, PlatformStatus::kOk,
           absl::StrFormat("up to %.1f W%s", *n.power_mw / 1000.0, when),
           "the power limit is not recorded; a power cap shows in the "
           "throttle reasons");
  } else {
    b->Unknown("gpu_power", subject, "no power reading from NVML");
  }

  // Temperature.
  if (n.temperature_c) {
    std::string value = absl::StrCat(*n.temperature_c, " °C");
    if (n.slowdown_temperature_c) {
      absl::StrAppend(&value, " (slowdown at ", *n.slowdown_temperature_c,
                      " °C)");
    }
    if (n.slowdown_temperature_c &&
        *n.temperature_c >= *n.slowdown_temperature_c) {
      b->Add("gpu_temperature", subject, PlatformStatus::kFail, value,
             "at or above the slowdown temperature: the GPU throttles",
             "Check the airflow and fans.");
    } else if (n.slowdown_temperature_c &&
               *n.temperature_c + kTemperatureMarginC >=
                   *n.slowdown_temperature_c) {
      b->Add("gpu_temperature", subject, PlatformStatus::kWarn, value,
             "close to the slowdown temperature",
             "Check the airflow and fans.");
    } else if (n.slowdown_temperature_c) {
      b->Add("gpu_temperature", subject, PlatformStatus::kOk, value,
             "well below the slowdown temperature");
    } else {
      b->Add("gpu_temperature", subject, PlatformStatus::kOk,
             absl::StrCat(value, n.from_trace ? " at most" : "", when),
             "the slowdown temperature is not known; a thermal slowdown shows "
             "in the throttle reasons");
    }
  } else {
    b->Unknown("gpu_temperature", subject,
               "no temperature reading from NVML for this GPU");
  }

  // A trace holds persistence and ECC only where its NVML sampler recorded
  // the static facts, and never the processes.
  if (n.from_trace && !n.static_facts) return;

  // Persistence mode.
  if (n.persistence_mode) {
    if (*n.persistence_mode) {
      b->Add("gpu_persistence", subject, PlatformStatus::kOk, "enabled",
             "the driver keeps the GPU initialized between processes");
    } else {
      b->Add("gpu_persistence", subject, PlatformStatus::kWarn, "disabled",
             "with no process holding the GPU the driver tears it down, and "
             "the next CUDA initialization pays for bringing it up again "
             "(up to seconds per GPU)",
             "`sudo nvidia-smi -pm 1`, or run nvidia-persistenced.");
    }
  } else {
    b->Unknown("gpu_persistence", subject,
               "NVML does not report persistence mode (not supported here)");
  }

  // ECC.
  if (!n.ecc_enabled) {
    b->Add("gpu_ecc", subject, PlatformStatus::kOk, "ECC not supported",
           "this GPU has no ECC memory to check");
  } else if (!*n.ecc_enabled) {
    b->Add("gpu_ecc", subject, PlatformStatus::kOk, "ECC disabled",
           "memory errors go undetected (a choice, not a speed problem)");
  } else {
    const uint64_t uncorrected = n.ecc_uncorrected_volatile.value_or(0);
    const uint64_t corrected = n.ecc_corrected_volatile.value_or(0);
    std::string value =
        absl::StrCat("ECC on; since the driver loaded: ", uncorrected,
                     " uncorrected, ", corrected, " corrected errors");
    if (n.from_trace) absl::StrAppend(&value, " (when recording started)");
    if (n.ecc_uncorrected_aggregate || n.ecc_corrected_aggregate) {
      absl::StrAppend(&value, "; over the GPU's life: ",
                      n.ecc_uncorrected_aggregate.value_or(0), " uncorrected, ",
                      n.ecc_corrected_aggregate.value_or(0), " corrected");
    }
    if (n.row_remap_pending.value_or(false)) {
      absl::StrAppend(&value, "; a row remap is pending");
    }
    if (n.row_remap_failure.value_or(false)) {
      absl::StrAppend(&value, "; a row remap failed");
    }
    if (uncorrected > 0 || n.row_remap_failure.value_or(false)) {
      b->Add("gpu_ecc", subject, PlatformStatus::kFail, value,
             "uncorrectable memory errors: results may be wrong and the GPU "
             "needs a reset or service",
             "Drain the GPU, reset it (`nvidia-smi -r`) and report it if the "
             "errors return.");
    } else if (n.row_remap_pending.value_or(false)) {
      b->Add("gpu_ecc", subject, PlatformStatus::kWarn, value,
             "memory rows wait to be remapped at the next GPU reset",
             "Reset the GPU when it is idle (`nvidia-smi -r`).");
    } else {
      b->Add("gpu_ecc", subject, PlatformStatus::kOk, value,
             "no uncorrectable memory errors");
    }
  }

  // Processes.
  if (n.from_trace) return;
  if (n.processes) {
    std::vector<std::string> others;
    uint64_t bytes = 0;
    for (const NvmlGpuFacts::Process& p : *n.processes) {
      if (!m.process.own && static_cast<int>(p.pid) == m.process.pid) continue;
      others.push_back(absl::StrCat(p.pid));
      bytes += p.used_bytes;
    }
    if (others.empty()) {
      b->Add("gpu_processes", subject, PlatformStatus::kOk,
             absl::StrCat(n.processes->size(), n.processes->size() == 1
                                                   ? " compute process"
                                                   : " compute processes"),
             m.process.own ? "nobody else uses the GPU"
                           : "only the checked process uses the GPU");
    } else {
      b->Add(
          "gpu_processes", subject, PlatformStatus::kWarn,
          absl::StrCat(others.size(),
                       others.size() == 1 ? " other compute process (pid "
                                          : " other compute processes (pids ",
                       absl::StrJoin(others, ", "), ", ", Bytes(bytes),
                       " of GPU memory)"),
          "they share the GPU's SMs, copy engines and memory with the job",
          "Run the job alone on the GPU, or choose another one "
          "(CUDA_VISIBLE_DEVICES).");
    }
  } else {
    b->Unknown("gpu_processes", subject,
               "NVML does not list this GPU's processes");
  }
}

}  // namespace

void CheckNvml(const MachineFacts& m, std::vector<PlatformFinding>* out) {
  FindingBuilder b(out, "nvml");
  CheckDriver(m, &b);
  CheckNvmlLoaded(m, &b);
  if (!m.gpus.known()) return;
  for (const GpuFacts& g : *m.gpus) {
    if (g.nvml) CheckGpu(m, g, &b);
  }
}

}  // namespace feedprof::platform
