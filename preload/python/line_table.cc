#include "preload/python/line_table.h"

namespace feedprof::preload::python {
namespace {

int64_t Checked(int64_t line) { return line > 0 ? line : 0; }

// 3.10 (Objects/lnotab_notes.txt): pairs of an unsigned byte delta and a
// signed line delta; a line delta of -128 marks bytes with no line.
uint32_t LineOf310(const uint8_t* table, size_t size, int32_t first_line,
                   uint32_t offset) {
  int64_t line = first_line;
  uint64_t start = 0;
  for (size_t i = 0; i + 1 < size; i += 2) {
    const uint64_t end = start + table[i];
    const auto delta = static_cast<int8_t>(table[i + 1]);
    const bool has_line = delta != -128;
    if (has_line) line += delta;
    if (offset >= start && offset < end) {
      return has_line ? static_cast<uint32_t>(Checked(line)) : 0;
    }
    start = end;
  }
  return 0;
}

// Variable-length integers of the 3.11+ location table: 6 bits a byte,
// bit 6 set when more follow.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  uint64_t Varint() {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 6) {
      if (p == end) {
        ok = false;
        return 0;
      }
      const uint8_t b = *p++;
      value |= static_cast<uint64_t>(b & 63) << shift;
      if ((b & 64) == 0) return value;
    }
    ok = false;
    return 0;
  }
  int64_t SignedVarint() {
    const uint64_t v = Varint();
    return (v & 1) != 0 ? -static_cast<int64_t>(v >> 1)
                        : static_cast<int64_t>(v >> 1);
  }
};

// 3.11+ (Objects/locations.md): entries that start with a byte with bit 7
// set; bits 3-6 are the code, bits 0-2 the length in code units minus 1.
uint32_t LineOfLocations(const uint8_t* table, size_t size, int32_t first_line,
                         uint32_t offset) {
  constexpr uint32_t kCodeUnitBytes = 2;
  Cursor c{table, table + size};
  int64_t line = first_line;
  uint64_t start = 0;
  while (c.p < c.end) {
    const uint8_t head = *c.p++;
    if ((head & 0x80) == 0) return 0;  // not at an entry: corrupt
    const unsigned code = (head >> 3) & 15;
    const uint64_t end = start + ((head & 7) + 1) * kCodeUnitBytes;
    bool has_line = true;
    if (code == 15) {
      has_line = false;
    } else if (code == 14 || code == 13) {
      line += c.SignedVarint();
    } else if (code >= 10) {
      line += code - 10;
    }
    // The rest of the entry (columns) up to the next head byte.
    while (c.p < c.end && (*c.p & 0x80) == 0) ++c.p;
    if (!c.ok) return 0;
    if (offset >= start && offset < end) {
      return has_line ? static_cast<uint32_t>(Checked(line)) : 0;
    }
    start = end;
  }
  return 0;
}

}  // namespace

uint32_t LineOfOffset(LineTableFormat format, const uint8_t* table, size_t size,
                      int32_t first_line, uint32_t offset) {
  if (table == nullptr) return 0;
  return format == LineTableFormat::kLineTable310
             ? LineOf310(table, size, first_line, offset)
             : LineOfLocations(table, size, first_line, offset);
}

}  // namespace feedprof::preload::python
