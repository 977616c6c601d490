// Human units (see units.h).
#include "analysis/units.h"

#include <cstdlib>

#include "absl/strings/str_format.h"

namespace feedprof::analysis {

std::string FormatDuration(TimeNs ns) {
  const double v = static_cast<double>(ns);
  const double a = std::abs(v);
  if (a < 1e3) return absl::StrFormat("%d ns", ns);
  if (a < 1e6) return absl::StrFormat("%.3g µs", v / 1e3);
  if (a < 1e9) return absl::StrFormat("%.3g ms", v / 1e6);
  return absl::StrFormat("%.3g s", v / 1e9);
}

std::string FormatPercent(double share) {
  return absl::StrFormat("%.1f%%", share * 100.0);
}

std::string FormatBytes(uint64_t bytes) {
  const auto v = static_cast<double>(bytes);
  if (v < 1024) return absl::StrFormat("%d B", bytes);
  if (v < 1024.0 * 1024) return absl::StrFormat("%.1f KiB", v / 1024);
  if (v < 1024.0 * 1024 * 1024) {
    return absl::StrFormat("%.1f MiB", v / (1024.0 * 1024));
  }
  return absl::StrFormat("%.2f GiB", v / (1024.0 * 1024 * 1024));
}

}  // namespace feedprof::analysis
