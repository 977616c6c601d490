// CheckPlatform and the formatting the check files share.
#include "platform/platform_checks.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "platform/finding_builder.h"

namespace feedprof::platform {

std::vector<PlatformFinding> CheckPlatform(const MachineFacts& facts) {
  std::vector<PlatformFinding> out;
  CheckGpus(facts, &out);
  CheckProcess(facts, &out);
  CheckCpu(facts, &out);
  CheckMemory(facts, &out);
  CheckStorage(facts, &out);
  CheckNvml(facts, &out);
  return out;
}

double LinkGBps(double gts, uint32_t width) {
  double efficiency = 128.0 / 130.0;            // Gen3..Gen5
  if (gts <= 5.0) efficiency = 8.0 / 10.0;      // Gen1, Gen2
  if (gts >= 64.0) efficiency = 242.0 / 256.0;  // Gen6 FLIT
  return gts * efficiency / 8.0 * width;
}

std::string DescribeLink(double gts, uint32_t width) {
  return absl::StrFormat("Gen%d x%d (%g GT/s, %.1f GB/s)", PcieGeneration(gts),
                         width, gts, LinkGBps(gts, width));
}

std::string DescribeClockReasons(uint64_t reasons) {
  static constexpr struct {
    uint64_t bit;
    const char* name;
  } kNames[] = {
      {kReasonGpuIdle, "GPU idle"},
      {kReasonApplicationsClocks, "application clocks setting"},
      {kReasonSwPowerCap, "SW power cap"},
      {kReasonHwSlowdown, "HW slowdown"},
      {kReasonSyncBoost, "sync boost"},
      {kReasonSwThermal, "SW thermal slowdown"},
      {kReasonHwThermal, "HW thermal slowdown"},
      {kReasonHwPowerBrake, "HW power brake"},
      {kReasonDisplayClocks, "display clock setting"},
  };
  std::vector<std::string> names;
  uint64_t known = 0;
  for (const auto& n : kNames) {
    known |= n.bit;
    if ((reasons & n.bit) != 0) names.emplace_back(n.name);
  }
  if ((reasons & ~known) != 0) {
    names.push_back(absl::StrFormat("other 0x%x", reasons & ~known));
  }
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

PlatformStatus Worse(PlatformStatus a, PlatformStatus b) {
  const auto rank = [](PlatformStatus s) {
    switch (s) {
      case PlatformStatus::kFail:
        return 3;
      case PlatformStatus::kWarn:
        return 2;
      case PlatformStatus::kOk:
        return 1;
      case PlatformStatus::kUnknown:
        break;
    }
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

std::string Percent(double share) {
  const double pct = share * 100.0;
  // Two literal formats: absl checks a format string at compile time.
  return std::fabs(pct) < 1.0 ? absl::StrFormat("%.2f%%", pct)
                              : absl::StrFormat("%.1f%%", pct);
}

std::string Fixed(double v, int digits) {
  return absl::StrFormat("%.*f", digits, v);
}

std::string Bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  size_t unit = 0;
  while (v >= 1024.0 && unit + 1 < std::size(kUnits)) {
    v /= 1024.0;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  return absl::StrFormat("%.1f %s", v, kUnits[unit]);
}

std::string GpuFacts::Label() const {
  return absl::StrCat("GPU", index, " ", bus_id);
}

std::string ProcessFacts::Label() const {
  std::string label = own ? "this shell" : absl::StrCat("process ", pid);
  if (own && pid > 0) absl::StrAppend(&label, " (doctor, pid ", pid, ")");
  if (!own && !command.empty()) absl::StrAppend(&label, " (", command, ")");
  return label;
}

}  // namespace feedprof::platform
