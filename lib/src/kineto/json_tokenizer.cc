#include "kineto/json_tokenizer.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "kineto/json_byte_classes.h"
#include "kineto/json_number_grammar.h"

namespace feedprof::kineto {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string DescribeByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return absl::StrCat("'", std::string(1, c), "'");
  return absl::StrCat("byte 0x", absl::Hex(u, absl::kZeroPad2));
}

}  // namespace

JsonTokenizer::JsonTokenizer(ByteSource* source, Limits limits,
                             uint64_t start_offset)
    : source_(source), limits_(limits), base_(start_offset) {
  cap_ = limits_.initial_buffer_bytes < 64 ? 64 : limits_.initial_buffer_bytes;
  buf_ = std::make_unique<char[]>(cap_);
  stack_.reserve(limits_.max_depth);
}

bool JsonTokenizer::Fill(size_t keep_from) {
  if (failed_ || source_done_) return false;
  if (keep_from > 0) {
    const size_t keep = end_ - keep_from;
    std::memmove(buf_.get(), buf_.get() + keep_from, keep);
    base_ += keep_from;
    pos_ -= keep_from;
    end_ = keep;
  }
  if (end_ == cap_) {
    // One token fills the whole buffer: grow, up to the token limit.
    const size_t limit = limits_.max_token_bytes + 64;
    if (cap_ >= limit) {
      FailAt(base_ + pos_, absl::StrCat("a string or number longer than ",
                                        limits_.max_token_bytes,
                                        " bytes (no trace event holds one)"));
      return false;
    }
    const size_t new_cap = cap_ * 2 > limit ? limit : cap_ * 2;
    auto bigger = std::make_unique<char[]>(new_cap);
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ = new_cap;
  }
  const size_t n = source_->Read(buf_.get() + end_, cap_ - end_);
  if (n == 0) {
    source_done_ = true;
    return false;
  }
  end_ += n;
  return true;
}

bool JsonTokenizer::Ensure(size_t n) {
  while (end_ - pos_ < n) {
    if (!Fill(pos_)) return false;
  }
  return true;
}

bool JsonTokenizer::SkipSpace() {
  for (;;) {
    while (pos_ < end_) {
      const char c = buf_[pos_];
      if (!IsJsonSpace(c)) return true;
      ++pos_;
    }
    if (!Fill(pos_)) return false;
  }
}

JsonToken JsonTokenizer::FailAt(uint64_t offset, std::string message) {
  if (!failed_) {
    failed_ = true;
    error_offset_ = offset;
    error_ = absl::StrCat("at byte ", offset, ": ", message);
  }
  return JsonToken::kError;
}

JsonToken JsonTokenizer::FailTruncated() {
  if (!failed_) {
    failed_ = true;
    truncated_ = true;
    error_offset_ = base_ + end_;
    error_ = absl::StrCat("JSON ends early at byte ", error_offset_);
  }
  return JsonToken::kError;
}

JsonToken JsonTokenizer::FailExpected(const char* what) {
  const std::string found =
      pos_ < end_ ? DescribeByte(buf_[pos_]) : std::string("end of input");
  return FailAt(base_ + pos_,
                absl::StrCat("expected ", what, ", found ", found));
}

