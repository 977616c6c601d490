#include "kineto/kineto_event_scanner.h"

#include <array>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kineto/json_byte_classes.h"
#include "kineto/json_number_grammar.h"
#include "kineto/plain_decimal.h"

namespace feedprof::kineto {
namespace {

// Longer strings and numbers are left to the tokenizer, which enforces its
// token limit on them.
constexpr size_t kMaxScannedToken = 64 * 1024;
// Deeper nesting inside one event is left to the tokenizer's depth limit.
constexpr int kMaxScannedDepth = 32;

// The end of the JSON number that starts at `p` (a '-' or a digit), or
// nullptr when the bytes there are not one number by the tokenizer's rule:
// the longest run of number characters [0-9+-.eE] must be exactly one
// number (so "1-2" and "1.e5" are errors, as ParseNumber finds them), and a
// run that reaches `e` may go on past the buffer.
const char* JsonNumberEnd(const char* p, const char* e) {
  const char* end = ScanJsonNumber(p, e).end;
  if (end == nullptr || end == e || kNumberChar[static_cast<uint8_t>(*end)]) {
    return nullptr;
  }
  return end;
}

// A cursor over the buffered bytes. Every method returns false to decline;
// the scan then stops and nothing it did matters.
class Scanner {
 public:
  Scanner(const char* begin, const char* end) : p_(begin), end_(end) {}

  const char* position() const { return p_; }

  // Skips whitespace; false when the buffer ends (more may follow).
  bool Space() {
    // Most calls find no whitespace or one space; indentation runs (a
    // newline and a few spaces) are skipped 16 bytes at a time.
    if (p_ < end_ && !IsJsonSpace(*p_)) return true;
    if (end_ - p_ >= 2 && !IsJsonSpace(p_[1])) {
      ++p_;
      return true;
    }
#if defined(__SSE2__)
    while (end_ - p_ >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      const __m128i space =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                    _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                       _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')),
                                    _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
      const unsigned other =
          ~static_cast<unsigned>(_mm_movemask_epi8(space)) & 0xFFFFu;
      if (other != 0) {
        p_ += __builtin_ctz(other);
        return true;
      }
      p_ += 16;
    }
#endif
    while (p_ < end_ && IsJsonSpace(*p_)) ++p_;
    return p_ < end_;
  }
  char Peek() const { return *p_; }  // after a true Space()
  void Skip() { ++p_; }

