// `feedprof doctor` as a library call: the machine's platform checks,
// rendered as text or JSON.
//
// A job scheduler or a pre-flight script may want the same checks the
// command runs before a training job starts, without shelling out to it.
// The checks and their thresholds are in docs/doctor.md; the findings are
// those `analyze` reports from a recorded snapshot (feedprof/platform.h).
#ifndef FEEDPROF_DOCTOR_H_
#define FEEDPROF_DOCTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "feedprof/platform.h"

namespace feedprof {

struct DoctorOptions {
  // The process whose affinity, memory policy, cgroup and limits are
  // checked; unset: the calling process itself.
  std::optional<int> pid;
  // Data locations to check (file system, device, read latency).
  std::vector<std::string> data_paths;
};

enum class DoctorFormat : uint8_t {
  kText,  // one line per check, grouped by area, then a summary line
  kJson,  // schema "feedprof.doctor/1" (docs/doctor.md)
};

struct DoctorOutcome {
  PlatformReport report;  // the findings
  std::string output;     // the report in the format asked for
  int exit_code = 0;      // 0 when no check fails, 1 when one does
};

// Reads the live machine (about a second: the iowait sample) and checks it.
DoctorOutcome RunDoctorChecks(const DoctorOptions& options,
                              DoctorFormat format);

}  // namespace feedprof

#endif  // FEEDPROF_DOCTOR_H_
