// A pull-style source of bytes, the seam between where JSON text comes from
// (a plain file, a gzip stream, a prefetching thread, a string in a test) and
// the tokenizer that consumes it.
//
// Why an interface: the tokenizer must be testable on adversarial inputs fed
// one byte at a time (tokens split across every possible boundary), and the
// reader must be able to put decompression on another thread without the
// tokenizer knowing.
#ifndef FEEDPROF_LIB_SRC_KINETO_BYTE_SOURCE_H_
#define FEEDPROF_LIB_SRC_KINETO_BYTE_SOURCE_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace feedprof::kineto {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Copies up to `capacity` bytes into `out`; returns how many. 0 means the
  // end of the data (clean or not: ask the concrete source how it ended).
  virtual size_t Read(char* out, size_t capacity) = 0;
};

// Serves a string, at most `max_chunk` bytes per Read (tests use 1 to split
// every token at every position).
class StringByteSource : public ByteSource {
 public:
  explicit StringByteSource(std::string data, size_t max_chunk = 1 << 20)
      : data_(std::move(data)), max_chunk_(max_chunk == 0 ? 1 : max_chunk) {}
  size_t Read(char* out, size_t capacity) override {
    const size_t n = std::min({capacity, max_chunk_, data_.size() - position_});
    if (n > 0) std::memcpy(out, data_.data() + position_, n);
    position_ += n;
    return n;
  }

 private:
  std::string data_;
  size_t max_chunk_;
  size_t position_ = 0;
};

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_BYTE_SOURCE_H_
