#include "preload/session_dir.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "preload/private_fd.h"

namespace feedprof::preload {
namespace {

constexpr mode_t kDirMode = 0755;
constexpr mode_t kFileMode = 0644;
constexpr mode_t kMarkerMode = 0600;
constexpr int kMaxDirAttempts = 100;
// A process of the session that finds the directory just created by
// another one waits this long for the creator's marker.
constexpr int kMarkerWaitSteps = 100;
constexpr long kMarkerWaitStepNs = 2 * 1000 * 1000;

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

void StripTrailingSlashes(char* path) {
  size_t len = std::strlen(path);
  while (len > 1 && path[len - 1] == '/') path[--len] = '\0';
}

// mkdir -p of every component of `path` but the last.
void MakeParents(const char* path) {
  char partial[PATH_MAX];
  std::snprintf(partial, sizeof partial, "%s", path);
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

// Splits absolute `path` into the parent, opened (following links: parents
// may be links), and the last component, kept in dir->leaf.
bool OpenParent(const char* path, SessionDir* dir, char* error,
                size_t error_size) {
  const char* slash = std::strrchr(path, '/');
  const char* leaf = slash + 1;
  if (leaf[0] == '\0' || std::strcmp(leaf, ".") == 0 ||
      std::strcmp(leaf, "..") == 0 ||
      std::snprintf(dir->leaf, sizeof dir->leaf, "%s", leaf) >=
          static_cast<int>(sizeof dir->leaf)) {
    std::snprintf(error, error_size,
                  "%s is not a usable directory name; set FEEDPROF_OUTPUT_DIR "
                  "to another directory",
                  path);
    return false;
  }
  std::snprintf(dir->base_leaf, sizeof dir->base_leaf, "%s", dir->leaf);
  char parent[PATH_MAX];
  const size_t parent_len =
      slash == path ? 1 : static_cast<size_t>(slash - path);
  std::snprintf(parent, sizeof parent, "%.*s", static_cast<int>(parent_len),
                path);
  dir->parent_fd =
      MoveToPrivateFd(open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir->parent_fd < 0) {
    std::snprintf(error, error_size,
                  "cannot create output directory %s: %s; set "
                  "FEEDPROF_OUTPUT_DIR to a writable directory",
                  path, std::strerror(errno));
    return false;
  }
  return true;
}

// Joins an explicit directory: opened now if it exists, else made at the
// first write.
bool PrepareExplicit(const char* path, bool make_parents, SessionDir* dir,
                     char* error, size_t error_size) {
  std::snprintf(dir->path, sizeof dir->path, "%s", path);
  std::snprintf(dir->used_path, sizeof dir->used_path, "%s", path);
  struct stat st;
  if (lstat(path, &st) == 0) {
    dir->fd = OpenExistingDir(path, error, error_size);
    if (dir->fd < 0) return false;
    dir->exists = true;
    return true;
  }
  if (errno != ENOENT) {
    std::snprintf(error, error_size,
                  "cannot use output directory %s: %s; set "
                  "FEEDPROF_OUTPUT_DIR to a writable directory",
                  path, std::strerror(errno));
    return false;
  }
  if (make_parents) MakeParents(path);
  return OpenParent(path, dir, error, error_size);
}

void NewToken(char* out, size_t size) {
  uint64_t value = 0;
  if (getrandom(&value, sizeof value, GRND_NONBLOCK) !=
      static_cast<ssize_t>(sizeof value)) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    value = (static_cast<uint64_t>(ts.tv_nsec) << 20) ^
            static_cast<uint64_t>(ts.tv_sec) ^
            (static_cast<uint64_t>(getpid()) << 40) ^
            reinterpret_cast<uintptr_t>(&value);
  }
  std::snprintf(out, size, "%016llx", static_cast<unsigned long long>(value));
}

bool ValidToken(const char* token) {
  if (token == nullptr || std::strlen(token) != 16) return false;
  for (const char* p = token; *p != '\0'; ++p) {
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
  }
  return true;
}

bool PrepareDefault(pid_t pid, SessionDir* dir, char* error,
                    size_t error_size) {
  NewToken(dir->token, sizeof dir->token);
  const time_t now = time(nullptr);
  struct tm local;
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  for (int attempt = 0; attempt < kMaxDirAttempts; ++attempt) {
    char name[96];
    if (attempt == 0) {
      std::snprintf(name, sizeof name, "feedprof-%s-%d", stamp,
                    static_cast<int>(pid));
    } else {
      std::snprintf(name, sizeof name, "feedprof-%s-%d-%d", stamp,
                    static_cast<int>(pid), attempt);
    }
    char path[PATH_MAX];
    if (!Absolute(name, path, sizeof path)) {
      std::snprintf(error, error_size, "current directory path too long");
      return false;
    }
    struct stat st;
    if (lstat(path, &st) == 0) continue;  // another run's: never joined
    std::snprintf(dir->path, sizeof dir->path, "%s", path);
    std::snprintf(dir->used_path, sizeof dir->used_path, "%s", path);
    return OpenParent(path, dir, error, error_size);
  }
  std::snprintf(error, error_size,
                "cannot find a new directory name in the "
                "current directory; set FEEDPROF_OUTPUT_DIR");
  return false;
}

bool HasMarker(const SessionDir& dir, const char* leaf) {
  char rel[NAME_MAX * 2 + 32];
  std::snprintf(rel, sizeof rel, "%s/.feedprof-session-%s", leaf, dir.token);
  struct stat st;
  for (int step = 0; step < kMarkerWaitSteps; ++step) {
    if (fstatat(dir.parent_fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      return S_ISREG(st.st_mode);
    }
    if (errno != ENOENT) return false;
    const struct timespec pause = {0, kMarkerWaitStepNs};
    nanosleep(&pause, nullptr);
  }
  return false;
}

void UseLeaf(SessionDir* dir, const char* leaf, int attempt) {
  std::snprintf(dir->leaf, sizeof dir->leaf, "%s", leaf);
  // Only shown in messages: a path too long for PATH_MAX is cut.
  const int n = attempt == 0
                    ? std::snprintf(dir->used_path, sizeof dir->used_path, "%s",
                                    dir->path)
                    : std::snprintf(dir->used_path, sizeof dir->used_path,
                                    "%s-%d", dir->path, attempt);
  if (n < 0) dir->used_path[0] = '\0';
  dir->exists = true;
}

}  // namespace

bool OpenSessionDir(const Config& config, pid_t pid,
                    const char* inherited_token, SessionDir* dir, char* error,
                    size_t error_size) {
  *dir = SessionDir{};
  error[0] = '\0';
  char path[PATH_MAX];
  if (config.session_dir[0] != '\0') {
    if (!Absolute(config.session_dir, path, sizeof path)) {
      std::snprintf(error, error_size, "session directory path too long");
      return false;
    }
    StripTrailingSlashes(path);
    bool joined = false;
    if (!ValidToken(inherited_token)) {
      joined =
          PrepareExplicit(path, /*make_parents=*/false, dir, error, error_size);
    } else {
      // A default-named session: joined at the first write, by its marker.
      std::snprintf(dir->token, sizeof dir->token, "%s", inherited_token);
      std::snprintf(dir->path, sizeof dir->path, "%s", path);
      std::snprintf(dir->used_path, sizeof dir->used_path, "%s", path);
      joined = OpenParent(path, dir, error, error_size);
    }
    // A process that joins started the session only when it is that
    // process after an exec of its own.
    dir->created = joined && IsSessionStarter(pid);
    return joined;
  }
  if (config.output_dir[0] != '\0') {
    if (!Absolute(config.output_dir, path, sizeof path)) {
      std::snprintf(error, error_size, "output directory path too long");
      return false;
    }
    StripTrailingSlashes(path);
    // An explicit directory may already exist (several ranks started with
    // the same FEEDPROF_OUTPUT_DIR): files inside never clash (O_EXCL).
    if (!PrepareExplicit(path, /*make_parents=*/true, dir, error, error_size)) {
      return false;
    }
    dir->created = !dir->exists;
    return true;
  }
  if (!PrepareDefault(pid, dir, error, error_size)) return false;
  dir->created = true;
  return true;
}

bool IsSessionStarter(pid_t pid) {
  const char* value = getenv(kEnvSessionPid);
  if (value == nullptr || *value == '\0') return false;
  uint64_t n = 0;
  for (const char* c = value; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9' || n > UINT32_MAX) return false;
    n = n * 10 + static_cast<uint64_t>(*c - '0');
  }
  return n == static_cast<uint64_t>(pid);
}

bool EnsureSessionDir(SessionDir* dir, char* error, size_t error_size) {
  if (dir->exists) return true;
  const bool marked = dir->token[0] != '\0';
  const int attempts = marked ? kMaxDirAttempts : 1;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    char leaf[NAME_MAX + 1];
    if (attempt == 0) {
      std::snprintf(leaf, sizeof leaf, "%s", dir->base_leaf);
    } else if (std::snprintf(leaf, sizeof leaf, "%s-%d", dir->base_leaf,
                             attempt) >= static_cast<int>(sizeof leaf)) {
      break;
    }
    if (mkdirat(dir->parent_fd, leaf, kDirMode) == 0) {
      if (marked) {
        char marker[NAME_MAX * 2 + 32];
        std::snprintf(marker, sizeof marker, "%s/.feedprof-session-%s", leaf,
                      dir->token);
        mknodat(dir->parent_fd, marker, S_IFREG | kMarkerMode, 0);
      }
      UseLeaf(dir, leaf, attempt);
      return true;
    }
    if (errno != EEXIST) {
      std::snprintf(error, error_size,
                    "cannot create output directory %s: %s; set "
                    "FEEDPROF_OUTPUT_DIR to a writable directory",
                    dir->path, std::strerror(errno));
      return false;
    }
    // Someone made it first: a process of this session, or another run.
    struct stat st;
    const bool own_dir =
        fstatat(dir->parent_fd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISDIR(st.st_mode) && st.st_uid == geteuid();
    if (!marked) {
      if (own_dir) {
        UseLeaf(dir, leaf, attempt);
        return true;
      }
      std::snprintf(error, error_size,
                    "%s exists and is not a directory of yours (or is a "
                    "symbolic link); choose another output directory",
                    dir->path);
      return false;
    }
    if (own_dir && HasMarker(*dir, leaf)) {
      UseLeaf(dir, leaf, attempt);
      return true;
    }
    // Another run's (or a planted link): never joined, try the next name.
  }
  std::snprintf(error, error_size,
                "cannot find a new directory name for %s; set "
                "FEEDPROF_OUTPUT_DIR",
                dir->path);
  return false;
}

int SessionDirEntry(const SessionDir& dir, const char* name, char* rel,
                    size_t rel_size) {
  int n;
  int base;
  if (dir.fd >= 0) {
    n = std::snprintf(rel, rel_size, "%s", name);
    base = dir.fd;
  } else {
    n = std::snprintf(rel, rel_size, "%s/%s", dir.leaf, name);
    base = dir.parent_fd;
  }
  if (n < 0 || static_cast<size_t>(n) >= rel_size) return -1;
  return base;
}

int CreateTraceFile(SessionDir* dir, TraceNameFn name_for_attempt,
                    const void* context, char* path, size_t path_size) {
  char error[PATH_MAX + 200];
  if (!EnsureSessionDir(dir, error, sizeof error)) {
    if (errno == 0) errno = EACCES;
    return -1;
  }
  for (int attempt = 0; attempt < 1000; ++attempt) {
    char name[NAME_MAX + 1];
    name_for_attempt(context, attempt, name, sizeof name);
    char rel[2 * NAME_MAX + 2];
    const int base = SessionDirEntry(*dir, name, rel, sizeof rel);
    if (base < 0) {
      errno = ENAMETOOLONG;
      return -1;
    }
    const int fd =
        openat(base, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
               kFileMode);
    if (fd >= 0) {
      std::snprintf(path, path_size, "%s/%s", dir->used_path, name);
      return MoveToPrivateFd(fd);
    }
    if (errno != EEXIST) return -1;
  }
  errno = EEXIST;
  return -1;
}

void CloseSessionDir(SessionDir* dir) {
  if (dir->fd >= 0) close(dir->fd);
  if (dir->parent_fd >= 0) close(dir->parent_fd);
  dir->fd = -1;
  dir->parent_fd = -1;
}

}  // namespace feedprof::preload
