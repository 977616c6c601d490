#include "tests/fuzz/strict_json_check.h"

#include <cstdint>

#include "common/utf8.h"

namespace feedprof::fuzz {
namespace {

// Deeper than any report or dump line nests; bounds the recursion.
constexpr int kMaxDepth = 512;

class StrictJsonChecker {
 public:
  explicit StrictJsonChecker(std::string_view text) : text_(text) {}

  bool Check() {
    SkipBlanks();
    if (!Value(0)) return false;
    SkipBlanks();
    return pos_ == text_.size();
  }
  size_t pos() const { return pos_; }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool Consume(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }
  void SkipBlanks() {
    while (!AtEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                        text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsHex(char c) {
    return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  bool Value(int depth) {
    if (depth > kMaxDepth) return false;
    switch (Peek()) {
      case '{':
        return Object(depth);
      case '[':
        return Array(depth);
      case '"':
        return String();
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number();
    }
  }

  bool Object(int depth) {
    ++pos_;  // '{'
    SkipBlanks();
    if (Consume('}')) return true;
    for (;;) {
      SkipBlanks();
      if (Peek() != '"' || !String()) return false;
      SkipBlanks();
      if (!Consume(':')) return false;
      SkipBlanks();
      if (!Value(depth + 1)) return false;
      SkipBlanks();
      if (Consume('}')) return true;
      if (!Consume(',')) return false;
    }
  }

  bool Array(int depth) {
    ++pos_;  // '['
    SkipBlanks();
    if (Consume(']')) return true;
    for (;;) {
      SkipBlanks();
      if (!Value(depth + 1)) return false;
      SkipBlanks();
      if (Consume(']')) return true;
      if (!Consume(',')) return false;
    }
  }

  bool String() {
    ++pos_;  // opening quote
    while (!AtEnd()) {
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        ++pos_;
        const char e = Peek();
        if (e == 'u') {
          for (int i = 1; i <= 4; ++i) {
            if (pos_ + i >= text_.size() || !IsHex(text_[pos_ + i])) {
              return false;
            }
          }
          pos_ += 5;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' ||
                   e == 'n' || e == 'r' || e == 't') {
          ++pos_;
        } else {
          return false;
        }
        continue;
      }
      const size_t n = common::Utf8SequenceLength(text_.substr(pos_));
      if (n == 0) return false;
      pos_ += n;
    }
    return false;
  }

  bool Number() {
    Consume('-');
    if (Consume('0')) {
      if (IsDigit(Peek())) return false;  // leading zero
    } else {
      if (!IsDigit(Peek())) return false;
      while (IsDigit(Peek())) ++pos_;
    }
    if (Consume('.')) {
      if (!IsDigit(Peek())) return false;
      while (IsDigit(Peek())) ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!IsDigit(Peek())) return false;
      while (IsDigit(Peek())) ++pos_;
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

bool IsStrictJson(std::string_view text, size_t* error_offset) {
  StrictJsonChecker checker(text);
  const bool ok = checker.Check();
  if (!ok && error_offset != nullptr) *error_offset = checker.pos();
  return ok;
}

}  // namespace feedprof::fuzz