JsonToken JsonTokenizer::Next() {
  if (failed_) return JsonToken::kError;
  for (;;) {
    // Hot loop: work on locals, write pos_ back before anything that may
    // refill the buffer.
    const char* buf = buf_.get();
    size_t pos = pos_;
    const size_t end = end_;
    while (pos < end && IsJsonSpace(buf[pos])) ++pos;
    pos_ = pos;
    if (pos == end) {
      if (!SkipSpace()) {
        if (failed_) return JsonToken::kError;
        if (state_ == State::kDone) return JsonToken::kEnd;
        if (base_ + end_ == 0) {
          return FailAt(0, "the input is empty; expected a JSON value");
        }
        return FailTruncated();
      }
      continue;
    }
    const char c = buf[pos];
    token_offset_ = base_ + pos;
    switch (state_) {
      case State::kCommaOrEnd:
        if (c == ',') {
          pos_ = pos + 1;
          state_ = InObject() ? State::kKey : State::kValue;
          continue;
        }
        if (c == (InObject() ? '}' : ']')) return CloseContainer();
        return FailExpected(InObject() ? "',' or '}'" : "',' or ']'");
      case State::kColon:
        if (c != ':') return FailExpected("':' after the key");
        pos_ = pos + 1;
        state_ = State::kValue;
        continue;
      case State::kKeyOrEnd:
        if (c == '}') return CloseContainer();
        [[fallthrough]];
      case State::kKey:
        if (c != '"') {
          return FailExpected(state_ == State::kKeyOrEnd ? "a key string or '}'"
                                                         : "a key string");
        }
        if (!ParseString()) return JsonToken::kError;
        state_ = State::kColon;
        return JsonToken::kKey;
      case State::kValueOrEnd:
        if (c == ']') return CloseContainer();
        [[fallthrough]];
      case State::kValue:
        return ParseValue(c);
      case State::kDone:
        return FailExpected("the end of the input after the top-level value");
    }
  }
}

void JsonTokenizer::ConsumeRestOfObject(size_t n) {
  pos_ += n;
  token_offset_ = base_ + pos_ - 1;  // the closing '}'
  stack_.pop_back();
  AfterValue();
}

void JsonTokenizer::ConsumeArrayElements(size_t n) {
  pos_ += n;
  token_offset_ = base_ + pos_ - 1;  // the last element's closing '}'
  state_ = State::kCommaOrEnd;
}

JsonToken JsonTokenizer::OpenContainer(bool object) {
  if (stack_.size() >= limits_.max_depth) {
    return FailAt(base_ + pos_, absl::StrCat("nesting deeper than ",
                                             limits_.max_depth, " levels"));
  }
  stack_.push_back(object ? 1 : 0);
  ++pos_;
  state_ = object ? State::kKeyOrEnd : State::kValueOrEnd;
  return object ? JsonToken::kObjectBegin : JsonToken::kArrayBegin;
}

JsonToken JsonTokenizer::CloseContainer() {
  const bool object = stack_.back() != 0;
  stack_.pop_back();
  ++pos_;
  AfterValue();
  return object ? JsonToken::kObjectEnd : JsonToken::kArrayEnd;
}

JsonToken JsonTokenizer::ParseValue(char c) {
  switch (c) {
    case '{':
      return OpenContainer(true);
    case '[':
      return OpenContainer(false);
    case '"':
      if (!ParseString()) return JsonToken::kError;
      AfterValue();
      return JsonToken::kString;
    case 't':
      return ParseLiteral("true", JsonToken::kTrue);
    case 'f':
      return ParseLiteral("false", JsonToken::kFalse);
    case 'n':
      return ParseLiteral("null", JsonToken::kNull);
    default:
      if (c == '-' || IsJsonDigit(c)) {
        if (!ParseNumber()) return JsonToken::kError;
        AfterValue();
        return JsonToken::kNumber;
      }
      return FailExpected("a value");
  }
}

JsonToken JsonTokenizer::ParseLiteral(std::string_view word, JsonToken token) {
  if (!Ensure(word.size())) {
    // Fewer bytes than the word: truncated if what is there matches.
    if (failed_) return JsonToken::kError;
    if (std::memcmp(buf_.get() + pos_, word.data(), end_ - pos_) == 0) {
      return FailTruncated();
    }
    return FailExpected("a value");
  }
  if (std::memcmp(buf_.get() + pos_, word.data(), word.size()) != 0) {
    return FailExpected("a value");
  }
  pos_ += word.size();
  AfterValue();
  return token;
}

