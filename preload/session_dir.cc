#include "preload/session_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "preload/private_fd.h"

namespace feedprof::preload {
namespace {

constexpr mode_t kDirMode = 0755;
constexpr mode_t kFileMode = 0644;

// Makes `path` absolute (relative to the current directory).
bool Absolute(const char* path, char* out, size_t size) {
  if (path[0] == '/') {
    return std::snprintf(out, size, "%s", path) < static_cast<int>(size);
  }
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return false;
  const char* sep = cwd[std::strlen(cwd) - 1] == '/' ? "" : "/";
  return std::snprintf(out, size, "%s%s%s", cwd, sep, path) <
         static_cast<int>(size);
}

// mkdir -p of every component of `path` but the last.
void MakeParents(const char* path) {
  char partial[PATH_MAX];
  std::snprintf(partial, sizeof partial, "%s", path);
  size_t len = std::strlen(partial);
  while (len > 1 && partial[len - 1] == '/') partial[--len] = '\0';
  for (char* p = partial + 1; *p != '\0'; ++p) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(partial, kDirMode);  // EEXIST is fine: parents may be links
    *p = '/';
  }
}

// Opens an existing directory for joining: not a symlink, owned by us.
int OpenExistingDir(const char* path, char* error, size_t error_size) {
  const int fd = MoveToPrivateFd(
      open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP || err == ENOTDIR) {
      std::snprintf(error, error_size,
                    "%s exists and is not a directory (or is a symbolic "
                    "link); choose another output directory",
                    path);
    } else {
      std::snprintf(error, error_size, "cannot open %s: %s", path,
                    std::strerror(err));
    }
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
    std::snprintf(error, error_size,
                  "%s belongs to another user; choose an output directory of "
                  "your own",
                  path);
    close(fd);
    return -1;
  }
  return fd;
}

bool CreateOrJoin(const char* path, bool may_exist, SessionDir* dir,
                  char* error, size_t error_size) {
  MakeParents(path);
  if (mkdir(path, kDirMode) == 0) {
    dir->created = true;
  } else if (errno != EEXIST || !may_exist) {
    if (errno == EEXIST) return false;  // the caller picks another name
    std::snprintf(error, error_size,
                  "cannot create output directory %s: %s; set "
                  "FEEDPROF_OUTPUT_DIR to a writable directory",
                  path, std::strerror(errno));
    return false;
  }
  dir->fd = OpenExistingDir(path, error, error_size);
  if (dir->fd < 0) return false;
  std::snprintf(dir->path, sizeof dir->path, "%s", path);
  return true;
}

}  // namespace

bool OpenSessionDir(const Config& config, pid_t pid, SessionDir* dir,
                    char* error, size_t error_size) {
  *dir = SessionDir{};
  error[0] = '\0';
  char path[PATH_MAX];
  if (config.session_dir[0] != '\0') {
    if (!Absolute(config.session_dir, path, sizeof path)) {
      std::snprintf(error, error_size, "session directory path too long");
      return false;
    }
    dir->fd = OpenExistingDir(path, error, error_size);
    if (dir->fd < 0) return false;
    std::snprintf(dir->path, sizeof dir->path, "%s", path);
    return true;
  }
  if (config.output_dir[0] != '\0') {
    if (!Absolute(config.output_dir, path, sizeof path)) {
      std::snprintf(error, error_size, "output directory path too long");
      return false;
    }
    // An explicit directory may already exist (several ranks started with
    // the same FEEDPROF_OUTPUT_DIR): files inside never clash (O_EXCL).
    return CreateOrJoin(path, /*may_exist=*/true, dir, error, error_size);
  }
  const time_t now = time(nullptr);
  struct tm local;
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  for (int attempt = 0; attempt < 100; ++attempt) {
    char name[96];
    if (attempt == 0) {
      std::snprintf(name, sizeof name, "feedprof-%s-%d", stamp,
                    static_cast<int>(pid));
    } else {
      std::snprintf(name, sizeof name, "feedprof-%s-%d-%d", stamp,
                    static_cast<int>(pid), attempt);
    }
    if (!Absolute(name, path, sizeof path)) {
      std::snprintf(error, error_size, "current directory path too long");
      return false;
    }
    if (CreateOrJoin(path, /*may_exist=*/false, dir, error, error_size)) {
      return true;
    }
    if (error[0] != '\0') return false;
  }
  std::snprintf(error, error_size,
                "cannot find a new directory name in the "
                "current directory; set FEEDPROF_OUTPUT_DIR");
  return false;
}

int CreateTraceFile(const SessionDir& dir, TraceNameFn name_for_attempt,
                    const void* context, char* path, size_t path_size) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    char name[NAME_MAX + 1];
    name_for_attempt(context, attempt, name, sizeof name);
    const int fd =
        openat(dir.fd, name,
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kFileMode);
    if (fd >= 0) {
      std::snprintf(path, path_size, "%s/%s", dir.path, name);
      return MoveToPrivateFd(fd);
    }
    if (errno != EEXIST) return -1;
  }
  errno = EEXIST;
  return -1;
}

void CloseSessionDir(SessionDir* dir) {
  if (dir->fd >= 0) close(dir->fd);
  dir->fd = -1;
}

}  // namespace feedprof::preload