  // A string without escapes, p_ at its opening quote.
  bool String(std::string_view* out) {
    const char* body = p_ + 1;
    const char* q = body;
    // The first quote or backslash, 16 bytes at a time while 16 are left.
#if defined(__SSE2__)
    while (end_ - q >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
      const unsigned stop = static_cast<unsigned>(_mm_movemask_epi8(
          _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                       _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')))));
      if (stop != 0) {
        q += __builtin_ctz(stop);
        break;
      }
      q += 16;
    }
#endif
    while (q < end_ && *q != '"' && *q != '\\') ++q;
    if (q == end_ || *q == '\\') return false;
    if (static_cast<size_t>(q - body) > kMaxScannedToken) return false;
    *out = std::string_view(body, static_cast<size_t>(q - body));
    p_ = q + 1;
    return true;
  }

  // A number of the plain form (plain_decimal.h), p_ at its first byte;
  // false, with p_ left there, for any other value (and, with
  // `whole_only`, for one with a fraction).
  bool PlainNumber(bool whole_only, PlainDecimal* out) {
    const char* after = ReadPlainDecimal(p_, end_, out);
    if (after == nullptr || (whole_only && out->has_fraction)) return false;
    p_ = after;
    return true;
  }

  // A scalar value, p_ at its first byte: the token it is and its text (a
  // literal has none).
  bool Scalar(JsonToken* kind, std::string_view* text) {
    const char c = *p_;
    if (c == '"') {
      *kind = JsonToken::kString;
      return String(text);
    }
    if (c == '-' || IsJsonDigit(c)) {
      const char* number_end = JsonNumberEnd(p_, end_);
      if (number_end == nullptr ||
          static_cast<size_t>(number_end - p_) > kMaxScannedToken) {
        return false;
      }
      *kind = JsonToken::kNumber;
      *text = std::string_view(p_, static_cast<size_t>(number_end - p_));
      p_ = number_end;
      return true;
    }
    *text = std::string_view();
    if (c == 't') return Literal("true", JsonToken::kTrue, kind);
    if (c == 'f') return Literal("false", JsonToken::kFalse, kind);
    if (c == 'n') return Literal("null", JsonToken::kNull, kind);
    return false;
  }

  // An object or array, p_ at its bracket, checked as SkipValue checks
  // one: brackets that match, strings skipped (an escape skips the byte
  // after the backslash).
  bool SkipContainer() {
    char open[kMaxScannedDepth];
    int depth = 0;
    for (;;) {
      while (p_ < end_ && !kStructural[static_cast<uint8_t>(*p_)]) ++p_;
      if (p_ == end_) return false;
      const char c = *p_++;
      if (c == '"') {
        for (;;) {
          const auto* quote =
              static_cast<const char*>(std::memchr(p_, '"', end_ - p_));
          if (quote == nullptr) return false;
          const auto* backslash =
              static_cast<const char*>(std::memchr(p_, '\\', quote - p_));
          if (backslash == nullptr) {
            p_ = quote + 1;
            break;
          }
          p_ = backslash + 2;
          if (p_ >= end_) return false;
        }
        continue;
      }
      if (c == '{' || c == '[') {
        if (depth == kMaxScannedDepth) return false;
        open[depth++] = c;
        continue;
      }
      // '}' or ']'
      if (depth == 0 || open[depth - 1] != (c == '}' ? '{' : '[')) {
        return false;
      }
      if (--depth == 0) return true;
    }
  }

  // Any value whose content is not needed.
  bool SkipValue() {
    if (*p_ == '{' || *p_ == '[') return SkipContainer();
    JsonToken kind;
    std::string_view text;
    return Scalar(&kind, &text);
  }

  // After a value inside an object or array: true with `*more` when a
  // comma follows (and a key or value after it), false to decline on
  // anything but the comma or the closing `close`.
  bool CommaOrEnd(char close, bool* more) {
    if (!Space()) return false;
    if (*p_ == ',') {
      ++p_;
      *more = true;
      return Space();
    }
    if (*p_ != close) return false;
    ++p_;
    *more = false;
    return true;
  }

  // A key and its colon, p_ at the key's quote; leaves p_ at the value.
  bool Key(std::string_view* key) {
    if (*p_ != '"' || !String(key) || !Space() || *p_ != ':') return false;
    ++p_;
    return Space();
  }

 private:
  bool Literal(std::string_view word, JsonToken token, JsonToken* kind) {
    if (static_cast<size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return false;
    }
    p_ += word.size();
    *kind = token;
    return true;
  }

  const char* p_;
  const char* end_;
};

// "grid": [x, y, z], p_ at the value.
bool ScanDim3(Scanner& s, uint32_t out[3]) {
  if (s.Peek() != '[') return s.SkipValue();
  s.Skip();
  if (!s.Space()) return false;
  if (s.Peek() == ']') {
    s.Skip();
    return true;
  }
  for (int i = 0;; ++i) {
    if (s.Peek() == '{' || s.Peek() == '[') {
      if (!s.SkipContainer()) return false;
    } else {
      JsonToken kind;
      std::string_view text;
      if (!s.Scalar(&kind, &text)) return false;
      ApplyDim3Element(kind, text, i, out);
    }
    bool more = false;
    if (!s.CommaOrEnd(']', &more)) return false;
    if (!more) return true;
  }
}

// A whole number at p_, read in one pass into what ParseInteger makes of
// its text; false, with p_ left there, where the value is not a plain
// number without a fraction (the caller reads it the general way).
bool PlainInteger(Scanner& s, int64_t* value) {
  PlainDecimal number;
  if (!s.PlainNumber(/*whole_only=*/true, &number)) return false;
  *value = static_cast<int64_t>(number.integer);
  return true;
}

// "args": {...}, p_ at the value.
bool ScanArgs(Scanner& s, KinetoEvent* event) {
  if (s.Peek() != '{') return s.SkipValue();
  s.Skip();
  if (!s.Space()) return false;
  if (s.Peek() == '}') {
    s.Skip();
    return true;
  }
  for (;;) {
    std::string_view key;
    if (!s.Key(&key)) return false;
    const ArgKey arg = ArgKeyOf(key);
    bool ok = true;
    if (arg == ArgKey::kGrid) {
      ok = ScanDim3(s, event->grid);
    } else if (arg == ArgKey::kBlock) {
      ok = ScanDim3(s, event->block);
    } else if (arg == ArgKey::kOther || s.Peek() == '{' || s.Peek() == '[') {
      ok = s.SkipValue();
    } else if (OptionalInt* field = IntArgField(arg, event);
               field != nullptr && PlainInteger(s, &field->value)) {
      field->present = true;
    } else {
      JsonToken kind;
      std::string_view text;
      ok = s.Scalar(&kind, &text);
      if (ok) ApplyArg(arg, kind, text, event);
    }
    bool more = false;
    if (!ok || !s.CommaOrEnd('}', &more)) return false;
    if (!more) return true;
  }
}

// The ts, dur, pid and tid fields where their value is a plain number
// (plain_decimal.h), read as Apply* would read its text; false, with p_
// left at the value, for any other field or value.
bool ScanPlainField(Scanner& s, EventKey field, KinetoEvent* event) {
  switch (field) {
    case EventKey::kTs:
    case EventKey::kDur: {
      PlainDecimal number;
      if (!s.PlainNumber(/*whole_only=*/false, &number)) return false;
      if (field == EventKey::kTs) {
        event->has_ts = PlainDecimalMicrosToNanos(number, &event->ts_ns);
      } else {
        event->has_dur = PlainDecimalMicrosToNanos(number, &event->dur_ns);
      }
      return true;
    }
    case EventKey::kPid:
    case EventKey::kTid: {
      IdField* id = field == EventKey::kPid ? &event->pid : &event->tid;
      if (!PlainInteger(s, &id->number)) return false;
      id->present = true;
      id->is_string = false;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

size_t ScanBufferedKinetoEvent(std::string_view rest, KinetoEvent* event) {
  Scanner s(rest.data(), rest.data() + rest.size());
  event->Reset();
  if (!s.Space()) return 0;
  if (s.Peek() == '}') {
    s.Skip();
    return static_cast<size_t>(s.position() - rest.data());
  }
  for (;;) {
    std::string_view key;
    if (!s.Key(&key)) return 0;
    const EventKey field = EventKeyOf(key);
    bool ok = true;
    if (field == EventKey::kArgs) {
      ok = ScanArgs(s, event);
    } else if (field == EventKey::kOther || s.Peek() == '{' ||
               s.Peek() == '[') {
      ok = s.SkipValue();
    } else if (ScanPlainField(s, field, event)) {
      // Read in one pass.
    } else {
      JsonToken kind;
      std::string_view text;
      ok = s.Scalar(&kind, &text);
      if (ok) {
        switch (field) {
          case EventKey::kPh:
            ApplyPh(kind, text, event);
            break;
          case EventKey::kCat:
            ApplyString(kind, text, &event->cat);
            break;
          case EventKey::kName:
            ApplyString(kind, text, &event->name);
            break;
          case EventKey::kPid:
            ApplyId(kind, text, &event->pid);
            break;
          case EventKey::kTid:
            ApplyId(kind, text, &event->tid);
            break;
          case EventKey::kTs:
            ApplyTime(kind, text, &event->has_ts, &event->ts_ns);
            break;
          case EventKey::kDur:
            ApplyTime(kind, text, &event->has_dur, &event->dur_ns);
            break;
          default:
            break;
        }
      }
    }
    bool more = false;
    if (!ok || !s.CommaOrEnd('}', &more)) return 0;
    if (!more) return static_cast<size_t>(s.position() - rest.data());
  }
}

}  // namespace feedprof::kineto