bool JsonTokenizer::ParseString() {
  // Fast path for short strings (most keys and values): a plain byte loop
  // beats memchr's call overhead.
  {
    const char* buf = buf_.get();
    const size_t limit = std::min(end_, pos_ + 1 + 24);
    size_t i = pos_ + 1;
    while (i < limit && buf[i] != '"' && buf[i] != '\\') ++i;
    if (i < limit && buf[i] == '"') {
      text_ = std::string_view(buf + pos_ + 1, i - pos_ - 1);
      pos_ = i + 1;
      return true;
    }
  }
  // pos_ is at the opening quote; `scan` is where to look for the closing
  // one, relative to pos_ so that it survives refills.
  size_t scan = 1;
  for (;;) {
    const char* from = buf_.get() + pos_ + scan;
    const size_t avail = end_ - pos_ - scan;
    const auto* quote = static_cast<const char*>(std::memchr(from, '"', avail));
    if (quote == nullptr) {
      scan = end_ - pos_;
      if (!Fill(pos_)) {
        if (!failed_) FailTruncated();
        return false;
      }
      continue;
    }
    const size_t q = static_cast<size_t>(quote - buf_.get());
    size_t k = q;
    while (k > pos_ + 1 && buf_[k - 1] == '\\') --k;
    if ((q - k) % 2 == 1) {  // an escaped quote
      scan = q + 1 - pos_;
      continue;
    }
    const size_t body = pos_ + 1;
    const size_t len = q - body;
    if (len > limits_.max_token_bytes) {
      FailAt(base_ + pos_, absl::StrCat("a string longer than ",
                                        limits_.max_token_bytes, " bytes"));
      return false;
    }
    if (std::memchr(buf_.get() + body, '\\', len) == nullptr) {
      text_ = std::string_view(buf_.get() + body, len);
    } else {
      if (!Unescape(body, q)) return false;
      text_ = scratch_;
    }
    pos_ = q + 1;
    return true;
  }
}

bool JsonTokenizer::Unescape(size_t begin, size_t end) {
  scratch_.clear();
  size_t i = begin;
  auto read_hex4 = [&](size_t at, uint32_t* out) {
    if (at + 4 > end) return false;
    uint32_t v = 0;
    for (size_t j = 0; j < 4; ++j) {
      const int h = HexValue(buf_[at + j]);
      if (h < 0) return false;
      v = (v << 4) | static_cast<uint32_t>(h);
    }
    *out = v;
    return true;
  };
  while (i < end) {
    const auto* bs =
        static_cast<const char*>(std::memchr(buf_.get() + i, '\\', end - i));
    const size_t stop =
        bs == nullptr ? end : static_cast<size_t>(bs - buf_.get());
    scratch_.append(buf_.get() + i, stop - i);
    if (stop == end) break;
    // buf_[stop] == '\\' and, as the closing quote was found after an even
    // run of backslashes, stop + 1 < end.
    const char e = buf_[stop + 1];
    i = stop + 2;
    switch (e) {
      case '"':
        scratch_.push_back('"');
        break;
      case '\\':
        scratch_.push_back('\\');
        break;
      case '/':
        scratch_.push_back('/');
        break;
      case 'b':
        scratch_.push_back('\b');
        break;
      case 'f':
        scratch_.push_back('\f');
        break;
      case 'n':
        scratch_.push_back('\n');
        break;
      case 'r':
        scratch_.push_back('\r');
        break;
      case 't':
        scratch_.push_back('\t');
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!read_hex4(i, &cp)) {
          FailAt(base_ + stop, "expected four hex digits after \\u");
          return false;
        }
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t low = 0;
          if (i + 6 <= end && buf_[i] == '\\' && buf_[i + 1] == 'u' &&
              read_hex4(i + 2, &low) && low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          } else {
            cp = 0xFFFD;  // a lone high surrogate
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          cp = 0xFFFD;  // a lone low surrogate
        }
        common::AppendUtf8(cp, &scratch_);
        break;
      }
      default:
        FailAt(base_ + stop, absl::StrCat("invalid escape \\",
                                          std::string(1, e), " in a string"));
        return false;
    }
    if (scratch_.size() > limits_.max_token_bytes) {
      FailAt(base_ + begin, "a string longer than the token limit");
      return false;
    }
  }
  return true;
}

