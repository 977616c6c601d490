// Says whether text is one strict JSON value, for the fuzzers' output checks.
//
// `feedprof dump` promises one JSON value per line and the JSON report
// promises a document any JSON parser reads, whatever bytes the trace held
// (invalid UTF-8, control characters, NaN-producing numbers). The checker is
// deliberately strict: raw control characters in strings, invalid UTF-8,
// NaN/Infinity, leading zeros, trailing commas and trailing bytes all fail.
// It only validates (no values are built), so it costs little per input.
#ifndef FEEDPROF_TESTS_FUZZ_STRICT_JSON_CHECK_H_
#define FEEDPROF_TESTS_FUZZ_STRICT_JSON_CHECK_H_

#include <cstddef>
#include <string_view>

namespace feedprof::fuzz {

// True when `text` is exactly one JSON value (surrounding blanks allowed).
// On false, `*error_offset` is the byte where the text went wrong.
bool IsStrictJson(std::string_view text, size_t* error_offset);

}  // namespace feedprof::fuzz

#endif  // FEEDPROF_TESTS_FUZZ_STRICT_JSON_CHECK_H_
