// UTF-8 validation and repair for text that came from someone else's process.
//
// Trace strings are whatever the traced program handed us: thread names cut
// at 15 bytes in the middle of a character, argv in a legacy encoding, kernel
// names with stray bytes. JSON output and proto3 `string` fields both require
// valid UTF-8, so readers replace each invalid byte by U+FFFD instead of
// failing on it.
#ifndef FEEDPROF_COMMON_UTF8_H_
#define FEEDPROF_COMMON_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace feedprof::common {

// Length of the well-formed UTF-8 sequence starting at `s[0]` (1 to 4), or 0
// when `s` starts with a byte that begins no well-formed sequence (stray
// continuation byte, overlong form, surrogate, code point above U+10FFFF, or
// a sequence cut off by the end of `s`). `s` must not be empty.
size_t Utf8SequenceLength(std::string_view s);

bool IsValidUtf8(std::string_view s);

// Appends `s` to `out` with every invalid byte replaced by U+FFFD.
void AppendRepairedUtf8(std::string_view s, std::string* out);

// Appends code point `cp` (at most U+10FFFF, not a surrogate) encoded as
// UTF-8: for the JSON readers, which decode \uXXXX escapes.
void AppendUtf8(uint32_t cp, std::string* out);

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_UTF8_H_
