// A small streaming JSON writer with indentation and correct string
// escaping, so the report writer states structure, not punctuation.
#ifndef FEEDPROF_REPORT_JSON_WRITER_H_
#define FEEDPROF_REPORT_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace feedprof::report {

class JsonWriter {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // Object member name; the next value call writes its value.
  void Key(std::string_view key);
  void String(std::string_view value);
  void Int(int64_t value);
  void Uint(uint64_t value);
  void Double(double value);  // NaN and infinities are written as null
  void Bool(bool value);
  void Null();

  const std::string& str() const { return out_; }

 private:
  void Open(char c);
  void Close(char c);
  void BeforeValue();
  void Quote(std::string_view value);
  void Newline();
  std::string out_;
  std::vector<bool> has_items_;  // per open container
  bool after_key_ = false;
};

}  // namespace feedprof::report

#endif  // FEEDPROF_REPORT_JSON_WRITER_H_
