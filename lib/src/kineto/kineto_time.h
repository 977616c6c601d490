// Exact conversion of Kineto's decimal numbers to integers.
//
// Kineto writes timestamps and durations in microseconds, as integers
// ("1694039994071305") or with a fraction ("1712195495505543.2", "63.813").
// Converting through double loses the nanoseconds of an epoch-based
// timestamp (a double has ~16 significant digits; these have 19 in ns), and
// busy/idle sums must match other tools to 1e-6 relative, so the decimal
// text is converted digit by digit into integer nanoseconds.
#ifndef FEEDPROF_LIB_SRC_KINETO_KINETO_TIME_H_
#define FEEDPROF_LIB_SRC_KINETO_KINETO_TIME_H_

#include <cstdint>
#include <string_view>

namespace feedprof::kineto {

// The most µs MicrosToNanos takes: 9e18 ns, within int64.
inline constexpr uint64_t kMaxMicros = 9'000'000'000'000'000ULL;

// Parses a JSON number in µs into ns, rounding half away from zero past the
// third decimal. Exponent forms fall back to long double. False when the
// text is not a number or the value does not fit in int64 ns.
bool MicrosToNanos(std::string_view text, int64_t* ns);

// Parses a JSON number as an integer; a fraction or exponent is rounded.
bool ParseInteger(std::string_view text, int64_t* value);

// The first run of decimal digits in `text` ("stream 7 7" -> 7), or false.
bool FirstIntegerIn(std::string_view text, int64_t* value);

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KINETO_TIME_H_
