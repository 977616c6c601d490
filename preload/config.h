// Configuration of the injected library, read once from FEEDPROF_*
// environment variables.
//
// The library has no command line of its own: `feedprof record` and users
// configure it through the environment, which exec'd children inherit. A
// value that does not parse must never stop the host program, so each bad
// value costs one warning line and falls back to its default.
#ifndef FEEDPROF_PRELOAD_CONFIG_H_
#define FEEDPROF_PRELOAD_CONFIG_H_

#include <climits>
#include <cstdint>

#include "preload/log.h"

namespace feedprof::preload {

// Names of the variables (documented in docs/recording.md).
inline constexpr char kEnvOutputDir[] = "FEEDPROF_OUTPUT_DIR";
inline constexpr char kEnvSessionDir[] = "FEEDPROF_SESSION_DIR";
inline constexpr char kEnvDisable[] = "FEEDPROF_DISABLE";
inline constexpr char kEnvSamplingHz[] = "FEEDPROF_SAMPLING_HZ";
inline constexpr char kEnvBufferMb[] = "FEEDPROF_BUFFER_MB";
inline constexpr char kEnvLogLevel[] = "FEEDPROF_LOG_LEVEL";
inline constexpr char kEnvFlushIntervalMs[] = "FEEDPROF_FLUSH_INTERVAL_MS";
inline constexpr char kEnvPythonStacksHz[] = "FEEDPROF_PYTHON_STACKS_HZ";

struct Config {
  bool disabled = false;
  // Directory chosen by the user (FEEDPROF_OUTPUT_DIR); empty: default.
  char output_dir[PATH_MAX] = {};
  // Directory of the session this process joins, exported by the process
  // that created it (FEEDPROF_SESSION_DIR); empty: none.
  char session_dir[PATH_MAX] = {};
  uint32_t sampling_hz = 100;
  // Python stacks sampled per second (0: none); at most sampling_hz.
  uint32_t python_stacks_hz = 100;
  uint32_t buffer_mb = 32;
  uint32_t flush_interval_ms = 1000;
  // FEEDPROF_FLUSH_INTERVAL_MS was given (and valid).
  bool flush_interval_set = false;
  LogLevel log_level = LogLevel::kInfo;
  // Number of values that did not parse (one warning each).
  int warnings = 0;

  uint64_t sampling_interval_ns() const { return 1000000000ull / sampling_hz; }
  // Host sampling rounds between two Python stack samples; 0: none.
  uint32_t python_stack_every_rounds() const {
    if (python_stacks_hz == 0) return 0;
    const uint32_t every =
        (sampling_hz + python_stacks_hz / 2) / python_stacks_hz;
    return every == 0 ? 1 : every;
  }
};

// A forked child usually ends with _exit (multiprocessing and PyTorch
// DataLoader workers do), which runs no exit handler: what it recorded
// since its last flush is lost. Forked children therefore submit host
// samples this often, and flush this often unless FEEDPROF_FLUSH_INTERVAL_MS
// was given.
// A child that stays trivial still leaves no file (trace_writer.cc).
inline constexpr uint32_t kForkedChildFlushIntervalMs = 200;

inline constexpr uint32_t kMinSamplingHz = 1;
inline constexpr uint32_t kMaxSamplingHz = 10000;
inline constexpr uint32_t kMinPythonStacksHz = 0;
inline constexpr uint32_t kMinBufferMb = 1;
inline constexpr uint32_t kMaxBufferMb = 16384;
inline constexpr uint32_t kMinFlushIntervalMs = 10;
inline constexpr uint32_t kMaxFlushIntervalMs = 3600 * 1000;

// Returns the value of environment variable `name`, or nullptr.
using EnvLookup = const char* (*)(void* context, const char* name);

// Parses the configuration from `lookup`; prints one `feedprof:` warning per
// bad value and uses the default for it.
void ParseConfig(EnvLookup lookup, void* context, Config* config);

// ParseConfig over the process environment.
void ConfigFromEnvironment(Config* config);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_CONFIG_H_
