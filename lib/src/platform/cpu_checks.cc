// CPU checks: how fast the CPUs run (governor and clocks), how many there
// are (SMT, online, the cgroup quota) and how busy the machine is (load,
// run-queue pressure, iowait). These decide how much input work (decoding,
// augmentation, collation) the host can do per GPU step.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/finding_builder.h"
#include "platform/platform_checks.h"

namespace feedprof::platform {
namespace {

// Thresholds (docs/doctor.md).
constexpr double kCpuPressureWarn = 20.0;  // % of time some task waited
constexpr double kIoPressureWarn = 10.0;
constexpr double kIowaitWarn = 0.05;
constexpr double kIowaitFail = 0.20;
constexpr double kUserspaceClockShare = 0.9;

std::string Ghz(uint64_t khz) {
  return absl::StrFormat("%.2f GHz", static_cast<double>(khz) / 1e6);
}

// CPUs the process may use: its affinity, else the online CPUs.
size_t UsableCpus(const MachineFacts& m) {
  if (m.process.affinity.known() && !m.process.affinity->empty()) {
    return m.process.affinity->size();
  }
  if (m.cpu.online.known()) return m.cpu.online->size();
  return 0;
}

void CheckFrequency(const MachineFacts& m, FindingBuilder* b) {
  const CpuFacts& c = m.cpu;
  if (!c.governor.known()) {
    b->Unknown("cpu_frequency", "", c.governor.why_unknown);
    return;
  }
  const std::string& governor = *c.governor;
  const std::string driver = c.driver.known() ? *c.driver : "unknown driver";
  std::string value = absl::StrCat("governor ", governor, " (", driver, ")");
  if (c.cur_khz.known() && c.max_khz.known()) {
    absl::StrAppend(
        &value, ", ",
        absl::StrFormat("%.2f", static_cast<double>(*c.cur_khz) / 1e6), " of ",
        Ghz(*c.max_khz), " ", c.cur_khz_of);
  } else if (c.max_khz.known()) {
    absl::StrAppend(&value, ", maximum ", Ghz(*c.max_khz));
  }
  if (c.other_governor_cpus > 0) {
    absl::StrAppend(&value, "; ", c.other_governor_cpus,
                    " CPUs use another governor");
  }
  const std::string action =
      "Set the performance governor: `sudo cpupower frequency-set -g "
      "performance` (or `tuned-adm profile throughput-performance`).";
  const bool pstate = driver == "intel_pstate" || driver == "amd-pstate" ||
                      driver == "amd-pstate-epp" || driver == "intel_cpufreq";
  PlatformStatus status = PlatformStatus::kOk;
  std::string meaning;
  std::string act;
  if (governor == "powersave" && pstate) {
    status = PlatformStatus::kWarn;
    meaning = absl::StrCat(
        "powersave with ", driver,
        " still raises the clock under load, but prefers energy over speed "
        "and lags bursts of input work between GPU steps");
    act = action;
  } else if (governor == "powersave") {
    status = PlatformStatus::kFail;
    meaning =
        "powersave holds every CPU at its lowest clock: decoding and "
        "augmentation run at a fraction of the CPU's speed";
    act = action;
  } else if (governor == "conservative") {
    status = PlatformStatus::kWarn;
    meaning = "conservative raises the clock slowly after the load rises";
    act = action;
  } else if (governor == "userspace" && c.cur_khz.known() &&
             c.max_khz.known() &&
             static_cast<double>(*c.cur_khz) <
                 kUserspaceClockShare * static_cast<double>(*c.max_khz)) {
    status = PlatformStatus::kWarn;
    meaning = "userspace governor with a fixed clock below the maximum";
    act = action;
  } else if (governor == "performance") {
    meaning = "the CPUs run at their highest clock";
  } else {
    meaning = absl::StrCat(governor, " scales the clock with the load");
  }
  if (c.other_governor_cpus > 0) {
    status = Worse(status, PlatformStatus::kWarn);
    absl::StrAppend(&meaning, "; the governor is not the same on every CPU");
    if (act.empty()) act = action;
  }
  b->Add("cpu_frequency", "", status, value, meaning, act);
}

void CheckSmt(const MachineFacts& m, FindingBuilder* b) {
  const CpuFacts& c = m.cpu;
  if (!c.threads_per_core.known()) {
    b->Unknown("cpu_smt", "", c.threads_per_core.why_unknown);
    return;
  }
  const uint32_t threads = *c.threads_per_core;
  const size_t logical = c.online.known() ? c.online->size() : 0;
  const size_t cores = threads > 0 ? logical / threads : 0;
  std::string value = threads > 1
                          ? absl::StrCat("on: ", threads, " threads per core")
                          : std::string("off: 1 thread per core");
  if (logical > 0) {
    absl::StrAppend(&value, " (", cores, " cores, ", logical,
                    " logical CPUs online)");
  }
  if (!c.smt_control.empty())
    absl::StrAppend(&value, ", control ", c.smt_control);
  if (threads > 1 && m.process.workers && cores > 0 &&
      *m.process.workers > cores) {
    b->Add("cpu_smt", "", PlatformStatus::kWarn,
           absl::StrCat(value, "; ", *m.process.workers, " worker processes"),
           absl::StrCat(*m.process.workers, " workers on ", cores,
                        " physical cores: workers share cores, and two "
                        "threads on one core get far less than two cores' "
                        "worth of decoding"),
           absl::StrCat("Size the workers to the physical cores (at most ",
                        cores, ") rather than to os.cpu_count()."));
    return;
  }
  b->Add("cpu_smt", "", PlatformStatus::kOk, value,
         threads > 1
             ? "os.cpu_count() counts logical CPUs: workers sized from it "
               "share physical cores in pairs"
             : "every logical CPU is a core of its own");
}

void CheckOnline(const MachineFacts& m, FindingBuilder* b) {
  const CpuFacts& c = m.cpu;
  if (!c.online.known()) {
    b->Unknown("cpu_online", "", c.online.why_unknown);
    return;
  }
  if (!c.present.known()) {
    b->Add("cpu_online", "", PlatformStatus::kOk,
           absl::StrCat(c.online->size(), " CPUs online (",
                        FormatCpuList(*c.online), ")"),
           "the present CPUs are not known, so offline ones cannot be told");
    return;
  }
  std::vector<int> offline;
  std::set_difference(c.present->begin(), c.present->end(), c.online->begin(),
                      c.online->end(), std::back_inserter(offline));
  const std::string value =
      absl::StrCat(c.online->size(), " of ", c.present->size(), " CPUs online");
  if (!offline.empty()) {
    b->Add("cpu_online", "", PlatformStatus::kWarn,
           absl::StrCat(value, " (offline: ", FormatCpuList(offline), ")"),
           "some CPUs are switched off: the input pipeline has fewer CPUs "
           "than the machine",
           absl::StrCat("Bring them online: `echo 1 | sudo tee "
                        "/sys/devices/system/cpu/cpu",
                        offline.front(), "/online` (each offline CPU)."));
    return;
  }
  b->Add("cpu_online", "", PlatformStatus::kOk, value,
         "every present CPU is online");
}

void CheckQuota(const MachineFacts& m, FindingBuilder* b) {
  const CgroupFacts& g = m.cgroup;
  if (!g.cpu_limit.known()) {
    b->Unknown("cgroup_cpu", "", g.cpu_limit.why_unknown);
    return;
  }
  const double limit = *g.cpu_limit;
  const size_t usable = UsableCpus(m);
  if (limit <= 0) {
    b->Add("cgroup_cpu", "", PlatformStatus::kOk, "no CPU quota",
           "the cgroup does not cap CPU time");
    return;
  }
  std::string value = absl::StrFormat("quota %.2f CPUs", limit);
  if (!g.cpu_limit_file.empty())
    absl::StrAppend(&value, " (", g.cpu_limit_file, ")");
  if (usable > 0) absl::StrAppend(&value, ", ", usable, " CPUs allowed");
  const std::string raise =
      "Raise the quota (docker --cpus, Kubernetes resources.limits.cpu, "
      "systemd CPUQuota) or size the workers to it";
  if (m.process.workers && *m.process.workers > 0 &&
      limit < static_cast<double>(*m.process.workers) + 1.0) {
    const int fit = std::max(1, static_cast<int>(std::min(limit, 1e6)) - 1);
    b->Add("cgroup_cpu", "", PlatformStatus::kFail,
           absl::StrCat(value, ", ", *m.process.workers, " worker processes"),
           absl::StrFormat(
               "the quota caps %d worker processes and the main process at "
               "%.2f CPUs' worth of time: they wait for each other and the "
               "kernel throttles the cgroup every period",
               *m.process.workers, limit),
           absl::StrCat(raise, " (num_workers=", fit, " here)."));
    return;
  }
  if (limit < 1.0) {
    b->Add("cgroup_cpu", "", PlatformStatus::kFail, value,
           "less than one CPU: every thread of the program shares a fraction "
           "of a core",
           raise + ".");
    return;
  }
  if (usable > 0 && limit + 1e-9 < static_cast<double>(usable)) {
    b->Add("cgroup_cpu", "", PlatformStatus::kWarn, value,
           absl::StrFormat(
               "work beyond %.2f CPUs is throttled, while os.cpu_count() and "
               "the affinity say %d: a worker count sized from them "
               "oversubscribes the quota",
               limit, usable),
           raise + ".");
    return;
  }
  b->Add("cgroup_cpu", "", PlatformStatus::kOk, value,
         "the quota is no smaller than the CPUs the process may use");
}

void CheckLoad(const MachineFacts& m, FindingBuilder* b) {
  const LoadFacts& l = m.load;
  if (!l.loadavg.known()) {
    b->Unknown("cpu_load", "", l.loadavg.why_unknown);
    return;
  }
  size_t cpus = UsableCpus(m);
  if (m.cgroup.cpu_limit.known() && *m.cgroup.cpu_limit > 0) {
    cpus = std::min<size_t>(
        cpus, static_cast<size_t>(std::clamp(*m.cgroup.cpu_limit, 1.0, 1e6)));
  }
  std::string value =
      absl::StrFormat("load %.2f (1 min) on %d CPUs, %d runnable",
                      l.loadavg->load1, cpus, l.loadavg->runnable);
  if (!l.loadavg_when.empty()) absl::StrAppend(&value, ", ", l.loadavg_when);
  if (l.cpu_pressure.known()) {
    absl::StrAppend(&value,
                    absl::StrFormat(", cpu pressure %.2f%% (some, 10 s)",
                                    l.cpu_pressure->some_avg10));
  }
  const bool overloaded =
      cpus > 0 && l.loadavg->load1 > static_cast<double>(cpus);
  const bool pressure =
      l.cpu_pressure.known() && l.cpu_pressure->some_avg10 >= kCpuPressureWarn;
  if (overloaded || pressure) {
    b->Add("cpu_load", "", PlatformStatus::kWarn, value,
           "more threads want a CPU than there are: the input pipeline and "
           "the launching thread wait in the run queue",
           "Find what else runs (`top`, `ps -eo pid,pcpu,comm --sort=-pcpu`) "
           "and leave the job's CPUs to it.");
    return;
  }
  b->Add("cpu_load", "", PlatformStatus::kOk, value,
         "the CPUs have room to spare");
}

void CheckIowait(const MachineFacts& m, FindingBuilder* b) {
  const LoadFacts& l = m.load;
  if (!l.iowait_share.known()) {
    b->Unknown("cpu_iowait", "", l.iowait_share.why_unknown);
    return;
  }
  const double share = *l.iowait_share;
  std::string value = absl::StrCat("iowait ", Percent(share), " of CPU time ",
                                   l.interval_label);
  if (l.io_pressure.known()) {
    absl::StrAppend(&value, absl::StrFormat(", io pressure %.2f%% (some, 10 s)",
                                            l.io_pressure->some_avg10));
  }
  PlatformStatus status = PlatformStatus::kOk;
  if (share >= kIowaitFail) {
    status = PlatformStatus::kFail;
  } else if (share >= kIowaitWarn ||
             (l.io_pressure.known() &&
              l.io_pressure->some_avg10 >= kIoPressureWarn)) {
    status = PlatformStatus::kWarn;
  }
  if (status == PlatformStatus::kOk) {
    b->Add("cpu_iowait", "", status, value,
           "CPUs are not left idle waiting for storage");
    return;
  }
  b->Add("cpu_iowait", "", status, value,
         "CPUs sit idle waiting for storage: something on the machine "
         "(maybe the job's own data loading) reads or writes heavily",
         "Find the I/O (`iotop -o`, `pidstat -d 1`); for data loading, see "
         "the storage checks (--data PATH).");
}

}  // namespace

void CheckCpu(const MachineFacts& m, std::vector<PlatformFinding>* out) {
  FindingBuilder b(out, "cpu");
  CheckFrequency(m, &b);
  CheckSmt(m, &b);
  CheckOnline(m, &b);
  CheckQuota(m, &b);
  CheckLoad(m, &b);
  CheckIowait(m, &b);
}

}  // namespace feedprof::platform
