// Human units (see units.h).
#include "common/units.h"

#include <cmath>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace feedprof::common {
namespace {

// `v` / `scale` with three significant digits and `unit`, when that reads
// below `limit` of the unit; false when it rounds to `limit` or above
// ("%.3g" writes 999.7 as "1e+03"), and the next unit should be taken.
bool InUnit(double v, double scale, double limit, const char* unit,
            std::string* out) {
  std::string number = absl::StrFormat("%.3g", v / scale);
  double rounded = 0;
  if (!absl::SimpleAtod(number, &rounded) || std::abs(rounded) >= limit) {
    return false;
  }
  *out = absl::StrCat(number, " ", unit);
  return true;
}

}  // namespace

// Three significant digits in the first unit, from µs up, in which the
// value reads below 1000 (below 60 minutes, below 24 hours): "999 µs", then
// "1 ms" where "%.3g" would write 999.7 µs as "1e+03 µs". Past 1000 s
// seconds would need an exponent ("1.8e+06 s"): minutes, hours and days
// follow, and from 1000 days on days are written whole ("1234 d").
std::string FormatDuration(int64_t ns) {
  constexpr double kMinute = 60e9, kHour = 3600e9, kDay = 86400e9;
  const double v = static_cast<double>(ns);
  if (std::abs(v) < 1e3) return absl::StrFormat("%d ns", ns);
  std::string out;
  if (InUnit(v, 1e3, 1000, "µs", &out) || InUnit(v, 1e6, 1000, "ms", &out) ||
      InUnit(v, 1e9, 1000, "s", &out) || InUnit(v, kMinute, 60, "min", &out) ||
      InUnit(v, kHour, 24, "h", &out) || InUnit(v, kDay, 1000, "d", &out)) {
    return out;
  }
  return absl::StrFormat("%.0f d", v / kDay);
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

std::string FormatCount(uint64_t n) {
  std::string digits = absl::StrCat(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace feedprof::common
