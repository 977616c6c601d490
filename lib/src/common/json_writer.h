// A small streaming JSON writer that always produces valid JSON.
//
// Both `feedprof dump` and the JSON report print names taken from other
// people's programs — thread names cut mid-character, argv bytes in any
// encoding, kernel names with control characters — and their output must
// still parse. This writer escapes quotes, backslashes and control
// characters, replaces invalid UTF-8 by U+FFFD, prints integers exactly and
// doubles in their shortest round-trip form (non-finite doubles as null),
// and places commas itself. Compact by default (one JSON line per dump
// event); `Style::kPretty` indents by two spaces for the report.
#ifndef FEEDPROF_COMMON_JSON_WRITER_H_
#define FEEDPROF_COMMON_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace feedprof::common {

// Appends `s` as a quoted JSON string.
void AppendJsonString(std::string_view s, std::string* out);

class JsonWriter {
 public:
  enum class Style { kCompact, kPretty };

  // Writes into its own buffer, read with str().
  explicit JsonWriter(Style style = Style::kCompact)
      : out_(&own_), style_(style) {}
  // Appends to `out`; the caller owns the buffer and flushes it.
  explicit JsonWriter(std::string* out, Style style = Style::kCompact)
      : out_(out), style_(style) {}
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // Inside an object: the key of the next value.
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // `value`, or null when it is not known: what was not measured (a median
  // of an empty set, CPU time without samples) is null, never 0.
  JsonWriter& IntOrNull(bool known, int64_t value);
  JsonWriter& DoubleOrNull(bool known, double value);
  // An array of integers on one line, also in the pretty style: long
  // numeric series (the timeline's buckets) stay readable and small.
  JsonWriter& IntArrayOnOneLine(const std::vector<int64_t>& values);

  const std::string& str() const { return *out_; }

 private:
  void BeforeValue();
  void Open(char c);
  void Close(char c);
  void Newline();

  std::string own_;
  std::string* out_;
  Style style_;
  // One entry per open container: whether a value was written in it yet.
  std::vector<bool> has_values_;
  bool after_key_ = false;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_JSON_WRITER_H_
