#include "common/json_writer.h"

#include <charconv>
#include <cmath>

#include "common/utf8.h"

namespace feedprof::common {
namespace {

// The shortest text that reads back as exactly `value` (std::to_chars).
template <typename Number>
void AppendNumber(Number value, std::string* out) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out->append(buffer, result.ptr);
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(s.substr(i));
      if (length == 0) {
        out->append("\\ufffd");
        ++i;
      } else {
        out->append(s.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xF]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

void JsonWriter::Newline() {
  if (style_ != Style::kPretty) return;
  out_->push_back('\n');
  out_->append(2 * has_values_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_values_.empty()) {
    if (has_values_.back()) out_->push_back(',');
    has_values_.back() = true;
    Newline();
  }
}

void JsonWriter::Open(char c) {
  BeforeValue();
  out_->push_back(c);
  has_values_.push_back(false);
}

void JsonWriter::Close(char c) {
  const bool had_values = has_values_.back();
  has_values_.pop_back();
  if (had_values) Newline();
  out_->push_back(c);
  if (style_ == Style::kPretty && has_values_.empty()) out_->push_back('\n');
}

JsonWriter& JsonWriter::BeginObject() {
  Open('{');
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  Close('}');
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  Open('[');
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  Close(']');
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendJsonString(key, out_);
  out_->append(style_ == Style::kPretty ? ": " : ":");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonString(value, out_);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  AppendNumber(value, out_);
  return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t value) {
  BeforeValue();
  AppendNumber(value, out_);
  return *this;
}

JsonWriter& JsonWriter::Double(double value) {
  if (!std::isfinite(value)) return Null();
  BeforeValue();
  AppendNumber(value, out_);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_->append(value ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_->append("null");
  return *this;
}

JsonWriter& JsonWriter::IntOrNull(bool known, int64_t value) {
  return known ? Int(value) : Null();
}

JsonWriter& JsonWriter::DoubleOrNull(bool known, double value) {
  return known ? Double(value) : Null();
}

JsonWriter& JsonWriter::IntArrayOnOneLine(const std::vector<int64_t>& values) {
  BeforeValue();
  out_->push_back('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out_->push_back(',');
    AppendNumber(values[i], out_);
  }
  out_->push_back(']');
  return *this;
}

}  // namespace feedprof::common
