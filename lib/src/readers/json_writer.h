// A small streaming JSON writer that always produces valid JSON.
//
// `feedprof dump` prints names taken from other people's programs — thread
// names cut mid-character, argv bytes in any encoding, control characters —
// and its output must still parse line by line. This writer escapes quotes,
// backslashes and control characters, replaces invalid UTF-8 by U+FFFD,
// prints integers exactly and doubles in their shortest round-trip form
// (non-finite doubles as null), and places commas itself.
#ifndef FEEDPROF_READERS_JSON_WRITER_H_
#define FEEDPROF_READERS_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace feedprof::readers {

// Appends `s` as a quoted JSON string.
void AppendJsonString(std::string_view s, std::string* out);

class JsonWriter {
 public:
  // Appends to `out`; the caller owns the buffer and flushes it.
  explicit JsonWriter(std::string* out) : out_(out) {}

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

 private:
  void BeforeValue();

  std::string* out_;
  // One entry per open container: whether a value was written in it yet.
  std::vector<bool> has_values_;
  bool after_key_ = false;
};

}  // namespace feedprof::readers

#endif  // FEEDPROF_READERS_JSON_WRITER_H_
