#include "kineto/kineto_time.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "kineto/json_byte_classes.h"

namespace feedprof::kineto {
namespace {

bool ViaLongDouble(std::string_view text, long double scale, int64_t* out) {
  if (text.size() > 64) return false;
  char buf[72];
  text.copy(buf, text.size());
  buf[text.size()] = '\0';
  char* end = nullptr;
  const long double v = std::strtold(buf, &end) * scale;
  if (end != buf + text.size() || !std::isfinite(v) ||
      std::fabs(v) >= 9.2e18L) {
    return false;
  }
  *out = static_cast<int64_t>(std::llroundl(v));
  return true;
}

}  // namespace

bool MicrosToNanos(std::string_view text, int64_t* ns) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++i;
  if (i == text.size() || !IsJsonDigit(text[i])) return false;
  uint64_t micros = 0;
  for (; i < text.size() && IsJsonDigit(text[i]); ++i) {
    micros = micros * 10 + static_cast<uint64_t>(text[i] - '0');
    if (micros > kMaxMicros) return false;
  }
  uint64_t frac_ns = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int digits = 0;
    bool round_up = false;
    for (; i < text.size() && IsJsonDigit(text[i]); ++i, ++digits) {
      if (digits < 3) {
        frac_ns = frac_ns * 10 + static_cast<uint64_t>(text[i] - '0');
      } else if (digits == 3) {
        round_up = text[i] >= '5';
      }
    }
    for (; digits < 3; ++digits) frac_ns *= 10;
    if (round_up) ++frac_ns;
  }
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return false;
    return ViaLongDouble(text, 1000.0L, ns);
  }
  const auto total = static_cast<int64_t>(micros * 1000 + frac_ns);
  *ns = negative ? -total : total;
  return true;
}

bool ParseInteger(std::string_view text, int64_t* value) {
  int64_t v = 0;
  const auto [ptr, ec] =
      std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && ptr == text.data() + text.size()) {
    *value = v;
    return true;
  }
  if (ec == std::errc::result_out_of_range) {
    // Unsigned 64-bit ids (rare): keep the bit pattern.
    uint64_t u = 0;
    const auto [uptr, uec] =
        std::from_chars(text.data(), text.data() + text.size(), u);
    if (uec == std::errc() && uptr == text.data() + text.size()) {
      *value = static_cast<int64_t>(u);
      return true;
    }
    return false;
  }
  return ViaLongDouble(text, 1.0L, value);
}

bool FirstIntegerIn(std::string_view text, int64_t* value) {
  size_t i = 0;
  while (i < text.size() && !IsJsonDigit(text[i])) ++i;
  if (i == text.size()) return false;
  const bool negative = i > 0 && text[i - 1] == '-';
  int64_t v = 0;
  for (; i < text.size() && IsJsonDigit(text[i]); ++i) {
    if (v > std::numeric_limits<int64_t>::max() / 10 - 10) return false;
    v = v * 10 + (text[i] - '0');
  }
  *value = negative ? -v : v;
  return true;
}

}  // namespace feedprof::kineto
