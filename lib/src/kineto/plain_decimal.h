// Reads a JSON number of the plain form Kineto writes (digits, a point and
// more digits: "1712195497620994.902", "48.043", "833546") and its value in
// one pass over its bytes.
//
// Why: the event scanner used to find a number's end byte by byte, then
// convert its text with MicrosToNanos or ParseInteger byte by byte again;
// with timestamps of 16 digits and more, numbers took a fifth of the CPU
// of reading a big trace.
// This reader takes eight digits at a time and keeps the value as it goes.
//
// It only takes what it can read exactly as the general path does (the
// tokenizer's number rule, then MicrosToNanos or ParseInteger): no sign, no
// exponent, no leading zero before a digit, at most 18 digits before the
// point, at most 64 after it, and a byte after the number within the text
// that cannot continue it. Anything else is left to the general path.
#ifndef FEEDPROF_LIB_SRC_KINETO_PLAIN_DECIMAL_H_
#define FEEDPROF_LIB_SRC_KINETO_PLAIN_DECIMAL_H_

#include <bit>
#include <cstdint>
#include <cstring>

#include "kineto/json_byte_classes.h"
#include "kineto/kineto_time.h"

namespace feedprof::kineto {

struct PlainDecimal {
  uint64_t integer = 0;      // the digits before the point
  uint32_t thousandths = 0;  // the first three digits after it, as 0-999
  bool round_up = false;     // the fourth digit after the point is 5 or more
  bool has_fraction = false;
};

namespace plain_decimal_internal {

// Whether the eight bytes of `word` (as loaded from memory, little-endian)
// are all decimal digits.
inline bool EightDigits(uint64_t word) {
  return ((word & 0xF0F0F0F0F0F0F0F0ull) |
          (((word + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
         0x3333333333333333ull;
}

// The value of eight digit bytes, the first one the most significant.
inline uint64_t EightDigitsValue(uint64_t word) {
  word = ((word & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
  word = ((word & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
  return ((word & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

}  // namespace plain_decimal_internal

// The most digits before the point: any 18 digits fit in int64.
inline constexpr int kPlainDecimalMaxIntegerDigits = 18;
inline constexpr int kPlainDecimalMaxFractionDigits = 64;

// Reads the number that starts at `p` (`p < end`). Returns the byte after
// it and fills `out`, or nullptr when the number is not of the plain form
// or may go on past `end`.
inline const char* ReadPlainDecimal(const char* p, const char* end,
                                    PlainDecimal* out) {
  using plain_decimal_internal::EightDigits;
  using plain_decimal_internal::EightDigitsValue;
  const char* q = p;
  uint64_t value = 0;
  if (*q == '0') {
    ++q;
  } else if (IsJsonDigit(*q)) {
    if constexpr (std::endian::native == std::endian::little) {
      while (end - q >= 8 && q - p + 8 <= kPlainDecimalMaxIntegerDigits) {
        uint64_t word;
        std::memcpy(&word, q, 8);
        if (!EightDigits(word)) break;
        value = value * 100000000 + EightDigitsValue(word);
        q += 8;
      }
    }
    for (; q < end && IsJsonDigit(*q); ++q) {
      if (q - p == kPlainDecimalMaxIntegerDigits) return nullptr;
      value = value * 10 + static_cast<uint64_t>(*q - '0');
    }
  } else {
    return nullptr;
  }
  out->integer = value;
  out->thousandths = 0;
  out->round_up = false;
  out->has_fraction = false;
  if (q < end && *q == '.') {
    ++q;
    const char* digits = q;
    uint32_t thousandths = 0;
    for (; q < end && IsJsonDigit(*q); ++q) {
      const auto n = q - digits;
      if (n < 3) {
        thousandths = thousandths * 10 + static_cast<uint32_t>(*q - '0');
      } else if (n == 3) {
        out->round_up = *q >= '5';
      } else if (n == kPlainDecimalMaxFractionDigits) {
        return nullptr;
      }
    }
    const auto n = q - digits;
    if (n == 0) return nullptr;
    for (auto i = n; i < 3; ++i) thousandths *= 10;
    out->thousandths = thousandths;
    out->has_fraction = true;
  }
  if (q == end || kNumberChar[static_cast<uint8_t>(*q)]) return nullptr;
  return q;
}

// What MicrosToNanos gives for the number's text: false, with `*ns` left
// as it was, where the value does not fit.
inline bool PlainDecimalMicrosToNanos(const PlainDecimal& d, int64_t* ns) {
  if (d.integer > kMaxMicros) return false;
  *ns = static_cast<int64_t>(d.integer * 1000 + d.thousandths +
                             (d.round_up ? 1 : 0));
  return true;
}

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_PLAIN_DECIMAL_H_
