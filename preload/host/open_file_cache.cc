#include "preload/host/open_file_cache.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "preload/host/proc_text.h"
#include "preload/own_io.h"

namespace feedprof::preload::host {

OpenFileCache::~OpenFileCache() { Release(); }

bool OpenFileCache::Init(size_t capacity) {
  Release();
  rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    const size_t share = static_cast<size_t>(lim.rlim_cur / 16);
    if (capacity > share) capacity = share;
  }
  if (capacity == 0) return true;
  entries_ = static_cast<Entry*>(std::malloc(capacity * sizeof(Entry)));
  if (entries_ == nullptr) return false;
  for (size_t i = 0; i < capacity; ++i) entries_[i] = Entry{-1, 0, 0, 0};
  capacity_ = capacity;
  return true;
}

void OpenFileCache::Release() {
  CloseAll();
  std::free(entries_);
  entries_ = nullptr;
  capacity_ = 0;
}

int OpenFileCache::Open(int dir_fd, const char* path) {
  if (open_count_ >= capacity_) return -1;
  size_t slot = 0;
  while (slot < capacity_ && entries_[slot].fd >= 0) ++slot;
  if (slot == capacity_) return -1;
  const int fd = OpenPrivate(dir_fd, path, O_RDONLY | O_NOCTTY);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return -1;
  }
  // Unmarked until Mark(): swept this round unless the caller keeps it.
  entries_[slot] = Entry{fd, st.st_dev, st.st_ino, ~0ull};
  ++open_count_;
  return static_cast<int>(slot);
}

long OpenFileCache::Read(int slot, char* buf, size_t cap) const {
  if (slot < 0 || static_cast<size_t>(slot) >= capacity_ || cap == 0) {
    return -1;
  }
  const int fd = entries_[slot].fd;
  if (fd < 0) return -1;
  // One pread: the files kept here are one-line stat files, and a second
  // call to see the end would double the cost of a sample.
  ssize_t n;
  do {
    n = OwnPread(fd, buf, cap - 1, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -1;
  buf[n] = '\0';
  return static_cast<long>(n);
}

void OpenFileCache::Close(int slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= capacity_) return;
  Entry& e = entries_[slot];
  if (e.fd < 0) return;
  struct stat st;
  // Close only what is still ours.
  if (fstat(e.fd, &st) == 0 && st.st_dev == e.dev && st.st_ino == e.ino) {
    close(e.fd);
  }
  e.fd = -1;
  --open_count_;
}

void OpenFileCache::CloseAll() {
  for (size_t i = 0; i < capacity_; ++i) Close(static_cast<int>(i));
}

void OpenFileCache::Mark(int slot, uint64_t round) {
  if (slot >= 0 && static_cast<size_t>(slot) < capacity_) {
    entries_[slot].mark = round;
  }
}

void OpenFileCache::CloseUnmarked(uint64_t round) {
  for (size_t i = 0; i < capacity_; ++i) {
    if (entries_[i].fd >= 0 && entries_[i].mark != round) {
      Close(static_cast<int>(i));
    }
  }
}

}  // namespace feedprof::preload::host
