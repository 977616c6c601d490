#include "preload/config.h"

#include <strings.h>

#include <cstdlib>
#include <cstring>

namespace feedprof::preload {
namespace {

bool ParseUnsigned(const char* text, uint64_t* out) {
  if (text[0] < '0' || text[0] > '9') return false;
  uint64_t v = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + static_cast<uint64_t>(*p - '0');
  }
  *out = v;
  return true;
}

void ParseRange(const char* name, const char* text, uint32_t lo, uint32_t hi,
                uint32_t* value, int* warnings) {
  if (text == nullptr) return;
  uint64_t v = 0;
  if (ParseUnsigned(text, &v) && v >= lo && v <= hi) {
    *value = static_cast<uint32_t>(v);
    return;
  }
  LogWarning("%s=\"%.64s\" is not a whole number in %u..%u; using %u", name,
             text, lo, hi, *value);
  ++*warnings;
}

void CopyPath(const char* name, const char* text, char* out, size_t size,
              int* warnings) {
  if (text == nullptr || text[0] == '\0') return;
  const size_t len = std::strlen(text);
  if (len >= size) {
    LogWarning("%s is longer than %zu bytes; ignoring it", name, size - 1);
    ++*warnings;
    return;
  }
  std::memcpy(out, text, len + 1);
}

}  // namespace

void ParseConfig(EnvLookup lookup, void* context, Config* config) {
  *config = Config{};
  int* warnings = &config->warnings;

  if (const char* v = lookup(context, kEnvLogLevel); v != nullptr) {
    if (strcasecmp(v, "quiet") == 0) {
      config->log_level = LogLevel::kQuiet;
    } else if (strcasecmp(v, "info") == 0) {
      config->log_level = LogLevel::kInfo;
    } else if (strcasecmp(v, "debug") == 0) {
      config->log_level = LogLevel::kDebug;
    } else {
      LogWarning("%s=\"%.64s\" is not one of quiet, info, debug; using info",
                 kEnvLogLevel, v);
      ++*warnings;
    }
  }

  if (const char* v = lookup(context, kEnvDisable); v != nullptr) {
    if (strcasecmp(v, "1") == 0 || strcasecmp(v, "true") == 0 ||
        strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0) {
      config->disabled = true;
    } else if (v[0] == '\0' || strcasecmp(v, "0") == 0 ||
               strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0 ||
               strcasecmp(v, "off") == 0) {
      config->disabled = false;
    } else {
      LogWarning("%s=\"%.64s\" is not 1/true or 0/false; recording stays on",
                 kEnvDisable, v);
      ++*warnings;
    }
  }

  ParseRange(kEnvSamplingHz, lookup(context, kEnvSamplingHz), kMinSamplingHz,
             kMaxSamplingHz, &config->sampling_hz, warnings);
  ParseRange(kEnvPythonStacksHz, lookup(context, kEnvPythonStacksHz),
             kMinPythonStacksHz, kMaxSamplingHz, &config->python_stacks_hz,
             warnings);
  ParseRange(kEnvBufferMb, lookup(context, kEnvBufferMb), kMinBufferMb,
             kMaxBufferMb, &config->buffer_mb, warnings);
  const int warnings_before = *warnings;
  ParseRange(kEnvFlushIntervalMs, lookup(context, kEnvFlushIntervalMs),
             kMinFlushIntervalMs, kMaxFlushIntervalMs,
             &config->flush_interval_ms, warnings);
  config->flush_interval_set =
      lookup(context, kEnvFlushIntervalMs) != nullptr &&
      *warnings == warnings_before;
  CopyPath(kEnvOutputDir, lookup(context, kEnvOutputDir), config->output_dir,
           sizeof config->output_dir, warnings);
  CopyPath(kEnvSessionDir, lookup(context, kEnvSessionDir), config->session_dir,
           sizeof config->session_dir, warnings);
}

void ConfigFromEnvironment(Config* config) {
  ParseConfig(
      [](void*, const char* name) -> const char* { return std::getenv(name); },
      nullptr, config);
}

}  // namespace feedprof::preload
