// Human units for evidence sentences and the text report: durations,
// percentages, byte counts. One place so every sentence prints alike.
#ifndef FEEDPROF_ANALYSIS_UNITS_H_
#define FEEDPROF_ANALYSIS_UNITS_H_

#include <cstdint>
#include <string>

#include "feedprof/timeline.h"

namespace feedprof::analysis {

std::string FormatDuration(
    TimeNs ns);  // "850 ns", "12.3 µs", "4.56 ms", "1.23 s"
std::string FormatPercent(double share);  // 0.1234 → "12.3%"
std::string FormatBytes(uint64_t bytes);  // "1.5 GiB"

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_UNITS_H_
