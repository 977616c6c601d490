// File sinks for the trace export: plain, or gzip through zlib.
//
// Exports run to gigabytes, so bytes go to the file as they come, through a
// fixed buffer (plain) or zlib's deflate stream (gzip, the format Perfetto
// and TensorBoard open as .json.gz); nothing grows with the trace. A write
// or close error names the file and the reason, so a full disk reads as
// one clear line.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "feedprof/export.h"

namespace feedprof {
namespace {

constexpr size_t kBufferBytes = 1 << 20;

class FileByteSink : public ByteSink {
 public:
  FileByteSink(int fd, std::string path, bool gzip)
      : fd_(fd), path_(std::move(path)), gzip_(gzip) {
    out_.resize(kBufferBytes);
    if (gzip_) {
      // windowBits 15 + 16: a gzip header and trailer around the deflate
      // stream.
      deflate_ok_ = deflateInit2(&zs_, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                                 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    }
  }
  ~FileByteSink() override {
    if (gzip_ && deflate_ok_) deflateEnd(&zs_);
    if (fd_ >= 0) ::close(fd_);
  }
  FileByteSink(const FileByteSink&) = delete;
  FileByteSink& operator=(const FileByteSink&) = delete;

  absl::Status Write(std::string_view bytes) override {
    if (!gzip_) {
      return WriteAll(bytes.data(), bytes.size());
    }
    if (!deflate_ok_) return absl::InternalError("zlib deflateInit failed");
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs_.avail_in = static_cast<uInt>(bytes.size());
    return Deflate(Z_NO_FLUSH);
  }

  absl::Status Close() override {
    absl::Status status;
    if (gzip_) {
      zs_.next_in = nullptr;
      zs_.avail_in = 0;
      status = deflate_ok_ ? Deflate(Z_FINISH)
                           : absl::InternalError("zlib deflateInit failed");
    }
    if (fd_ >= 0) {
      if (status.ok() && ::fsync(fd_) != 0 && errno != EINVAL) {
        status = Error("cannot write");
      }
      if (::close(fd_) != 0 && status.ok()) status = Error("cannot close");
      fd_ = -1;
    }
    return status;
  }

 private:
  absl::Status Deflate(int flush) {
    // Bytes are written in pieces far below 4 GiB (the writer's buffer), so
    // avail_in's 32 bits hold them.
    while (true) {
      zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
      zs_.avail_out = static_cast<uInt>(out_.size());
      const int rc = deflate(&zs_, flush);
      if (rc == Z_STREAM_ERROR) return absl::InternalError("zlib deflate");
      const size_t produced = out_.size() - zs_.avail_out;
      if (absl::Status s = WriteAll(out_.data(), produced); !s.ok()) return s;
      if (flush == Z_FINISH ? rc == Z_STREAM_END
                            : zs_.avail_in == 0 && zs_.avail_out != 0) {
        return absl::OkStatus();
      }
    }
  }

  absl::Status WriteAll(const char* data, size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Error("cannot write");
      }
      data += n;
      size -= static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

  absl::Status Error(std::string_view what) const {
    return absl::UnavailableError(absl::StrCat(std::string(what), " ", path_,
                                               ": ", std::strerror(errno)));
  }

  int fd_;
  std::string path_;
  bool gzip_;
  bool deflate_ok_ = false;
  z_stream zs_{};
  std::string out_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ByteSink>> OpenFileByteSink(
    const std::string& path, bool gzip) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", path, ": ", std::strerror(errno),
                     " (check that the directory exists and is writable)"));
  }
  return std::unique_ptr<ByteSink>(new FileByteSink(fd, path, gzip));
}

}  // namespace feedprof
