#include "preload/host/mount_lookup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "preload/host/proc_text.h"
#include "preload/own_io.h"

namespace feedprof::preload::host {
namespace {

constexpr size_t kPathBytes = 1024;

void CopyTo(std::string_view v, char* out, size_t cap) {
  const size_t n = v.size() < cap - 1 ? v.size() : cap - 1;
  std::memcpy(out, v.data(), n);
  out[n] = '\0';
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
void UnescapeTo(std::string_view v, char* out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < v.size() && n + 1 < cap; ++i) {
    if (v[i] == '\\' && i + 3 < v.size() && v[i + 1] >= '0' &&
        v[i + 1] <= '3' && v[i + 2] >= '0' && v[i + 2] <= '7' &&
        v[i + 3] >= '0' && v[i + 3] <= '7') {
      out[n++] = static_cast<char>((v[i + 1] - '0') * 64 +
                                   (v[i + 2] - '0') * 8 + (v[i + 3] - '0'));
      i += 3;
    } else {
      out[n++] = v[i];
    }
  }
  out[n] = '\0';
}

bool Holds(const char* mount_point, const char* path) {
  if (std::strcmp(mount_point, "/") == 0) return true;
  const size_t n = std::strlen(mount_point);
  return std::strncmp(path, mount_point, n) == 0 &&
         (path[n] == '\0' || path[n] == '/');
}

// Appends the comma-separated `list` to `out`, skipping options already
// there.
void AppendOptions(std::string_view list, char* out, size_t cap) {
  while (!list.empty()) {
    const std::string_view option = NextPart(&list, ',');
    if (option.empty()) continue;
    bool seen = false;
    std::string_view have(out);
    while (!have.empty() && !seen) seen = NextPart(&have, ',') == option;
    if (seen) continue;
    const size_t used = std::strlen(out);
    if (used + option.size() + 2 > cap) return;
    if (used > 0) out[used] = ',';
    std::memcpy(out + used + (used > 0), option.data(), option.size());
    out[used + (used > 0) + option.size()] = '\0';
  }
}

struct Line {
  uint32_t major = 0;
  uint32_t minor = 0;
  std::string_view mount_point;  // escaped
  std::string_view options;
  std::string_view fs_type;
  std::string_view source;
  std::string_view super_options;
};

// "id parent major:minor root mount-point options [optional...] - type
// source super-options".
bool ParseLine(std::string_view s, Line* l) {
  NextToken(&s);  // id
  NextToken(&s);  // parent
  std::string_view dev = NextToken(&s);
  const std::string_view major = NextPart(&dev, ':');
  uint64_t v = 0;
  if (!ParseUint(major, &v)) return false;
  l->major = static_cast<uint32_t>(v);
  if (!ParseUint(dev, &v)) return false;
  l->minor = static_cast<uint32_t>(v);
  NextToken(&s);  // root
  l->mount_point = NextToken(&s);
  l->options = NextToken(&s);
  for (;;) {
    const std::string_view t = NextToken(&s);
    if (t.empty()) return false;
    if (t == "-") break;
  }
  l->fs_type = NextToken(&s);
  l->source = NextToken(&s);
  l->super_options = NextToken(&s);
  return !l->mount_point.empty() && !l->fs_type.empty();
}

void Fill(const Line& l, const char* mount_point, MountFields* out) {
  *out = MountFields{};
  out->major = l.major;
  out->minor = l.minor;
  CopyTo(mount_point, out->mount_point, sizeof out->mount_point);
  UnescapeTo(l.fs_type, out->fs_type, sizeof out->fs_type);
  UnescapeTo(l.source, out->source, sizeof out->source);
  AppendOptions(l.options, out->options, sizeof out->options);
  AppendOptions(l.super_options, out->options, sizeof out->options);
}

// Calls `visit` with each whole line of the file, read in chunks of
// `scratch`; lines longer than the buffer are skipped.
template <typename Visit>
bool ForEachLine(const char* path, char* scratch, size_t cap, Visit visit) {
  const int fd = OpenPrivate(AT_FDCWD, path, O_RDONLY | O_NOCTTY);
  if (fd < 0) return false;
  size_t have = 0;
  off_t offset = 0;
  bool skipping = false;  // inside a line that did not fit
  for (;;) {
    const ssize_t n = OwnPread(fd, scratch + have, cap - have, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    offset += n;
    have += static_cast<size_t>(n);
    size_t start = 0;
    for (size_t i = 0; i < have; ++i) {
      if (scratch[i] != '\n') continue;
      if (!skipping) visit(std::string_view(scratch + start, i - start));
      skipping = false;
      start = i + 1;
    }
    if (start == 0 && have == cap) {  // no newline in a full buffer
      skipping = true;
      have = 0;
      continue;
    }
    std::memmove(scratch, scratch + start, have - start);
    have -= start;
  }
  if (have > 0 && !skipping) visit(std::string_view(scratch, have));
  close(fd);
  return true;
}

// Reads `path` as a one-line attribute into `out`.
void ReadText(const char* path, char* out, size_t cap) {
  char buf[256];
  CopyTo(ReadAttribute(path, buf, sizeof buf), out, cap);
}

}  // namespace

void NormalizePath(char* path) {
  // Split into parts, dropping "", "." and backing up on "..".
  char out[kPathBytes];
  size_t n = 0;
  const char* p = path;
  while (*p != '\0') {
    while (*p == '/') ++p;
    const char* start = p;
    while (*p != '\0' && *p != '/') ++p;
    const size_t len = static_cast<size_t>(p - start);
    if (len == 0 || (len == 1 && start[0] == '.')) continue;
    if (len == 2 && start[0] == '.' && start[1] == '.') {
      while (n > 0 && out[n - 1] != '/') --n;
      if (n > 0) --n;
      continue;
    }
    if (n + len + 2 > sizeof out) break;
    out[n++] = '/';
    std::memcpy(out + n, start, len);
    n += len;
  }
  if (n == 0) out[n++] = '/';
  out[n] = '\0';
  std::memcpy(path, out, n + 1);
}

bool FindMount(const char* mountinfo_path, const char* path, uint64_t want_dev,
               char* scratch, size_t scratch_bytes, MountFields* out) {
  size_t best = 0;
  bool found = false;
  bool found_dev = false;
  char mount_point[sizeof out->mount_point];
  const auto by_prefix = [&](std::string_view text) {
    Line l;
    if (!ParseLine(text, &l)) return;
    UnescapeTo(l.mount_point, mount_point, sizeof mount_point);
    const size_t len = std::strlen(mount_point);
    if (!Holds(mount_point, path) || (found && len < best)) return;
    Fill(l, mount_point, out);
    best = len;
    found = true;
    found_dev = want_dev != 0 && makedev(l.major, l.minor) == want_dev;
  };
  if (!ForEachLine(mountinfo_path, scratch, scratch_bytes, by_prefix)) {
    return false;
  }
  if (want_dev == 0 || found_dev) return found;
  // The prefix match is another device: the path crosses a symbolic link.
  bool by_dev_found = false;
  const auto by_dev = [&](std::string_view text) {
    Line l;
    if (!ParseLine(text, &l) || makedev(l.major, l.minor) != want_dev) return;
    UnescapeTo(l.mount_point, mount_point, sizeof mount_point);
    Fill(l, mount_point, out);
    by_dev_found = true;
  };
  // `out` keeps the prefix match unless a line of the device replaces it.
  ForEachLine(mountinfo_path, scratch, scratch_bytes, by_dev);
  return found || by_dev_found;
}

void ReadBlockDevice(const char* root, MountFields* m) {
  char link[kPathBytes];
  if (m->major != 0) {
    std::snprintf(link, sizeof link, "%s/sys/dev/block/%u:%u", root, m->major,
                  m->minor);
  } else if (std::strncmp(m->source, "/dev/", 5) == 0) {
    // btrfs and others show an anonymous device; the source names the disk.
    std::snprintf(link, sizeof link, "%s/sys/class/block/%s", root,
                  std::strrchr(m->source, '/') + 1);
  } else {
    return;  // network, overlay, tmpfs: no local block device
  }
  char target[kPathBytes];
  const ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return;
  target[n] = '\0';
  // The link is relative to its directory: /sys/dev/block or
  // /sys/class/block.
  char disk[kPathBytes];
  const char* slash = std::strrchr(link, '/');
  const size_t root_len = std::strlen(root);
  const int written = std::snprintf(
      disk, sizeof disk, "%.*s/%s",
      static_cast<int>(slash - link - static_cast<long>(root_len)),
      link + root_len, target);
  if (written < 0 || static_cast<size_t>(written) >= sizeof disk) return;
  NormalizePath(disk);
  char path[kPathBytes + 64];
  struct stat st;
  std::snprintf(path, sizeof path, "%s%s/partition", root, disk);
  if (stat(path, &st) == 0) *std::strrchr(disk, '/') = '\0';
  CopyTo(std::strrchr(disk, '/') + 1, m->block_device, sizeof m->block_device);
  std::snprintf(path, sizeof path, "%s%s/queue/rotational", root, disk);
  char value[256];
  ReadText(path, value, sizeof value);
  if (value[0] == '0' || value[0] == '1') {
    m->disk_kind = value[0] == '1' ? 2 : 1;
  }
  std::snprintf(path, sizeof path, "%s%s/queue/scheduler", root, disk);
  ReadText(path, value, sizeof value);
  const char* open = std::strchr(value, '[');
  const char* close = open != nullptr ? std::strchr(open, ']') : nullptr;
  if (open != nullptr && close != nullptr) {
    CopyTo(std::string_view(open + 1, static_cast<size_t>(close - open - 1)),
           m->scheduler, sizeof m->scheduler);
  } else {
    CopyTo(value, m->scheduler, sizeof m->scheduler);
  }
}

}  // namespace feedprof::preload::host
