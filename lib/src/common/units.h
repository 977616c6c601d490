// Human units for evidence sentences and the text report: durations,
// percentages, byte counts. One place so every sentence prints alike.
#ifndef FEEDPROF_COMMON_UNITS_H_
#define FEEDPROF_COMMON_UNITS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace feedprof::common {

// "850 ns", "12.3 µs", "4.56 ms", "1.23 s", "999 s", then "16.7 min",
// "5 h", "20.8 d": three significant digits, never an exponent.
std::string FormatDuration(int64_t ns);
std::string FormatPercent(double share);  // 0.1234 → "12.3%"
std::string FormatBytes(uint64_t bytes);  // "1.5 GiB"
// A kernel's name for a sentence: the demangled parameter list dropped and
// at most `max_chars` characters ("..." marks a cut).
std::string ShortKernelName(std::string_view name, size_t max_chars = 80);
// "1 call", "3 calls": a count with its noun (regular plural).
std::string Counted(uint64_t n, const char* noun, const char* plural = nullptr);
// "15,200": a count with thousands separators.
std::string FormatCount(uint64_t n);

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_UNITS_H_
