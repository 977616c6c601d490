#include "kineto/gzip_input.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/file_magic.h"

namespace feedprof::kineto {
namespace {

constexpr size_t kInputChunk = 256 * 1024;

// How far ahead of the reads the file is asked for, and how much is asked
// for at a time: while the reading thread cuts and maps what it has, the
// disk is already reading the next few MiB.
constexpr uint64_t kReadAheadBytes = 16 << 20;
constexpr uint64_t kReadAheadStepBytes = 4 << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<GzipFileInput>> GzipFileInput::Open(
    const std::string& path) {
  absl::StatusOr<common::InputFile> file = common::InputFile::Open(path);
  if (!file.ok()) return file.status();
  // The file is read once, start to end, by one thread: ask the kernel for
  // its larger read-ahead (a hint; nothing depends on it being taken).
  ::posix_fadvise(file->fd(), 0, 0, POSIX_FADV_SEQUENTIAL);
  auto input =
      std::unique_ptr<GzipFileInput>(new GzipFileInput(*std::move(file)));
  // Sniff the gzip magic from the first bytes; they stay in the input
  // buffer, so a plain file is served from the same buffer.
  while (input->in_end_ < 2 && input->FillInput()) {
  }
  if (input->end_ == End::kReadError) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot read: ", input->detail_));
  }
  input->gzip_ = input->UnreadInputStartsWithGzipMagic();
  return input;
}

bool GzipFileInput::UnreadInputStartsWithGzipMagic() const {
  const std::string_view unread(
      reinterpret_cast<const char*>(in_.data()) + in_begin_,
      in_end_ - in_begin_);
  return common::StartsWithGzipMagic(unread);
}

GzipFileInput::GzipFileInput(common::InputFile file)
    : file_(std::move(file)), in_(kInputChunk) {}

GzipFileInput::~GzipFileInput() = default;

bool GzipFileInput::FillInput() {
  if (file_eof_) return false;
  if (in_begin_ == in_end_) {
    in_begin_ = in_end_ = 0;
  } else if (in_end_ == in_.size()) {
    std::memmove(in_.data(), in_.data() + in_begin_, in_end_ - in_begin_);
    in_end_ -= in_begin_;
    in_begin_ = 0;
  }
  const size_t n = ReadFile(in_.data() + in_end_, in_.size() - in_end_);
  in_end_ += n;
  return n > 0;
}

void GzipFileInput::ReadAheadOf(uint64_t offset) {
  if (offset + kReadAheadBytes - kReadAheadStepBytes <= read_ahead_to_ ||
      read_ahead_to_ >= file_.size()) {
    return;
  }
  const uint64_t from = std::max(read_ahead_to_, offset);
  read_ahead_to_ = offset + kReadAheadBytes;
  // A hint: the pages already cached cost a look-up each, and a system
  // that does not take it reads as before.
  ::posix_fadvise(file_.fd(), static_cast<off_t>(from),
                  static_cast<off_t>(read_ahead_to_ - from),
                  POSIX_FADV_WILLNEED);
}

size_t GzipFileInput::ReadFile(void* out, size_t capacity) {
  if (file_eof_) return 0;
  ReadAheadOf(file_bytes_read());
  for (;;) {
    const ssize_t n = ::read(file_.fd(), out, capacity);
    if (n > 0) {
      file_bytes_read_.fetch_add(static_cast<uint64_t>(n),
                                 std::memory_order_relaxed);
      return static_cast<size_t>(n);
    }
    if (n == 0) {
      file_eof_ = true;
      return 0;
    }
    if (errno == EINTR) continue;
    detail_ = std::strerror(errno);
    end_ = End::kReadError;
    file_eof_ = true;
    return 0;
  }
}

uint64_t GzipFileInput::FileBytesOfText(uint64_t text_offset) const {
  // The file bytes behind the text returned so far: those read less those
  // still waiting in the input buffer.
  const uint64_t used = file_bytes_used_.load(std::memory_order_relaxed);
  const uint64_t text = text_bytes_read();
  if (text == 0 || text_offset >= text) return used;
  return static_cast<uint64_t>(static_cast<double>(used) *
                               static_cast<double>(text_offset) /
                               static_cast<double>(text));
}

size_t GzipFileInput::Read(char* out, size_t capacity) {
  if (end_ != End::kNotYet || capacity == 0) return 0;
  const size_t n = gzip_ ? ReadGzip(out, capacity) : ReadPlain(out, capacity);
  file_bytes_used_.store(file_bytes_read() - (in_end_ - in_begin_),
                         std::memory_order_relaxed);
  text_bytes_read_.fetch_add(n, std::memory_order_relaxed);
  return n;
}

size_t GzipFileInput::ReadPlain(char* out, size_t capacity) {
  // Once the bytes read ahead are handed over, a large read goes straight
  // from the file into the caller's memory: a copy less.
  if (in_begin_ == in_end_ && capacity >= kInputChunk) {
    const size_t n = ReadFile(out, capacity);
    if (n == 0 && end_ == End::kNotYet) end_ = End::kClean;
    return n;
  }
  if (in_begin_ == in_end_ && !FillInput()) {
    if (end_ == End::kNotYet) end_ = End::kClean;
    return 0;
  }
  const size_t n = std::min(capacity, in_end_ - in_begin_);
  std::memcpy(out, in_.data() + in_begin_, n);
  in_begin_ += n;
  return n;
}

size_t GzipFileInput::ReadGzip(char* out, size_t capacity) {
  if (!inflater_) {
    inflater_ = MakeInflater();
    if (!inflater_->StartMember()) {
      end_ = End::kCorrupt;
      detail_ = absl::StrCat(inflater_->name(), " could not be initialised");
      return 0;
    }
  }
  size_t produced = 0;
  while (produced < capacity) {
    // At the end of the file the inflater may still hold output it could
    // not hand over (ISA-L keeps some): drain it before calling the stream
    // cut short.
    bool draining = false;
    if (in_begin_ == in_end_ && !FillInput()) {
      if (end_ != End::kNotYet) break;  // a read error
      if (member_done_) {
        end_ = End::kClean;
        break;
      }
      draining = true;
    }
    if (member_done_) {
      // Another gzip member follows, or trailing padding (zeros written
      // by some tools): only a new gzip magic continues the stream.
      if (in_end_ - in_begin_ < 2 && FillInput()) continue;
      if (!UnreadInputStartsWithGzipMagic()) {
        end_ = End::kClean;
        break;
      }
      if (!inflater_->StartMember()) {
        end_ = End::kCorrupt;
        detail_ = absl::StrCat(inflater_->name(), " could not be reset");
        break;
      }
      member_done_ = false;
    }
    const unsigned char* in = in_.data() + in_begin_;
    size_t in_size = in_end_ - in_begin_;
    char* next_out = out + produced;
    size_t out_size = capacity - produced;
    const Inflater::Status status =
        inflater_->Inflate(&in, &in_size, &next_out, &out_size);
    in_begin_ = in_end_ - in_size;
    const size_t before = produced;
    produced = capacity - out_size;
    if (status == Inflater::Status::kMemberEnd) {
      member_done_ = true;
      continue;
    }
    if (status == Inflater::Status::kCorrupt) {
      end_ = End::kCorrupt;
      detail_ = absl::StrCat("the gzip data is corrupt near byte ",
                             file_bytes_read() - (in_end_ - in_begin_),
                             " of the file (", inflater_->error(), ")");
      break;
    }
    if (draining && produced == before) {
      end_ = End::kTruncated;
      detail_ = absl::StrCat("the gzip stream ends early at byte ",
                             file_bytes_read(), " of the file");
      break;
    }
  }
  return produced;
}

}  // namespace feedprof::kineto
