// Reads the few CPython objects a stack needs — code objects, their
// strings and line tables — from raw memory, checking each object's type
// pointer first, so that a freed or reused address is refused rather than
// misread. Templated on how memory is read (process_memory.h).
#ifndef FEEDPROF_PRELOAD_PYTHON_PYTHON_OBJECTS_H_
#define FEEDPROF_PRELOAD_PYTHON_PYTHON_OBJECTS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "preload/python/python_layout.h"

namespace feedprof::preload::python {

// The parts of a code object a frame's location needs; together they also
// tell one code object from another that reused its address.
struct CodeFields {
  uint64_t filename = 0;   // str
  uint64_t name = 0;       // str: co_qualname where the version has it
  uint64_t linetable = 0;  // bytes
  int32_t first_line = 0;
  int64_t code_units = 0;  // Py_SIZE(code) (3.11+): bytecode length / 2

  bool operator==(const CodeFields& o) const {
    return filename == o.filename && name == o.name &&
           linetable == o.linetable && first_line == o.first_line &&
           code_units == o.code_units;
  }
};

// Decodes a code object's header bytes (layout.code_read_size of them).
// False unless its type is `code_type`.
inline bool DecodeCodeFields(const PythonLayout& layout, const uint8_t* bytes,
                             uint64_t code_type, CodeFields* out) {
  uint64_t type = 0;
  std::memcpy(&type, bytes + 8, sizeof type);  // ob_type
  if (type != code_type) return false;
  std::memcpy(&out->filename, bytes + layout.code_filename, 8);
  std::memcpy(&out->name,
              bytes + (layout.code_qualname != 0 ? layout.code_qualname
                                                 : layout.code_name),
              8);
  std::memcpy(&out->linetable, bytes + layout.code_linetable, 8);
  std::memcpy(&out->first_line, bytes + layout.code_firstlineno, 4);
  out->code_units = 0;
  if (layout.frame_model == FrameModel::kInterpreterFrames) {
    std::memcpy(&out->code_units, bytes + layout.var_size, 8);
  }
  return true;
}

template <typename Memory>
bool ReadCodeFields(const PythonLayout& layout, const Memory& memory,
                    uint64_t code, uint64_t code_type, CodeFields* out) {
  uint8_t bytes[256];
  if (layout.code_read_size > sizeof bytes || code == 0 ||
      !memory.Read(code, bytes, layout.code_read_size)) {
    return false;
  }
  return DecodeCodeFields(layout, bytes, code_type, out);
}

// Appends code point `c` as UTF-8; false when it does not fit.
inline bool AppendUtf8(uint32_t c, char* out, size_t cap, size_t* len) {
  char buf[4];
  size_t n = 0;
  if (c < 0x80) {
    buf[n++] = static_cast<char>(c);
  } else if (c < 0x800) {
    buf[n++] = static_cast<char>(0xC0 | (c >> 6));
    buf[n++] = static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    buf[n++] = static_cast<char>(0xE0 | (c >> 12));
    buf[n++] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x110000) {
    buf[n++] = static_cast<char>(0xF0 | (c >> 18));
    buf[n++] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | (c & 0x3F));
  } else {
    buf[n++] = '?';
  }
  if (*len + n >= cap) return false;
  std::memcpy(out + *len, buf, n);
  *len += n;
  return true;
}

// A str object as UTF-8 text into `out` (NUL-terminated, cut to `cap`).
// Compact strings only (every identifier and file name is one).
template <typename Memory>
bool ReadUnicode(const PythonLayout& layout, const Memory& memory,
                 uint64_t object, uint64_t unicode_type, char* out,
                 size_t cap) {
  out[0] = '\0';
  uint8_t head[80];
  const size_t head_size = layout.unicode_state + 4;
  if (object == 0 || (object & 7) != 0 || head_size > sizeof head ||
      !memory.Read(object, head, head_size)) {
    return false;
  }
  uint64_t type = 0;
  int64_t length = 0;
  uint32_t state = 0;
  std::memcpy(&type, head + 8, sizeof type);
  std::memcpy(&length, head + layout.unicode_length, sizeof length);
  std::memcpy(&state, head + layout.unicode_state, sizeof state);
  if (type != unicode_type || length < 0) return false;
  const uint32_t kind = (state >> 2) & 7;
  const bool compact = ((state >> 5) & 1) != 0;
  const bool ascii = ((state >> 6) & 1) != 0;
  if (!compact || (kind != 1 && kind != 2 && kind != 4)) return false;
  const uint64_t data = object + (ascii ? layout.unicode_ascii_data
                                        : layout.unicode_compact_data);
  // Read at most what fits once encoded (1 byte a character at least).
  const size_t chars = static_cast<size_t>(length) < cap - 1
                           ? static_cast<size_t>(length)
                           : cap - 1;
  uint8_t raw[1024];
  const size_t raw_size = chars * kind;
  if (raw_size > sizeof raw) return false;
  if (raw_size > 0 && !memory.Read(data, raw, raw_size)) return false;
  size_t len = 0;
  for (size_t i = 0; i < chars; ++i) {
    uint32_t c = 0;
    if (kind == 1) {
      c = raw[i];
    } else if (kind == 2) {
      uint16_t v;
      std::memcpy(&v, raw + i * 2, 2);
      c = v;
    } else {
      std::memcpy(&c, raw + i * 4, 4);
    }
    if (!AppendUtf8(c, out, cap, &len)) break;
  }
  out[len] = '\0';
  return true;
}

// A bytes object's contents into `out`; returns how many bytes (at most
// `cap`; a longer object is cut), or -1 when it is not a bytes object.
template <typename Memory>
int64_t ReadBytes(const PythonLayout& layout, const Memory& memory,
                  uint64_t object, uint64_t bytes_type, uint8_t* out,
                  size_t cap) {
  uint8_t head[24];
  if (object == 0 || (object & 7) != 0 ||
      !memory.Read(object, head, sizeof head)) {
    return -1;
  }
  uint64_t type = 0;
  int64_t size = 0;
  std::memcpy(&type, head + 8, sizeof type);
  std::memcpy(&size, head + layout.var_size, sizeof size);
  if (type != bytes_type || size < 0) return -1;
  const size_t n =
      static_cast<size_t>(size) < cap ? static_cast<size_t>(size) : cap;
  if (n > 0 && !memory.Read(object + layout.bytes_data, out, n)) return -1;
  return static_cast<int64_t>(n);
}

}  // namespace feedprof::preload::python

#endif  // FEEDPROF_PRELOAD_PYTHON_PYTHON_OBJECTS_H_