bool JsonTokenizer::ParseNumber() {
  size_t scan = 0;
  bool at_end = false;
  for (;;) {
    while (pos_ + scan < end_ &&
           kNumberChar[static_cast<uint8_t>(buf_[pos_ + scan])]) {
      ++scan;
    }
    if (pos_ + scan < end_) break;
    if (!Fill(pos_)) {
      if (failed_) return false;
      at_end = true;  // a number at the very end of the input
      break;
    }
  }
  const char* start = buf_.get() + pos_;
  const char* e = start + scan;
  const JsonNumberScan number = ScanJsonNumber(start, e);
  const char* p = number.stop;
  auto bad = [&](const char* what) {
    if (at_end && p == e) {  // "-", "1.", "1e" cut off by the end
      FailTruncated();
      return false;
    }
    FailAt(base_ + pos_ + static_cast<size_t>(p - start),
           absl::StrCat("malformed number: expected ", what));
    return false;
  };
  if (number.end == nullptr) return bad(number.expected);
  if (p != e) return bad("the end of the number");
  if (scan > limits_.max_token_bytes) {
    FailAt(base_ + pos_, "a number longer than the token limit");
    return false;
  }
  text_ = std::string_view(start, scan);
  pos_ += scan;
  return true;
}

bool JsonTokenizer::SkipValue() {
  if (failed_) return false;
  if (state_ == State::kColon) {
    if (!SkipSpace()) {
      if (!failed_) FailTruncated();
      return false;
    }
    if (buf_[pos_] != ':') {
      FailExpected("':' after the key");
      return false;
    }
    ++pos_;
    state_ = State::kValue;
  }
  const JsonToken t = Next();
  if (t == JsonToken::kObjectBegin || t == JsonToken::kArrayBegin) {
    return FastSkip(stack_.size() - 1);
  }
  return t != JsonToken::kError;
}

bool JsonTokenizer::SkipRestOfContainer() {
  if (failed_ || stack_.empty()) return false;
  return FastSkip(stack_.size() - 1);
}

bool JsonTokenizer::FastSkip(size_t target_depth) {
  for (;;) {
    while (pos_ < end_ && !kStructural[static_cast<uint8_t>(buf_[pos_])]) {
      ++pos_;
    }
    if (pos_ == end_) {
      if (!Fill(pos_)) {
        if (!failed_) FailTruncated();
        return false;
      }
      continue;
    }
    const char c = buf_[pos_];
    if (c == '"') {
      ++pos_;
      for (;;) {
        if (pos_ == end_ && !Fill(pos_)) {
          if (!failed_) FailTruncated();
          return false;
        }
        const char* from = buf_.get() + pos_;
        const size_t avail = end_ - pos_;
        const auto* quote =
            static_cast<const char*>(std::memchr(from, '"', avail));
        const size_t limit =
            quote == nullptr ? avail : static_cast<size_t>(quote - from);
        const auto* bs =
            static_cast<const char*>(std::memchr(from, '\\', limit));
        if (bs != nullptr) {
          pos_ = static_cast<size_t>(bs - buf_.get());
          if (!Ensure(2)) {
            if (!failed_) FailTruncated();
            return false;
          }
          pos_ += 2;
          continue;
        }
        if (quote != nullptr) {
          pos_ = static_cast<size_t>(quote - buf_.get()) + 1;
          break;
        }
        pos_ = end_;
      }
      continue;
    }
    if (c == '{' || c == '[') {
      if (stack_.size() >= limits_.max_depth) {
        FailAt(base_ + pos_, absl::StrCat("nesting deeper than ",
                                          limits_.max_depth, " levels"));
        return false;
      }
      stack_.push_back(c == '{' ? 1 : 0);
      ++pos_;
      continue;
    }
    // '}' or ']'
    const bool object = c == '}';
    if (stack_.empty() || (stack_.back() != 0) != object) {
      FailExpected(stack_.empty() || stack_.back() != 0 ? "'}'" : "']'");
      return false;
    }
    stack_.pop_back();
    ++pos_;
    if (stack_.size() == target_depth) {
      AfterValue();
      return true;
    }
  }
}

}  // namespace feedprof::kineto
