#include "common/utf8.h"

#include <cstdint>

namespace feedprof::common {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

bool IsContinuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

size_t Utf8SequenceLength(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  const uint8_t b0 = p[0];
  if (b0 < 0x80) return 1;
  // Second-byte ranges follow the table in RFC 3629 section 4, which rules
  // out overlong forms, surrogates and code points above U+10FFFF.
  size_t length = 0;
  uint8_t lo = 0x80;
  uint8_t hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 == 0xE0) {
    length = 3;
    lo = 0xA0;
  } else if (b0 == 0xED) {
    length = 3;
    hi = 0x9F;
  } else if (b0 >= 0xE1 && b0 <= 0xEF) {
    length = 3;
  } else if (b0 == 0xF0) {
    length = 4;
    lo = 0x90;
  } else if (b0 >= 0xF1 && b0 <= 0xF3) {
    length = 4;
  } else if (b0 == 0xF4) {
    length = 4;
    hi = 0x8F;
  } else {
    return 0;
  }
  if (n < length) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (!IsContinuation(p[i])) return 0;
  }
  return length;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<uint8_t>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t length = Utf8SequenceLength(s.substr(i));
    if (length == 0) return false;
    i += length;
  }
  return true;
}

void AppendRepairedUtf8(std::string_view s, std::string* out) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t length = Utf8SequenceLength(s.substr(i));
    if (length == 0) {
      out->append(kReplacementCharacter);
      ++i;
    } else {
      out->append(s.substr(i, length));
      i += length;
    }
  }
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace feedprof::common
