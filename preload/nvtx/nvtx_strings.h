// Turns the text an NVTX call names into an interned string id.
//
// NVTX names arrive in three forms: ASCII pointers (nvtxRangePushA and
// messages of type NVTX_MESSAGE_TYPE_ASCII), wide strings (the W variants;
// wchar_t is UTF-32 on Linux) and handles of registered strings. The trace
// stores interned ids, so every form ends as one `InternString` id:
//  * Registered strings are interned once at registration; the handle we
//    hand back *is* the id, so using one costs nothing.
//  * ASCII names go through a small per-thread cache (NameCache) keyed by
//  pointer that
//    also keeps a copy of the text: a hit is a pointer compare plus a short
//    strncmp, and the copy keeps it correct when a program reuses a buffer
//    for different names (names built with snprintf into one array).
//    Names too long for the copy skip the cache.
//  * Wide names are converted to UTF-8 on the stack, then interned.
// Nothing here allocates; InternString takes its lock only on the first
// sight of a string.
#ifndef FEEDPROF_PRELOAD_NVTX_NVTX_STRINGS_H_
#define FEEDPROF_PRELOAD_NVTX_NVTX_STRINGS_H_

#include <cstddef>
#include <cstdint>
#include <cwchar>

#include "preload/nvtx/nvtx_api.h"

namespace feedprof::preload::nvtx {

// Longest name, in UTF-8 bytes, the injection keeps; longer names are cut
// at a character boundary.
inline constexpr size_t kMaxNameBytes = 1024;

// Writes `text` (UTF-32, NUL-terminated) as UTF-8 into `out`, at most
// `capacity - 1` bytes plus a NUL, never splitting a character. Invalid
// code points (surrogates, values past U+10FFFF) become U+FFFD. Returns the
// number of bytes written, without the NUL.
size_t WideToUtf8(const wchar_t* text, char* out, size_t capacity);

// A thread's cache of recently seen ASCII names: pointer, id and a copy of
// the text (64 bytes a slot, one cache line).
struct NameCache {
  static constexpr size_t kSlots = 64;  // power of two
  static constexpr size_t kTextBytes = 52;
  struct Slot {
    const char* pointer;
    uint32_t id;
    char text[kTextBytes];  // NUL-terminated copy of the name
  };
  Slot slots[kSlots];
};

// Interned id of an ASCII/UTF-8 name; 0 for null or empty text. `cache`
// (the calling thread's) may be null: the name is then interned directly.
uint32_t InternAsciiName(NameCache* cache, const char* text);

// Interned id of a wide name; 0 for null or empty text.
uint32_t InternWideName(const wchar_t* text);

// Registered-string handles carry the interned id in the pointer value.
inline nvtxStringHandle_t StringHandleFromId(uint32_t id) {
  return reinterpret_cast<nvtxStringHandle_t>(static_cast<uintptr_t>(id));
}
inline uint32_t IdFromStringHandle(nvtxStringHandle_t handle) {
  const uintptr_t value = reinterpret_cast<uintptr_t>(handle);
  return value <= UINT32_MAX ? static_cast<uint32_t>(value) : 0;
}

// The name, category, color and payload of an nvtxEventAttributes_t, with
// every field checked against the struct's declared size.
struct EventAttributes {
  uint64_t payload = 0;
  uint32_t name_id = 0;
  uint32_t category = 0;
  uint32_t color = 0;  // ARGB; 0 when the caller gave none
};

EventAttributes ReadEventAttributes(NameCache* cache,
                                    const nvtxEventAttributes_t* attributes);

}  // namespace feedprof::preload::nvtx

#endif  // FEEDPROF_PRELOAD_NVTX_NVTX_STRINGS_H_
