#include "preload/trace_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "preload/own_io.h"
#include "preload/private_fd.h"

namespace feedprof::preload {
namespace {

constexpr mode_t kFileMode = 0644;
constexpr int kMaxNameAttempts = 1000;

void NameForAttempt(const void* context, int attempt, char* out, size_t size) {
  TraceFileName(*static_cast<const ProcessFacts*>(context), attempt, out, size);
}

// "dir/name"; a path too long for PATH_MAX is cut (it is only shown).
void JoinPath(char* out, size_t size, const char* dir, const char* name) {
  const int n = std::snprintf(out, size, "%s/%s", dir, name);
  if (n < 0 || static_cast<size_t>(n) >= size) out[size - 1] = '\0';
}

}  // namespace

void TraceFile::Open(SessionDir* dir, const ProcessFacts* facts,
                     const uint8_t* header, size_t header_size) {
  dir_ = dir;
  facts_ = facts;
  header_ = header;
  header_size_ = header_size;
  fd_ = -1;
  unnamed_ = false;
  created_ = false;
  failed_ = false;
  bytes_written_ = 0;
  name_[0] = '\0';
  path_[0] = '\0';
  error_[0] = '\0';
  // Until the session directory exists the unnamed file waits in its
  // parent: the same file system, so linkat() can move it in later.
  const int fd = openat(SessionDirStagingFd(*dir), ".",
                        O_TMPFILE | O_WRONLY | O_CLOEXEC, kFileMode);
  // Messages name the file by the name it is going to get.
  NameForAttempt(facts_, 0, name_, sizeof name_);
  JoinPath(path_, sizeof path_, dir->path, name_);
  if (fd < 0) return;  // not supported here: created by name later
  fd_ = MoveToPrivateFd(fd);
  unnamed_ = true;
  WriteAll(header_, header_size_);
}

bool TraceFile::Fail(const char* what, int err) {
  const char* reason = (err == ENOSPC || err == EDQUOT) ? "the disk is full"
                                                        : std::strerror(err);
  std::snprintf(error_, sizeof error_, "cannot %s %s: %s", what, path_, reason);
  failed_ = true;
  return false;
}

bool TraceFile::LinkUnnamed() {
  char proc_path[64];
  std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd_);
  for (int attempt = 0; attempt < kMaxNameAttempts; ++attempt) {
    NameForAttempt(facts_, attempt, name_, sizeof name_);
    char rel[2 * NAME_MAX + 2];
    const int base = SessionDirEntry(*dir_, name_, rel, sizeof rel);
    if (base < 0) {
      errno = ENAMETOOLONG;
      return false;
    }
    if (linkat(AT_FDCWD, proc_path, base, rel, AT_SYMLINK_FOLLOW) == 0) {
      JoinPath(path_, sizeof path_, dir_->used_path, name_);
      created_ = true;
      unnamed_ = false;
      return true;
    }
    if (errno != EEXIST) return false;
  }
  errno = EEXIST;
  return false;
}

bool TraceFile::CreateNamed() {
  for (int attempt = 0; attempt < kMaxNameAttempts; ++attempt) {
    NameForAttempt(facts_, attempt, name_, sizeof name_);
    char rel[2 * NAME_MAX + 2];
    const int base = SessionDirEntry(*dir_, name_, rel, sizeof rel);
    if (base < 0) {
      errno = ENAMETOOLONG;
      break;
    }
    const int fd =
        openat(base, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
               kFileMode);
    if (fd >= 0) {
      fd_ = MoveToPrivateFd(fd);
      JoinPath(path_, sizeof path_, dir_->used_path, name_);
      created_ = true;
      return WriteAll(header_, header_size_);
    }
    if (errno != EEXIST) break;
  }
  std::snprintf(path_, sizeof path_, "%s", dir_->used_path);
  return Fail("create a trace file in", errno);
}

bool TraceFile::Publish() {
  // The first file of the session creates its directory.
  if (!EnsureSessionDir(dir_, error_, sizeof error_)) {
    failed_ = true;
    return false;
  }
  if (unnamed_) {
    if (LinkUnnamed()) return true;
    // No /proc, or linking refused: write a named file instead.
    close(fd_);
    fd_ = -1;
    unnamed_ = false;
    bytes_written_ = 0;
  }
  return CreateNamed();
}

bool TraceFile::Write(const uint8_t* data, size_t size) {
  if (failed_) return false;
  if (!created_ && !Publish()) return false;
  return WriteAll(data, size);
}

bool TraceFile::WriteAll(const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = OwnWrite(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fail("write", n < 0 ? errno : EIO);
    data += n;
    size -= static_cast<size_t>(n);
    bytes_written_ += static_cast<uint64_t>(n);
  }
  return true;
}

void TraceFile::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void TraceFile::Remove() {
  Close();
  char rel[2 * NAME_MAX + 2];
  const int base =
      created_ ? SessionDirEntry(*dir_, name_, rel, sizeof rel) : -1;
  if (base >= 0) unlinkat(base, rel, 0);
  created_ = false;
}

}  // namespace feedprof::preload
