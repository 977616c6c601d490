// Procfs files kept open between sampling rounds and re-read with pread.
//
// Opening /proc/self/task/T/stat costs as much as generating it (an
// openat and a close around every read: ~8 µs of a ~12 µs read on a cold
// cache). A procfs file read again from offset 0 regenerates its content,
// so the sampler keeps each thread's stat file open and preads it.
//
// The file descriptors live in someone else's process, so the cache is
// careful with them: it holds a bounded number (a small share of
// RLIMIT_NOFILE), every descriptor is O_CLOEXEC, and before closing one it
// checks with fstat that the number still names the file it opened — if
// the program closed it behind our back and reused the number, the cache
// forgets it instead of closing the program's file.
#ifndef FEEDPROF_PRELOAD_HOST_OPEN_FILE_CACHE_H_
#define FEEDPROF_PRELOAD_HOST_OPEN_FILE_CACHE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace feedprof::preload::host {

class OpenFileCache {
 public:
  OpenFileCache() = default;
  ~OpenFileCache();
  OpenFileCache(const OpenFileCache&) = delete;
  OpenFileCache& operator=(const OpenFileCache&) = delete;

  // Allocates room for at most `capacity` files, further limited to
  // RLIMIT_NOFILE / 16. False when out of memory.
  bool Init(size_t capacity);
  // Closes every file and frees the table.
  void Release();
  size_t capacity() const { return capacity_; }
  size_t open_count() const { return open_count_; }

  // Opens `path` relative to `dir_fd` into a free slot; returns the slot,
  // or -1 when the cache is full or the open failed.
  int Open(int dir_fd, const char* path);
  // Reads the file again from offset 0 into `buf` (NUL-terminated);
  // returns the byte count or -1.
  long Read(int slot, char* buf, size_t cap) const;
  void Close(int slot);
  void CloseAll();

  // Mark-and-sweep: slots used this round are marked; CloseUnmarked
  // closes the rest (files of threads that exited).
  void Mark(int slot, uint64_t round);
  void CloseUnmarked(uint64_t round);

 private:
  struct Entry {
    int fd;
    dev_t dev;
    ino_t ino;
    uint64_t mark;
  };

  Entry* entries_ = nullptr;
  size_t capacity_ = 0;
  size_t open_count_ = 0;
};

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_OPEN_FILE_CACHE_H_
