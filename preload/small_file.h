// Reads a small file whole: procfs and sysfs facts read once at start.
//
// The library reads a handful of short files before the program runs
// (/proc/self/cmdline, the clocksource, /proc/cpuinfo's first block). They
// are read with plain open/read/close into a caller's buffer: no stdio, no
// allocation, EINTR retried.
#ifndef FEEDPROF_PRELOAD_SMALL_FILE_H_
#define FEEDPROF_PRELOAD_SMALL_FILE_H_

#include <cstddef>

namespace feedprof::preload {

// Up to `size` bytes of `path` into `out`; the count read, 0 when the file
// cannot be opened.
size_t ReadSmallFile(const char* path, char* out, size_t size);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_SMALL_FILE_H_
