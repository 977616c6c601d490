// Implements small_file.h.
#include "preload/small_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "preload/own_io.h"

namespace feedprof::preload {

size_t ReadSmallFile(const char* path, char* out, size_t size) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t used = 0;
  while (used < size) {
    const ssize_t n = OwnRead(fd, out + used, size - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  close(fd);
  return used;
}

}  // namespace feedprof::preload
