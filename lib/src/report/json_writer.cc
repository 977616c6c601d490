// JSON writer (see json_writer.h).
#include "report/json_writer.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace feedprof::report {

void JsonWriter::Newline() {
  out_.push_back('\n');
  out_.append(2 * has_items_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_.push_back(',');
    has_items_.back() = true;
    Newline();
  }
}

void JsonWriter::Open(char c) {
  BeforeValue();
  out_.push_back(c);
  has_items_.push_back(false);
}

void JsonWriter::Close(char c) {
  const bool had = has_items_.back();
  has_items_.pop_back();
  if (had) Newline();
  out_.push_back(c);
  if (has_items_.empty()) out_.push_back('\n');
}

void JsonWriter::Key(std::string_view key) {
  BeforeValue();
  Quote(key);
  out_.append(": ");
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  Quote(value);
}

void JsonWriter::Quote(std::string_view value) {
  out_.push_back('"');
  for (unsigned char ch : value) {
    switch (ch) {
      case '"':
        out_.append("\\\"");
        break;
      case '\\':
        out_.append("\\\\");
        break;
      case '\n':
        out_.append("\\n");
        break;
      case '\r':
        out_.append("\\r");
        break;
      case '\t':
        out_.append("\\t");
        break;
      default:
        if (ch < 0x20) {
          out_.append(absl::StrFormat("\\u%04x", ch));
        } else {
          out_.push_back(static_cast<char>(ch));
        }
    }
  }
  out_.push_back('"');
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  out_.append(absl::StrFormat("%d", value));
}

void JsonWriter::Uint(uint64_t value) {
  BeforeValue();
  out_.append(absl::StrFormat("%d", value));
}

void JsonWriter::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_.append("null");
    return;
  }
  out_.append(absl::StrFormat("%.10g", value));
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_.append(value ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_.append("null");
}

}  // namespace feedprof::report
