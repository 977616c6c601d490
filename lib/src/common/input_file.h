// Opens a trace file for reading, the same way for every reader.
//
// The feedprof, Kineto and Nsight readers all start from a path the user
// typed. One helper gives them the same checks and the same words: the file
// is opened read-only, close-on-exec and without blocking (opening a pipe
// would otherwise wait for a writer), and anything but a regular file is
// refused. A directory gets a hint to pass a trace file or a session
// directory; a pipe, socket or device gets a hint to save the trace to a
// file first, since readers need the file size and format detection reads
// the first bytes twice. errno becomes a message that names the path and
// says what to do.
#ifndef FEEDPROF_COMMON_INPUT_FILE_H_
#define FEEDPROF_COMMON_INPUT_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace feedprof::common {

// An open, read-only regular file; closes its descriptor when destroyed.
class InputFile {
 public:
  // Opens `path`. Errors name the path: kNotFound (missing),
  // kPermissionDenied (not readable), kInvalidArgument (a directory, a
  // pipe, socket or device), another code with the errno text otherwise.
  static absl::StatusOr<InputFile> Open(const std::string& path);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int fd() const { return fd_; }
  // The size when opened.
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Reads up to `capacity` bytes at `offset` (fewer at the end of the
  // file); retries interrupted reads. -1 on a read error (errno is set).
  int64_t ReadAt(uint64_t offset, char* out, size_t capacity) const;

 private:
  InputFile(int fd, uint64_t size, std::string path);

  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_INPUT_FILE_H_
