#include "tests/fuzz/fuzz_input_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace feedprof::fuzz {
namespace {

[[noreturn]] void Fail(const char* what, const std::string& path) {
  std::perror((std::string("fuzz input file: ") + what + " " + path).c_str());
  std::abort();
}

}  // namespace

FuzzInputFile::FuzzInputFile(std::string_view suffix) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") +
      "/feedprof-fuzz-XXXXXX" + std::string(suffix);
  const int fd = mkstemps(pattern.data(), static_cast<int>(suffix.size()));
  if (fd < 0) Fail("cannot create", pattern);
  close(fd);
  path_ = pattern;
}

FuzzInputFile::~FuzzInputFile() { unlink(path_.c_str()); }

const std::string& FuzzInputFile::Write(const uint8_t* data, size_t size) {
  const int fd = open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) Fail("cannot open", path_);
  size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, data + written, size - written);
    if (n <= 0) Fail("cannot write", path_);
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) Fail("cannot close", path_);
  return path_;
}

}  // namespace feedprof::fuzz
