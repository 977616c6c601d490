// One-line diagnostics on stderr, prefixed "feedprof: ".
//
// The injected library shares stderr with the host program, so every line it
// prints must be recognisable (tests filter on the prefix) and written with a
// single write(2) so it never interleaves with the host's output. Formatting
// uses a stack buffer: no allocation, no stdio locks, usable from any thread
// except a signal handler.
#ifndef FEEDPROF_PRELOAD_LOG_H_
#define FEEDPROF_PRELOAD_LOG_H_

#include <cstdint>

namespace feedprof::preload {

enum class LogLevel : uint8_t {
  kQuiet = 0,  // warnings and errors only
  kInfo = 1,   // plus one-time facts (trace path, injection paths)
  kDebug = 2,  // plus lifecycle details
};

// Messages above this level are not printed. Set once from the config.
void SetLogLevel(LogLevel level);
LogLevel CurrentLogLevel();

// Always printed: something the user should act on.
void LogWarning(const char* format, ...) __attribute__((format(printf, 1, 2)));
void LogInfo(const char* format, ...) __attribute__((format(printf, 1, 2)));
void LogDebug(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_LOG_H_
