#include "common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"

namespace feedprof::common {
namespace {

constexpr char kWhatToPass[] =
    "give a trace file (.fpt, .json, .json.gz or .sqlite) or a session "
    "directory";

absl::Status DirectoryError(const std::string& path) {
  return absl::InvalidArgumentError(
      absl::StrFormat("%s is a directory: %s", path, kWhatToPass));
}

absl::Status OpenError(const std::string& path, int error) {
  const char* reason = std::strerror(error);
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(absl::StrFormat(
          "%s: %s; check the path and %s", path, reason, kWhatToPass));
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(absl::StrFormat(
          "%s: %s; make the file and the directories above it readable by "
          "this user (chmod), or copy the file somewhere readable",
          path, reason));
    case EISDIR:
      return DirectoryError(path);
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return absl::ResourceExhaustedError(absl::StrFormat(
          "%s: cannot open: %s; close other programs or raise the open-file "
          "limit (ulimit -n) and try again",
          path, reason));
    default:
      return absl::UnknownError(
          absl::StrFormat("%s: cannot open: %s; check the path and that the "
                          "file is readable",
                          path, reason));
  }
}

}  // namespace

absl::StatusOr<InputFile> InputFile::Open(const std::string& path) {
  // O_NONBLOCK: a pipe must be refused, not waited on; it is cleared again
  // once the file is known to be a regular one.
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return OpenError(path, errno);
  InputFile file(fd, 0, path);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return absl::InternalError(absl::StrFormat("%s: cannot stat the file: %s",
                                               path, std::strerror(errno)));
  }
  if (S_ISDIR(info.st_mode)) return DirectoryError(path);
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: not a regular file (a pipe, socket or device); save the trace "
        "to a file first and pass that",
        path));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  file.size_ = static_cast<uint64_t>(info.st_size);
  return file;
}

InputFile::InputFile(int fd, uint64_t size, std::string path)
    : fd_(fd), size_(size), path_(std::move(path)) {}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      size_(other.size_),
      path_(std::move(other.path_)) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    path_ = std::move(other.path_);
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

int64_t InputFile::ReadAt(uint64_t offset, char* out, size_t capacity) const {
  for (;;) {
    const ssize_t n = ::pread(fd_, out, capacity, static_cast<off_t>(offset));
    if (n >= 0 || errno != EINTR) return static_cast<int64_t>(n);
  }
}

}  // namespace feedprof::common
