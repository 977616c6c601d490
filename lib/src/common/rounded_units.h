// Counts and sizes that are means or rates (reads a second, the average
// read), rounded to whole units before they are written like the counts
// and sizes they stand for: "1,520", "3.3 KiB".
#ifndef FEEDPROF_COMMON_ROUNDED_UNITS_H_
#define FEEDPROF_COMMON_ROUNDED_UNITS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "common/units.h"

namespace feedprof::common {

inline std::string FormatRoundedCount(double n) {
  return FormatCount(static_cast<uint64_t>(std::llround(std::max(0.0, n))));
}

inline std::string FormatRoundedBytes(double bytes) {
  return FormatBytes(static_cast<uint64_t>(std::llround(std::max(0.0, bytes))));
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_ROUNDED_UNITS_H_
