// A streaming pull tokenizer for JSON text of any size.
//
// Why not a DOM parser: a day of PyTorch profiling is gigabytes of JSON, and
// a DOM of it costs ten times that in memory. This tokenizer reads from a
// ByteSource through one refillable buffer and hands out one token at a time;
// strings without escapes are returned as views into the buffer (no copy), so
// steady-state tokenizing allocates nothing. It checks the JSON grammar as it
// goes (commas, colons, matching brackets, number syntax, escapes) and reports
// the first error with its byte offset and what was expected there; when the
// input stops early it says so apart from other errors, so a reader can keep
// what it read before a truncated end. `SkipValue` jumps over values the
// caller does not need at memchr speed, checking only bracket structure
// inside them.
//
// Limits keep memory bounded on hostile input: a maximum token length (the
// buffer never grows past it) and a maximum nesting depth.
#ifndef FEEDPROF_LIB_SRC_KINETO_JSON_TOKENIZER_H_
#define FEEDPROF_LIB_SRC_KINETO_JSON_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kineto/byte_source.h"

namespace feedprof::kineto {

enum class JsonToken : uint8_t {
  kObjectBegin,
  kObjectEnd,
  kArrayBegin,
  kArrayEnd,
  kKey,     // text(): the decoded key
  kString,  // text(): the decoded string
  kNumber,  // text(): the number as written (validated JSON syntax)
  kTrue,
  kFalse,
  kNull,
  kEnd,    // the document ended cleanly
  kError,  // see error(); every later call returns kError too
};

class JsonTokenizer {
 public:
  struct Limits {
    size_t max_token_bytes = 16 << 20;  // longest string or number
    size_t max_depth = 512;             // deepest nesting
    size_t initial_buffer_bytes = 1 << 20;
  };

  explicit JsonTokenizer(ByteSource* source) : JsonTokenizer(source, {}) {}
  // `start_offset` is where the source's first byte lies in a larger text
  // (offsets and error messages count from there): a piece of a document
  // cut out by a caller is tokenized with the offsets of the whole.
  JsonTokenizer(ByteSource* source, Limits limits, uint64_t start_offset = 0);

  // The next token. After kKey, the next call yields that key's value.
  JsonToken Next();

  // Skips the next value entirely (after a kKey: that key's value; in an
  // array: the next element). Returns false on error (see error()).
  bool SkipValue();
  // Skips the rest of the innermost open object or array, including its
  // closing bracket. Returns false on error.
  bool SkipRestOfContainer();

  // For a caller's fast path over whole values: the bytes already in the
  // buffer from the current position on (none are read from the source).
  // Valid until the next call that consumes input.
  std::string_view BufferedText() const {
    return std::string_view(buf_.get() + pos_, end_ - pos_);
  }
  // Consumes the first `n` bytes of BufferedText() as the rest of the object
  // whose '{' Next() just returned, its closing '}' the last of them, as if
  // Next() had returned each of its tokens. The caller must have checked
  // that those bytes are exactly that, by the rules this tokenizer applies:
  // nothing is checked here.
  void ConsumeRestOfObject(size_t n);
  // Consumes the first `n` bytes of BufferedText() as whole elements of the
  // innermost open array, the last of them an object whose closing '}' is
  // the n-th byte: the caller found them with the tokenizer's rules (the
  // separators checked, the objects to be checked by whoever reads them).
  // The tokenizer then expects ',' or ']'.
  void ConsumeArrayElements(size_t n);
  // Reads more of the source into the buffer, keeping BufferedText(); false
  // when nothing more came (the source ended, or the tokenizer failed).
  bool Refill() { return Fill(pos_); }

  // Valid until the next call to Next/Skip*.
  std::string_view text() const { return text_; }
  // Byte offset (in the decompressed text) where the last token started.
  uint64_t token_offset() const { return token_offset_; }
  // Number of open objects/arrays.
  size_t depth() const { return stack_.size(); }
  // Bytes consumed so far.
  uint64_t offset() const { return base_ + pos_; }

  bool failed() const { return failed_; }
  // True when the failure is that the input ended inside the document.
  bool truncated() const { return truncated_; }
  // Where the failure is and what was expected, e.g. "at byte 120: expected
  // ',' or '}', found 'x'" or "JSON ends early at byte 4096".
  const std::string& error() const { return error_; }
  uint64_t error_offset() const { return error_offset_; }

 private:
  enum class State : uint8_t {
    kValue,       // a value must come next
    kValueOrEnd,  // right after '[': a value or ']'
    kKey,         // after ',' in an object
    kKeyOrEnd,    // right after '{'
    kColon,       // after a key
    kCommaOrEnd,  // after a value inside a container
    kDone,        // after the top-level value
  };

  bool SkipSpace();             // false at end of input
  bool Ensure(size_t n);        // n bytes at pos_, keeping from pos_
  bool Fill(size_t keep_from);  // false when no more bytes came
  JsonToken ParseValue(char c);
  bool ParseString();  // pos_ at the opening quote
  bool Unescape(size_t begin, size_t end);
  bool ParseNumber();
  JsonToken ParseLiteral(std::string_view word, JsonToken token);
  JsonToken OpenContainer(bool object);
  JsonToken CloseContainer();
  void AfterValue() {
    state_ = stack_.empty() ? State::kDone : State::kCommaOrEnd;
  }
  bool InObject() const { return !stack_.empty() && stack_.back() != 0; }
  bool FastSkip(size_t target_depth);
  JsonToken FailExpected(const char* what);
  JsonToken FailAt(uint64_t offset, std::string message);
  JsonToken FailTruncated();

  ByteSource* source_;
  Limits limits_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  size_t pos_ = 0;
  size_t end_ = 0;
  uint64_t base_ = 0;  // offset of buf_[0] in the text
  bool source_done_ = false;
  State state_ = State::kValue;
  std::vector<uint8_t> stack_;  // 1: object, 0: array
  std::string_view text_;
  std::string scratch_;  // decoded strings with escapes
  uint64_t token_offset_ = 0;
  bool failed_ = false;
  bool truncated_ = false;
  std::string error_;
  uint64_t error_offset_ = 0;
};

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_JSON_TOKENIZER_H_
