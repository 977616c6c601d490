#include "kineto/trace_event_splitter.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace feedprof::kineto {
namespace {

inline bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Bit i of each mask: byte i of a 64-byte block is that character.
struct BlockMasks {
  uint64_t quote = 0;
  uint64_t backslash = 0;
  uint64_t bracket = 0;  // { } [ ]
};

inline BlockMasks ClassifyBlock(const char* p) {
  BlockMasks m;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  // '{' | 0x20 == '{' == '[' | 0x20, and likewise '}' and ']'.
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  for (int k = 0; k < 4; ++k) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i folded = _mm_or_si128(v, case_bit);
    const int shift = 16 * k;
    m.quote |= static_cast<uint64_t>(static_cast<uint32_t>(
                   _mm_movemask_epi8(_mm_cmpeq_epi8(v, quote))))
               << shift;
    m.backslash |= static_cast<uint64_t>(static_cast<uint32_t>(
                       _mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash))))
                   << shift;
    m.bracket |=
        static_cast<uint64_t>(
            static_cast<uint32_t>(_mm_movemask_epi8(_mm_or_si128(
                _mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)))))
        << shift;
  }
#else
  for (int i = 0; i < 64; ++i) {
    const char c = p[i];
    const uint64_t bit = uint64_t{1} << i;
    if (c == '"') m.quote |= bit;
    if (c == '\\') m.backslash |= bit;
    if (c == '{' || c == '}' || c == '[' || c == ']') m.bracket |= bit;
  }
#endif
  return m;
}

// Bit i of the result: the xor of bits 0..i of x (inside a string, when x
// marks quotes: the opening quote is inside, the closing one is not).
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

enum class ObjectEndStatus : uint8_t { kFound, kNeedMore, kOther };

// The object whose '{' is at `begin`: its size through the matching '}'.
// Strings are delimited as the tokenizer delimits them: a quote ends a
// string unless an odd run of backslashes precedes it.
ObjectEndStatus FindObjectEnd(const char* begin, size_t avail, size_t max_bytes,
                              int max_depth, size_t* size) {
  const size_t limit = std::min(avail, max_bytes);
  char open[64];
  max_depth = std::min(max_depth, 64);
  int depth = 0;
  bool carry_escaped = false;  // byte 0 of the next block is escaped
  uint64_t carry_in_string = 0;
  for (size_t off = 0; off < limit; off += 64) {
    const size_t n = std::min<size_t>(64, limit - off);
    BlockMasks m;
    if (n == 64) {
      m = ClassifyBlock(begin + off);
    } else {
      char tail[64] = {};  // NUL bytes are none of the classified ones
      std::memcpy(tail, begin + off, n);
      m = ClassifyBlock(tail);
    }
    uint64_t escaped = carry_escaped ? 1 : 0;
    carry_escaped = false;
    for (uint64_t bs = m.backslash; bs != 0; bs &= bs - 1) {
      const int i = __builtin_ctzll(bs);
      if ((escaped >> i) & 1) continue;  // an escaped backslash
      if (i == 63) {
        carry_escaped = true;
      } else {
        escaped |= uint64_t{1} << (i + 1);
      }
    }
    const uint64_t in_string = PrefixXor(m.quote & ~escaped) ^ carry_in_string;
    carry_in_string =
        static_cast<uint64_t>(static_cast<int64_t>(in_string) >> 63);
    for (uint64_t br = m.bracket & ~in_string; br != 0; br &= br - 1) {
      const int i = __builtin_ctzll(br);
      const char c = begin[off + i];
      if (c == '{' || c == '[') {
        if (depth == max_depth) return ObjectEndStatus::kOther;
        open[depth++] = c;
        continue;
      }
      if (depth == 0 || open[depth - 1] != (c == '}' ? '{' : '[')) {
        return ObjectEndStatus::kOther;
      }
      if (--depth == 0) {
        *size = off + static_cast<size_t>(i) + 1;
        return ObjectEndStatus::kFound;
      }
    }
  }
  return avail >= max_bytes ? ObjectEndStatus::kOther
                            : ObjectEndStatus::kNeedMore;
}

}  // namespace

SplitResult SplitTraceEvents(std::string_view text, bool after_element,
                             size_t max_consumed, const SplitLimits& limits,
                             std::vector<SplitEventSpan>* spans) {
  const char* data = text.data();
  const size_t size = text.size();
  const size_t max_event = std::max<size_t>(limits.max_event_bytes, 2);
  size_t consumed = 0;
  bool after = after_element;
  for (;;) {
    if (consumed >= max_consumed) return {consumed, SplitStop::kFull};
    const size_t element = consumed;
    size_t p = consumed;
    // Whitespace, then ',' after an element, then whitespace, then '{'.
    for (int part = after ? 0 : 1; part < 2; ++part) {
      while (p < size && IsSpace(data[p])) ++p;
      if (p - element >= max_event) return {consumed, SplitStop::kOther};
      if (p == size) return {consumed, SplitStop::kNeedMore};
      if (part == 0) {
        if (data[p] != ',') return {consumed, SplitStop::kOther};
        ++p;
      }
    }
    if (data[p] != '{') return {consumed, SplitStop::kOther};
    size_t object_size = 0;
    switch (FindObjectEnd(data + p, size - p, max_event - (p - element),
                          limits.max_depth, &object_size)) {
      case ObjectEndStatus::kFound:
        spans->push_back(
            {static_cast<uint32_t>(p), static_cast<uint32_t>(object_size)});
        consumed = p + object_size;
        after = true;
        break;
      case ObjectEndStatus::kNeedMore:
        return {consumed, SplitStop::kNeedMore};
      case ObjectEndStatus::kOther:
        return {consumed, SplitStop::kOther};
    }
  }
}

}  // namespace feedprof::kineto
