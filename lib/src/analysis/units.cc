// Human units (see units.h).
#include "analysis/units.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
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

std::string ShortKernelName(std::string_view name, size_t max_chars) {
  // The parameter list is the last top-level "(...)" of a demangled name.
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        if (i > 0) name = name.substr(0, i);
        break;
      }
    }
  }
  if (name.size() <= max_chars) return std::string(name);
  return std::string(name.substr(0, max_chars > 3 ? max_chars - 3 : 0)) + "...";
}

std::string Counted(uint64_t n, const char* noun, const char* plural) {
  if (n == 1) return absl::StrCat(n, " ", noun);
  return plural != nullptr ? absl::StrCat(n, " ", plural)
                           : absl::StrCat(n, " ", noun, "s");
}

}  // namespace feedprof::analysis
