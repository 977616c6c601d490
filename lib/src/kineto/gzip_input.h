// Reads a trace file as a stream of bytes, inflating it on the fly when it
// is gzip-compressed.
//
// Why: Kineto traces are usually written as `.json.gz` and are several times
// larger once inflated; holding the inflated text in memory (let alone a DOM
// of it) is what makes other tools run out of memory on long runs. This
// source inflates in fixed-size chunks, with ISA-L or zlib (inflater.h), so
// memory stays constant whatever the file size. Compression is detected
// from the gzip magic bytes (1f 8b), not from the file name; concatenated
// gzip members are read as one stream. How the stream ended (cleanly, cut
// short, corrupt) is kept for the reader to turn into a warning, so a truncated
// file still yields what came before the damage.
#ifndef FEEDPROF_LIB_SRC_KINETO_GZIP_INPUT_H_
#define FEEDPROF_LIB_SRC_KINETO_GZIP_INPUT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/input_file.h"
#include "kineto/byte_source.h"
#include "kineto/inflater.h"

namespace feedprof::kineto {

class GzipFileInput : public ByteSource {
 public:
  enum class End : uint8_t {
    kNotYet,     // still reading
    kClean,      // the whole file (every gzip member) was read
    kTruncated,  // the gzip stream stops in the middle of a member
    kCorrupt,    // the inflater rejected the data (detail() says why)
    kReadError,  // read(2) failed (detail() says why)
  };

  // Opens `path`; an error names the file and the reason, and says what to
  // do (common::InputFile: missing, unreadable, a directory or a pipe).
  static absl::StatusOr<std::unique_ptr<GzipFileInput>> Open(
      const std::string& path);
  ~GzipFileInput() override;
  GzipFileInput(const GzipFileInput&) = delete;
  GzipFileInput& operator=(const GzipFileInput&) = delete;

  size_t Read(char* out, size_t capacity) override;

  End end() const { return end_; }
  const std::string& detail() const { return detail_; }
  bool is_gzip() const { return gzip_; }
  // The inflater in use ("zlib", "ISA-L"); empty before the first gzip
  // read.
  std::string inflater_name() const {
    return inflater_ ? inflater_->name() : std::string();
  }
  uint64_t file_size() const { return file_.size(); }
  // Bytes of the file consumed so far; safe to read from another thread
  // (the progress display polls it while a prefetch thread reads).
  uint64_t file_bytes_read() const {
    return file_bytes_read_.load(std::memory_order_relaxed);
  }
  // Bytes Read has returned (the JSON text, inflated); likewise safe.
  uint64_t text_bytes_read() const {
    return text_bytes_read_.load(std::memory_order_relaxed);
  }
  // The bytes of the file that hold the first `text_offset` bytes of the
  // text, at the compression of what was read so far (the text's offset
  // itself for a plain file).
  uint64_t FileBytesOfText(uint64_t text_offset) const;

 private:
  explicit GzipFileInput(common::InputFile file);
  bool FillInput();  // false at end of file or on a read error
  // read() into `out`: the bytes read, 0 at end of file or on a read error
  // (which sets end_ and detail_).
  size_t ReadFile(void* out, size_t capacity);
  // Asks the system to start reading the file ahead of `offset`.
  void ReadAheadOf(uint64_t offset);
  // Whether the input bytes not yet inflated start a gzip member.
  bool UnreadInputStartsWithGzipMagic() const;
  size_t ReadPlain(char* out, size_t capacity);
  size_t ReadGzip(char* out, size_t capacity);

  common::InputFile file_;
  std::atomic<uint64_t> file_bytes_read_{0};
  std::atomic<uint64_t> text_bytes_read_{0};
  // file_bytes_read_ less the input not yet inflated (or copied), as of the
  // last Read.
  std::atomic<uint64_t> file_bytes_used_{0};
  // The file is asked to be read up to here ahead of the reads.
  uint64_t read_ahead_to_ = 0;
  bool gzip_ = false;
  bool file_eof_ = false;
  bool member_done_ = false;  // between gzip members
  End end_ = End::kNotYet;
  std::string detail_;
  std::unique_ptr<Inflater> inflater_;
  std::vector<unsigned char> in_;
  size_t in_begin_ = 0;
  size_t in_end_ = 0;
};

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_GZIP_INPUT_H_
