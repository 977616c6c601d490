#include "fpt/string_field_repair.h"

#include <cstdint>

#include "common/utf8.h"

namespace feedprof::fpt {
namespace {

using common::AppendRepairedUtf8;
using common::IsValidUtf8;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Deeper nesting than the schema has means the bytes are not ours.
constexpr int kMaxDepth = 32;

bool ReadVarint(std::string_view in, size_t* pos, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70 && *pos < in.size(); shift += 7) {
    const auto byte = static_cast<uint8_t>(in[(*pos)++]);
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

int Repair(const Descriptor& type, std::string_view in, std::string* out,
           int depth) {
  if (depth > kMaxDepth) return -1;
  int repaired = 0;
  size_t pos = 0;
  while (pos < in.size()) {
    const size_t field_begin = pos;
    uint64_t tag = 0;
    if (!ReadVarint(in, &pos, &tag)) return -1;
    const auto wire_type = static_cast<uint32_t>(tag & 7);
    const auto number = static_cast<int>(tag >> 3);
    size_t payload_size = 0;
    switch (wire_type) {
      case 0: {  // varint
        uint64_t ignored = 0;
        if (!ReadVarint(in, &pos, &ignored)) return -1;
        out->append(in.substr(field_begin, pos - field_begin));
        continue;
      }
      case 1:  // fixed64
        payload_size = 8;
        break;
      case 5:  // fixed32
        payload_size = 4;
        break;
      case 2: {  // length-delimited
        uint64_t length = 0;
        if (!ReadVarint(in, &pos, &length)) return -1;
        if (length > in.size() - pos) return -1;
        const std::string_view payload = in.substr(pos, length);
        pos += length;
        const FieldDescriptor* field = type.FindFieldByNumber(number);
        if (field != nullptr && field->type() == FieldDescriptor::TYPE_STRING &&
            !IsValidUtf8(payload)) {
          std::string fixed;
          AppendRepairedUtf8(payload, &fixed);
          AppendVarint(tag, out);
          AppendVarint(fixed.size(), out);
          out->append(fixed);
          ++repaired;
        } else if (field != nullptr &&
                   field->type() == FieldDescriptor::TYPE_MESSAGE) {
          std::string nested;
          const int n =
              Repair(*field->message_type(), payload, &nested, depth + 1);
          if (n < 0) return -1;
          repaired += n;
          AppendVarint(tag, out);
          AppendVarint(nested.size(), out);
          out->append(nested);
        } else {
          out->append(in.substr(field_begin, pos - field_begin));
        }
        continue;
      }
      default:  // groups (3, 4) are not used by the schema; 6, 7 are invalid
        return -1;
    }
    if (payload_size > in.size() - pos) return -1;
    pos += payload_size;
    out->append(in.substr(field_begin, pos - field_begin));
  }
  return repaired;
}

}  // namespace

int RepairStringFields(const Descriptor& type, std::string_view in,
                       std::string* out) {
  out->clear();
  out->reserve(in.size() + 16);
  return Repair(type, in, out, 0);
}

}  // namespace feedprof::fpt
