#include "preload/log.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "preload/own_io.h"

namespace feedprof::preload {
namespace {

constinit std::atomic<uint8_t> g_level{static_cast<uint8_t>(LogLevel::kInfo)};

void WriteLine(const char* format, va_list args) {
  const int saved_errno = errno;
  char line[512];
  constexpr char kPrefix[] = "feedprof: ";
  constexpr size_t kPrefixLen = sizeof kPrefix - 1;
  std::memcpy(line, kPrefix, kPrefixLen);
  const size_t room = sizeof line - kPrefixLen - 1;  // keep one for '\n'
  int n = std::vsnprintf(line + kPrefixLen, room + 1, format, args);
  size_t len = kPrefixLen;
  if (n > 0)
    len += static_cast<size_t>(n) < room ? static_cast<size_t>(n) : room;
  line[len++] = '\n';
  const char* p = line;
  while (len > 0) {
    ssize_t w = OwnWrite(STDERR_FILENO, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    p += w;
    len -= static_cast<size_t>(w);
  }
  errno = saved_errno;
}

}  // namespace

void SetLogLevel(LogLevel level) {
  g_level.store(static_cast<uint8_t>(level), std::memory_order_relaxed);
}

LogLevel CurrentLogLevel() {
  return static_cast<LogLevel>(g_level.load(std::memory_order_relaxed));
}

void LogWarning(const char* format, ...) {
  va_list args;
  va_start(args, format);
  WriteLine(format, args);
  va_end(args);
}

void LogInfo(const char* format, ...) {
  if (CurrentLogLevel() < LogLevel::kInfo) return;
  va_list args;
  va_start(args, format);
  WriteLine(format, args);
  va_end(args);
}

void LogDebug(const char* format, ...) {
  if (CurrentLogLevel() < LogLevel::kDebug) return;
  va_list args;
  va_start(args, format);
  WriteLine(format, args);
  va_end(args);
}

}  // namespace feedprof::preload
