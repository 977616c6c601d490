#include "kineto/trace_event_splitter.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define FEEDPROF_SPLITTER_X86_DISPATCH 1
#endif

#include "kineto/json_byte_classes.h"

namespace feedprof::kineto {
namespace {

// Bit i of each mask: byte i of a 64-byte block is that character.
struct BlockMasks {
  uint64_t quote = 0;
  uint64_t backslash = 0;
  uint64_t bracket = 0;  // { } [ ]
};

// Classifies `count` whole 64-byte blocks from `p` into `out`.
using ClassifyBlocks = void (*)(const char* p, size_t count, BlockMasks* out);

void ClassifyBlocksPortable(const char* p, size_t count, BlockMasks* out) {
  for (size_t b = 0; b < count; ++b, p += 64) {
    BlockMasks& m = out[b];
    m = BlockMasks();
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
          static_cast<uint64_t>(static_cast<uint32_t>(
              _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(folded, open),
                                             _mm_cmpeq_epi8(folded, close)))))
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
  }
}

#if defined(FEEDPROF_SPLITTER_X86_DISPATCH)
// The 64 bits of two 32-byte compare results, `lo` the first.
__attribute__((target("avx2"))) inline uint64_t Mask64(__m256i lo, __m256i hi) {
  return static_cast<uint64_t>(
             static_cast<uint32_t>(_mm256_movemask_epi8(lo))) |
         (static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(hi)))
          << 32);
}

// The bytes of `v` that are `c`.
__attribute__((target("avx2"))) inline __m256i Equal(__m256i v, char c) {
  return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c));
}

__attribute__((target("avx2"))) void ClassifyBlocksAvx2(const char* p,
                                                        size_t count,
                                                        BlockMasks* out) {
  for (size_t b = 0; b < count; ++b, p += 64) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    // Brackets folded as in ClassifyBlocksPortable.
    const __m256i lo_folded = _mm256_or_si256(lo, _mm256_set1_epi8(0x20));
    const __m256i hi_folded = _mm256_or_si256(hi, _mm256_set1_epi8(0x20));
    out[b].quote = Mask64(Equal(lo, '"'), Equal(hi, '"'));
    out[b].backslash = Mask64(Equal(lo, '\\'), Equal(hi, '\\'));
    out[b].bracket =
        Mask64(_mm256_or_si256(Equal(lo_folded, '{'), Equal(lo_folded, '}')),
               _mm256_or_si256(Equal(hi_folded, '{'), Equal(hi_folded, '}')));
  }
}

__attribute__((target("avx512f,avx512bw"))) void ClassifyBlocksAvx512(
    const char* p, size_t count, BlockMasks* out) {
  for (size_t b = 0; b < count; ++b, p += 64) {
    const __m512i v = _mm512_loadu_si512(p);
    const __m512i folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    out[b].quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    out[b].backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    out[b].bracket = _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('{')) |
                     _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('}'));
  }
}
#endif

ClassifyBlocks ClassifierFor(ByteClassifier wanted) {
  if (!ByteClassifierAvailable(wanted)) wanted = ByteClassifier::kBest;
#if defined(FEEDPROF_SPLITTER_X86_DISPATCH)
  if (wanted == ByteClassifier::kBest) {
    wanted = ByteClassifierAvailable(ByteClassifier::kAvx512)
                 ? ByteClassifier::kAvx512
             : ByteClassifierAvailable(ByteClassifier::kAvx2)
                 ? ByteClassifier::kAvx2
                 : ByteClassifier::kPortable;
  }
  if (wanted == ByteClassifier::kAvx512) return ClassifyBlocksAvx512;
  if (wanted == ByteClassifier::kAvx2) return ClassifyBlocksAvx2;
#endif
  return ClassifyBlocksPortable;
}

// The masks of a text's 64-byte blocks (block b: bytes [64 b, 64 b + 64),
// the last one padded with bytes that are none of the classified ones),
// classified a window of blocks at a time, as they are asked for.
class TextBlocks {
 public:
  TextBlocks(std::string_view text, ClassifyBlocks classify)
      : text_(text), classify_(classify) {}

  const BlockMasks& Get(size_t block) {
    if (block - first_ >= count_) Classify(block);
    return window_[block - first_];
  }

 private:
  static constexpr size_t kWindowBlocks = 64;  // 4 KiB of text

  void Classify(size_t block) {
    first_ = block;
    const size_t whole_blocks = text_.size() / 64;
    const size_t whole = std::min(kWindowBlocks, whole_blocks - block);
    classify_(text_.data() + 64 * block, whole, window_);
    count_ = whole;
    const size_t tail = text_.size() % 64;
    if (whole < kWindowBlocks && tail != 0) {
      // NUL bytes are none of the classified ones.
      char padded[64] = {};
      std::memcpy(padded, text_.data() + 64 * whole_blocks, tail);
      classify_(padded, 1, &window_[count_++]);
    }
  }

