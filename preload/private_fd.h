// Keeps the library's file descriptors out of the host's way.
//
// Programs assume the lowest free descriptor: a daemon closes 0-2 and
// reopens /dev/null expecting 0, 1, 2; a program that closed stdout and
// then prints would write into whatever took descriptor 1. The library
// therefore moves every descriptor it keeps open (trace file, session
// directory, eventfds) to a high number.
#ifndef FEEDPROF_PRELOAD_PRIVATE_FD_H_
#define FEEDPROF_PRELOAD_PRIVATE_FD_H_

#include <fcntl.h>
#include <unistd.h>

namespace feedprof::preload {

inline constexpr int kFirstPrivateFd = 100;

// Returns a close-on-exec duplicate of `fd` numbered kFirstPrivateFd or
// above and closes `fd`; returns `fd` itself when it cannot be moved (a
// low descriptor limit) or is negative.
inline int MoveToPrivateFd(int fd) {
  if (fd < 0 || fd >= kFirstPrivateFd) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, kFirstPrivateFd);
  if (moved < 0) return fd;
  close(fd);
  return moved;
}

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_PRIVATE_FD_H_
