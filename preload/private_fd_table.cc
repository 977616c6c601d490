#include "preload/private_fd_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "preload/own_io.h"

#ifndef SYS_close_range
#define SYS_close_range 436  // the same number on every Linux architecture
#endif

namespace feedprof::preload {
namespace {

// Closes [first, last] through /proc/thread-self/fd, for kernels without
// close_range (before 5.9). Opening the listing is safe: the table is
// already private.
void CloseRangeByListing(unsigned first, unsigned last) {
  const int dir =
      open("/proc/thread-self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  alignas(8) char buf[4096];
  for (;;) {
    const long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buf + off);
      off += entry->d_reclen;
      char* end = nullptr;
      const unsigned long fd = std::strtoul(entry->d_name, &end, 10);
      if (end == entry->d_name || *end != '\0') continue;  // "." and ".."
      if (fd >= first && fd <= last && static_cast<int>(fd) != dir) {
        close(static_cast<int>(fd));
      }
    }
  }
  close(dir);
}

void CloseRange(unsigned first, unsigned last) {
  if (first > last) return;
  if (syscall(SYS_close_range, first, last, 0) == 0) return;
  CloseRangeByListing(first, last);
}

}  // namespace

bool SeccompFilterActive() {
  const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char buf[4096];
  size_t used = 0;
  for (;;) {
    const ssize_t n = OwnRead(fd, buf + used, sizeof buf - 1 - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
    if (used == sizeof buf - 1) break;
  }
  close(fd);
  buf[used] = '\0';
  const char* line = std::strstr(buf, "\nSeccomp:");
  if (line == nullptr) return false;  // a kernel without seccomp
  line += std::strlen("\nSeccomp:");
  while (*line == ' ' || *line == '\t') ++line;
  return *line != '0';
}

bool UsePrivateDescriptorTable(const int* keep, size_t count) {
  int kept[16];
  size_t n = 0;
  for (size_t i = 0; i < count && n < 16; ++i) {
    if (keep[i] >= 0) kept[n++] = keep[i];
  }
  std::sort(kept, kept + n);
  if (unshare(CLONE_FILES) != 0) return false;
  unsigned next = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto fd = static_cast<unsigned>(kept[i]);
    if (fd > next) CloseRange(next, fd - 1);
    next = fd + 1;
  }
  CloseRange(next, UINT_MAX);
  return true;
}

}  // namespace feedprof::preload