  std::string_view text_;
  ClassifyBlocks classify_;
  BlockMasks window_[kWindowBlocks];
  size_t first_ = 0;
  size_t count_ = 0;
};

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

// Bits [from, to) of a 64-bit mask, 0 <= from <= to <= 64.
inline uint64_t BitsBetween(unsigned from, unsigned to) {
  const uint64_t below_to = to >= 64 ? ~uint64_t{0} : (uint64_t{1} << to) - 1;
  return below_to & ~((uint64_t{1} << from) - 1);
}

enum class ObjectEndStatus : uint8_t { kFound, kNeedMore, kOther };

// The object whose '{' is at `begin` in the text: its size through the
// matching '}'. Strings are delimited as the tokenizer delimits them: a
// quote ends a string unless an odd run of backslashes precedes it.
ObjectEndStatus FindObjectEnd(TextBlocks& blocks, std::string_view text,
                              size_t begin, size_t max_bytes, int max_depth,
                              size_t* size) {
  const size_t avail = text.size() - begin;
  const size_t end = begin + std::min(avail, max_bytes);
  char open[64];
  max_depth = std::min(max_depth, 64);
  int depth = 0;
  bool carry_escaped = false;  // byte 0 of the next block is escaped
  uint64_t carry_in_string = 0;
  for (size_t block = begin / 64; 64 * block < end; ++block) {
    const size_t block_start = 64 * block;
    // Only the object's bytes count: none before its '{', none past `end`.
    const uint64_t keep = BitsBetween(
        block_start < begin ? static_cast<unsigned>(begin - block_start) : 0,
        static_cast<unsigned>(std::min<size_t>(64, end - block_start)));
    const BlockMasks& m = blocks.Get(block);
    const uint64_t backslashes = m.backslash & keep;
    uint64_t escaped = carry_escaped ? 1 : 0;
    carry_escaped = false;
    for (uint64_t bs = backslashes; bs != 0; bs &= bs - 1) {
      const int i = __builtin_ctzll(bs);
      if ((escaped >> i) & 1) continue;  // an escaped backslash
      if (i == 63) {
        carry_escaped = true;
      } else {
        escaped |= uint64_t{1} << (i + 1);
      }
    }
    const uint64_t in_string =
        PrefixXor(m.quote & keep & ~escaped) ^ carry_in_string;
    carry_in_string =
        static_cast<uint64_t>(static_cast<int64_t>(in_string) >> 63);
    for (uint64_t br = m.bracket & keep & ~in_string; br != 0; br &= br - 1) {
      const int i = __builtin_ctzll(br);
      const char c = text[block_start + i];
      if (c == '{' || c == '[') {
        if (depth == max_depth) return ObjectEndStatus::kOther;
        open[depth++] = c;
        continue;
      }
      if (depth == 0 || open[depth - 1] != (c == '}' ? '{' : '[')) {
        return ObjectEndStatus::kOther;
      }
      if (--depth == 0) {
        *size = block_start + static_cast<size_t>(i) + 1 - begin;
        return ObjectEndStatus::kFound;
      }
    }
  }
  return avail >= max_bytes ? ObjectEndStatus::kOther
                            : ObjectEndStatus::kNeedMore;
}

}  // namespace

bool ByteClassifierAvailable(ByteClassifier classifier) {
  switch (classifier) {
    case ByteClassifier::kBest:
    case ByteClassifier::kPortable:
      return true;
#if defined(FEEDPROF_SPLITTER_X86_DISPATCH)
    case ByteClassifier::kAvx2:
      return __builtin_cpu_supports("avx2");
    case ByteClassifier::kAvx512:
      return __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw");
#else
    case ByteClassifier::kAvx2:
    case ByteClassifier::kAvx512:
      return false;
#endif
  }
  return false;
}

SplitResult SplitTraceEvents(std::string_view text, bool after_element,
                             size_t max_consumed, const SplitLimits& limits,
                             std::vector<SplitEventSpan>* spans) {
  const char* data = text.data();
  const size_t size = text.size();
  const size_t max_event = std::max<size_t>(limits.max_event_bytes, 2);
  TextBlocks blocks(text, ClassifierFor(limits.classifier));
  size_t consumed = 0;
  bool after = after_element;
  for (;;) {
    if (consumed >= max_consumed) return {consumed, SplitStop::kFull};
    const size_t element = consumed;
    size_t p = consumed;
    // Whitespace, then ',' after an element, then whitespace, then '{'.
    for (int part = after ? 0 : 1; part < 2; ++part) {
      while (p < size && IsJsonSpace(data[p])) ++p;
      if (p - element >= max_event) return {consumed, SplitStop::kOther};
      if (p == size) return {consumed, SplitStop::kNeedMore};
      if (part == 0) {
        if (data[p] != ',') return {consumed, SplitStop::kOther};
        ++p;
      }
    }
    if (data[p] != '{') return {consumed, SplitStop::kOther};
    size_t object_size = 0;
    switch (FindObjectEnd(blocks, text, p, max_event - (p - element),
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
