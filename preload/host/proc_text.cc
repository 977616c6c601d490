#include "preload/host/proc_text.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "preload/own_io.h"
#include "preload/private_fd.h"

namespace feedprof::preload::host {

long ReadFileAt(int dir_fd, const char* path, char* buf, size_t cap) {
  if (cap == 0) return -1;
  const int fd = OpenPrivate(dir_fd, path, O_RDONLY | O_NOCTTY);
  if (fd < 0) return -1;
  const long n = PreadText(fd, buf, cap);
  close(fd);
  return n;
}

int OpenPrivate(int dir_fd, const char* path, int flags) {
  int fd;
  do {
    fd = openat(dir_fd, path, flags | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  return MoveToPrivateFd(fd);
}

long PreadText(int fd, char* buf, size_t cap) {
  if (cap == 0) return -1;
  size_t used = 0;
  while (used + 1 < cap) {
    const ssize_t n =
        OwnPread(fd, buf + used, cap - 1 - used, static_cast<off_t>(used));
    if (n < 0) {
      if (errno == EINTR) continue;
      buf[0] = '\0';
      return -1;
    }
    // A seq_file answers a read with at most one buffer of records: only
    // 0 means the end.
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  buf[used] = '\0';
  return static_cast<long>(used);
}

long ReadFile(const char* path, char* buf, size_t cap) {
  return ReadFileAt(AT_FDCWD, path, buf, cap);
}

std::string_view ReadAttribute(const char* path, char* buf, size_t cap) {
  const long n = ReadFile(path, buf, cap);
  if (n <= 0) return {};
  return Trim(std::string_view(buf, static_cast<size_t>(n)));
}

bool ParseUint(std::string_view s, uint64_t* out) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') break;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

bool ParseHex(std::string_view s, uint64_t* out) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  size_t digits = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      break;
    }
    v = (v << 4) | static_cast<uint64_t>(d);
    ++digits;
  }
  if (digits == 0) return false;
  *out = v;
  return true;
}

bool ParseDecimal(std::string_view s, double* out) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  double v = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    v = v * 10 + (s[i] - '0');
  }
  if (i < s.size() && s[i] == '.') {
    double scale = 0.1;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      v += (s[i] - '0') * scale;
      scale *= 0.1;
    }
  }
  *out = v;
  return true;
}

namespace {
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view NextToken(std::string_view* s) {
  std::string_view& t = *s;
  while (!t.empty() && IsSpace(t.front())) t.remove_prefix(1);
  size_t n = 0;
  while (n < t.size() && !IsSpace(t[n])) ++n;
  const std::string_view token = t.substr(0, n);
  t.remove_prefix(n);
  return token;
}

std::string_view NextPart(std::string_view* s, char separator) {
  std::string_view& t = *s;
  const size_t end = t.find(separator);
  const std::string_view part = t.substr(0, end);
  t.remove_prefix(end == std::string_view::npos ? t.size() : end + 1);
  return part;
}

std::string_view FindKeyValue(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const std::string_view line = NextLine(&text);
    if (line.size() > key.size() && line.substr(0, key.size()) == key) {
      // "Key:" or, as in /proc/cpuinfo, "key name\t: value".
      size_t colon = key.size();
      while (colon < line.size() &&
             (line[colon] == ' ' || line[colon] == '\t')) {
        ++colon;
      }
      if (colon < line.size() && line[colon] == ':') {
        return Trim(line.substr(colon + 1));
      }
    }
  }
  return {};
}

bool FindKeyUint(std::string_view text, std::string_view key, uint64_t* out) {
  return ParseUint(FindKeyValue(text, key), out);
}

}  // namespace feedprof::preload::host
