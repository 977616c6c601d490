// Protobuf wire-format encoder for the injected library.
//
// libfeedprof.so must not link libprotobuf (two copies of it in one process
// abort, and LD_PRELOAD would put ours first in everyone's symbol lookup), so
// packets are encoded by hand. WireWriter writes into a caller-owned,
// fixed-size byte span: it never allocates, never throws, and on overflow it
// stops writing and remembers that it overflowed, so the caller can drop the
// packet and count it. Nested messages reserve a length prefix and back-fill
// it when they end; a prefix that turns out too short is widened by moving
// the payload, one that is too long is padded with a non-minimal varint
// (which every protobuf parser accepts).
#ifndef FEEDPROF_PRELOAD_WIRE_WRITER_H_
#define FEEDPROF_PRELOAD_WIRE_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace feedprof::wire {

enum class WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kFixed32 = 5,
};

constexpr size_t kMaxVarintBytes = 10;

// Number of bytes the minimal varint encoding of `v` takes.
constexpr size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

constexpr uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// Writes the minimal varint of `v` at `p`; returns the byte after it.
inline uint8_t* WriteVarint(uint64_t v, uint8_t* p) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Writes `v` as a varint of exactly `width` bytes (non-minimal if needed).
inline void WritePaddedVarint(uint64_t v, size_t width, uint8_t* p) {
  for (size_t i = 0; i + 1 < width; ++i) {
    *p++ = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  *p = static_cast<uint8_t>(v);
}

class WireWriter {
 public:
  // Handle for an open nested message: where its length prefix starts and
  // how many bytes were reserved for it.
  struct Nested {
    size_t prefix_offset = 0;
    size_t reserved = 0;
  };

  constexpr WireWriter(uint8_t* buffer, size_t capacity)
      : begin_(buffer), pos_(buffer), end_(buffer + capacity) {}

  size_t size() const { return static_cast<size_t>(pos_ - begin_); }
  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }
  bool overflowed() const { return overflowed_; }
  const uint8_t* data() const { return begin_; }

  // Rewinds to `size` bytes (used to abandon a partly written packet).
  void Truncate(size_t size) {
    pos_ = begin_ + size;
    overflowed_ = false;
  }

  void Tag(uint32_t field, WireType type) {
    RawVarint((static_cast<uint64_t>(field) << 3) |
              static_cast<uint32_t>(type));
  }

  void RawVarint(uint64_t v) {
    if (remaining() < kMaxVarintBytes && !Ensure(VarintSize(v))) return;
    if (overflowed_) return;
    pos_ = WriteVarint(v, pos_);
  }

  void RawBytes(const void* data, size_t n) {
    if (!Ensure(n)) return;
    if (n != 0) std::memcpy(pos_, data, n);
    pos_ += n;
  }

  // Field writers. Zero values are skipped, as proto3 does: absent fields
  // read back as zero, and a skipped field costs no bytes.
  void Uint(uint32_t field, uint64_t v) {
    if (v == 0) return;
    Tag(field, WireType::kVarint);
    RawVarint(v);
  }
  void Int(uint32_t field, int64_t v) {  // int32/int64 (two's complement)
    if (v == 0) return;
    Tag(field, WireType::kVarint);
    RawVarint(static_cast<uint64_t>(v));
  }
  void Sint(uint32_t field, int64_t v) {  // sint32/sint64 (zig-zag)
    if (v == 0) return;
    Tag(field, WireType::kVarint);
    RawVarint(ZigZag(v));
  }
  void Bool(uint32_t field, bool v) { Uint(field, v ? 1 : 0); }
  void Double(uint32_t field, double v) {
    if (v == 0.0) return;
    Tag(field, WireType::kFixed64);
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    uint8_t le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(bits >> (8 * i));
    RawBytes(le, sizeof le);
  }
  void String(uint32_t field, std::string_view s) {
    if (s.empty()) return;
    Tag(field, WireType::kLengthDelimited);
    RawVarint(s.size());
    RawBytes(s.data(), s.size());
  }
  // Writes a field even when it is zero (a repeated scalar element, say).
  void UintAlways(uint32_t field, uint64_t v) {
    Tag(field, WireType::kVarint);
    RawVarint(v);
  }

  // Opens a length-delimited sub-message. `reserve` is the number of bytes
  // kept for its length: 1 for small per-event messages, 4 for batches.
  Nested BeginNested(uint32_t field, size_t reserve = 1) {
    Tag(field, WireType::kLengthDelimited);
    Nested n{size(), reserve};
    if (!Ensure(reserve)) return n;
    pos_ += reserve;
    return n;
  }

  void EndNested(const Nested& n) {
    if (overflowed_) return;
    uint8_t* prefix = begin_ + n.prefix_offset;
    uint8_t* payload = prefix + n.reserved;
    const size_t len = static_cast<size_t>(pos_ - payload);
    const size_t need = VarintSize(len);
    if (need <= n.reserved) {
      WritePaddedVarint(len, n.reserved, prefix);
      return;
    }
    const size_t grow = need - n.reserved;
    if (!Ensure(grow)) return;
    std::memmove(payload + grow, payload, len);
    WriteVarint(len, prefix);
    pos_ += grow;
  }

 private:
  bool Ensure(size_t n) {
    if (overflowed_) return false;
    if (static_cast<size_t>(end_ - pos_) < n) {
      overflowed_ = true;
      return false;
    }
    return true;
  }

  uint8_t* begin_;
  uint8_t* pos_;
  uint8_t* end_;
  bool overflowed_ = false;
};

}  // namespace feedprof::wire

#endif  // FEEDPROF_PRELOAD_WIRE_WRITER_H_
