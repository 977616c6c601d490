#include "tests/testing/json_test_parser.h"

#include <cctype>
#include <cstdlib>
#include <limits>

#include "common/utf8.h"

namespace feedprof::testing {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view in) : in_(in) {}

  std::optional<JsonValue> Document() {
    JsonValue value;
    SkipSpace();
    if (!Value(&value, 0)) return std::nullopt;
    SkipSpace();
    if (pos_ != in_.size()) return std::nullopt;
    return value;
  }

 private:
  void SkipSpace() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\t' ||
                                 in_[pos_] == '\n' || in_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Literal(std::string_view word) {
    if (in_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool Value(JsonValue* out, int depth) {
    if (depth > 64 || pos_ >= in_.size()) return false;
    const char c = in_[pos_];
    if (c == '{') return Object(out, depth);
    if (c == '[') return Array(out, depth);
    if (c == '"') {
      out->kind = JsonValue::Kind::kString;
      return String(&out->text);
    }
    if (c == 't' || c == 'f') {
      out->kind = JsonValue::Kind::kBool;
      out->boolean = c == 't';
      return Literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      out->kind = JsonValue::Kind::kNull;
      return Literal("null");
    }
    return Number(out);
  }

  bool Number(JsonValue* out) {
    const size_t begin = pos_;
    if (pos_ < in_.size() && in_[pos_] == '-') ++pos_;
    const size_t digits = pos_;
    while (pos_ < in_.size() &&
           std::isdigit(static_cast<unsigned char>(in_[pos_])))
      ++pos_;
    if (pos_ == digits) return false;
    if (in_[digits] == '0' && pos_ - digits > 1) return false;
    if (pos_ < in_.size() && in_[pos_] == '.') {
      const size_t fraction = ++pos_;
      while (pos_ < in_.size() &&
             std::isdigit(static_cast<unsigned char>(in_[pos_])))
        ++pos_;
      if (pos_ == fraction) return false;
    }
    if (pos_ < in_.size() && (in_[pos_] == 'e' || in_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < in_.size() && (in_[pos_] == '+' || in_[pos_] == '-')) ++pos_;
      const size_t exponent = pos_;
      while (pos_ < in_.size() &&
             std::isdigit(static_cast<unsigned char>(in_[pos_])))
        ++pos_;
      if (pos_ == exponent) return false;
    }
    out->kind = JsonValue::Kind::kNumber;
    out->text = std::string(in_.substr(begin, pos_ - begin));
    return true;
  }

  bool Hex4(uint32_t* out) {
    if (pos_ + 4 > in_.size()) return false;
    *out = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = in_[pos_++];
      *out <<= 4;
      if (c >= '0' && c <= '9') {
        *out |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        *out |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        *out |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    return true;
  }

  bool String(std::string* out) {
    ++pos_;  // opening quote
    while (pos_ < in_.size()) {
      const auto c = static_cast<unsigned char>(in_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return false;  // raw control character
      if (c >= 0x80) {
        const size_t n = common::Utf8SequenceLength(in_.substr(pos_));
        if (n == 0) return false;
        out->append(in_.substr(pos_, n));
        pos_ += n;
        continue;
      }
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      if (++pos_ >= in_.size()) return false;
      const char e = in_[pos_++];
      switch (e) {
        case '"':
          out->push_back('"');
          break;
        case '\\':
          out->push_back('\\');
          break;
        case '/':
          out->push_back('/');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (!Literal("\\u") || !Hex4(&low) || low < 0xDC00 ||
                low > 0xDFFF) {
              return false;
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return false;
          }
          common::AppendUtf8(cp, out);
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }

  // The elements of an array or the members of an object: `item` parses
  // one, separated by commas, up to `close`; the opening bracket is at
  // pos_. No trailing comma.
  template <typename Item>
  bool Sequence(char close, Item item) {
    ++pos_;
    SkipSpace();
    if (pos_ < in_.size() && in_[pos_] == close) {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (!item()) return false;
      SkipSpace();
      if (pos_ >= in_.size()) return false;
      if (in_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (in_[pos_] == close) {
        ++pos_;
        return true;
      }
      return false;
    }
  }

  bool Array(JsonValue* out, int depth) {
    out->kind = JsonValue::Kind::kArray;
    return Sequence(']', [&] {
      JsonValue item;
      if (!Value(&item, depth + 1)) return false;
      out->items.push_back(std::move(item));
      return true;
    });
  }

  bool Object(JsonValue* out, int depth) {
    out->kind = JsonValue::Kind::kObject;
    return Sequence('}', [&] {
      if (pos_ >= in_.size() || in_[pos_] != '"') return false;
      std::string key;
      if (!String(&key)) return false;
      SkipSpace();
      if (pos_ >= in_.size() || in_[pos_] != ':') return false;
      ++pos_;
      SkipSpace();
      JsonValue value;
      if (!Value(&value, depth + 1)) return false;
      out->members.emplace_back(std::move(key), std::move(value));
      return true;
    });
  }

  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string JsonValue::Str(std::string_view key) const {
  const JsonValue* v = Find(key);
  return v != nullptr && v->kind == Kind::kString ? v->text : "<missing>";
}

int64_t JsonValue::Int(std::string_view key) const {
  const JsonValue* v = Find(key);
  if (v == nullptr || v->kind != Kind::kNumber) {
    return std::numeric_limits<int64_t>::min();
  }
  return std::strtoll(v->text.c_str(), nullptr, 10);
}

uint64_t JsonValue::Uint(std::string_view key) const {
  const JsonValue* v = Find(key);
  if (v == nullptr || v->kind != Kind::kNumber || v->text[0] == '-') {
    return std::numeric_limits<uint64_t>::max();
  }
  return std::strtoull(v->text.c_str(), nullptr, 10);
}

double JsonValue::Double(std::string_view key) const {
  const JsonValue* v = Find(key);
  if (v == nullptr || v->kind != Kind::kNumber) return -1e300;
  return std::strtod(v->text.c_str(), nullptr);
}

std::optional<JsonValue> ParseJson(std::string_view json) {
  return Parser(json).Document();
}

}  // namespace feedprof::testing
