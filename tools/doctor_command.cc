// `feedprof doctor [--pid PID] [--data PATH] [--format text|json]`: checks
// the machine a job is about to run on (or runs on) against the platform
// checklist — GPU links and NUMA placement, the process's affinity and
// memory policy, CPU governor, SMT, cgroup quota, load, memory pressure,
// the data's storage, NVML — in about a second, one line per check. The
// checks are documented in docs/doctor.md.
#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "feedprof/doctor.h"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

struct DoctorArgs {
  int pid = 0;  // 0: the shell's own process
  std::vector<std::string> data;
  std::string format = "text";
};

int Run(const DoctorArgs& args) {
  DoctorOptions options;
  if (args.pid > 0) {
    struct stat st;
    const std::string dir = "/proc/" + std::to_string(args.pid);
    if (stat(dir.c_str(), &st) != 0) {
      throw UsageError("--pid " + std::to_string(args.pid) +
                       ": no such process (" + dir + " does not exist)");
    }
    options.pid = args.pid;
  }
  options.data_paths = args.data;
  const DoctorOutcome outcome =
      RunDoctorChecks(options, args.format == "json" ? DoctorFormat::kJson
                                                     : DoctorFormat::kText);
  const std::string& out = outcome.output;
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() ||
      std::fflush(stdout) != 0) {
    std::fputs("feedprof doctor: writing to stdout failed\n", stderr);
    return kExitFailed;
  }
  return outcome.exit_code;
}

}  // namespace

void AddDoctorCommand(CLI::App& root, int* exit_code) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* sub = AddCommand(
      root, "doctor", "[--pid PID] [--data PATH] [--format text|json]",
      "check this machine's platform for feeding the GPU",
      "Checks the machine a job runs on, in about a second and without a\n"
      "trace: each NVIDIA GPU's PCIe link (current against maximum speed and\n"
      "width) and NUMA node; the process's CPU affinity and memory policy\n"
      "against the GPUs' nodes (--pid, else this shell's); CPU governor and\n"
      "clocks, SMT, online CPUs, the cgroup CPU quota and memory limit, load,\n"
      "run-queue pressure and iowait; MemAvailable, dirty and writeback\n"
      "memory, swap, transparent huge pages and the locked-memory limit;\n"
      "for --data PATH the file system, mount options, device and a short\n"
      "read-only read-latency probe; and, where libnvidia-ml.so.1 loads,\n"
      "clocks, throttle reasons, power, temperature, persistence mode, ECC\n"
      "errors, processes and the driver and CUDA versions.\n"
      "\n"
      "Prints one line per check: ok, warn, fail or unknown, the measured\n"
      "value, what it means and what to do. No root is needed where the\n"
      "kernel lets users read the files; what cannot be read is unknown,\n"
      "with the reason.",
      "Exit codes: 0 no check failed, 1 a check failed, 2 usage error.");
  sub->add_option("--pid", args->pid,
                  "Check this process's affinity, memory policy, cgroup and\n"
                  "limits instead of the shell's")
      ->type_name("PID")
      ->check(Check([](const std::string& v) {
        int pid = 0;
        return absl::SimpleAtoi(v, &pid) && pid > 0
                   ? std::string()
                   : "'" + v + "' is not a process id";
      }));
  sub->add_option("--data", args->data,
                  "The data's location (a directory or file); may be given\n"
                  "more than once")
      ->type_name("PATH");
  sub->add_option("--format", args->format,
                  "Output format: text (default) or json")
      ->type_name("FORMAT")
      ->check(Check([](const std::string& v) {
        return v == "text" || v == "json"
                   ? std::string()
                   : "unknown format '" + v + "': use text or json";
      }));
  sub->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace feedprof::cli
