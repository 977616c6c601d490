#include "preload/python/python_runtime.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "preload/trace_clock.h"

namespace feedprof::preload::python {
namespace {

// How often to look for an initialized interpreter again: often at first
// (an interpreter starts within tens of milliseconds), then rarely (a
// program that is not Python, or embeds one late).
constexpr uint64_t kTrySoonNs = 20000000;
constexpr uint64_t kTryLaterNs = 1000000000;
constexpr uint32_t kSoonTries = 250;  // 5 s

uint64_t SymbolAddress(const char* name) {
  return reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, name));
}

// "3.10.13 (main, ...)" to 0x030A0D00; 0 when it does not parse.
uint32_t ParseVersion(const char* text) {
  if (text == nullptr) return 0;
  char* end = nullptr;
  const unsigned long major = std::strtoul(text, &end, 10);
  if (end == text || *end != '.') return 0;
  const char* minor_text = end + 1;
  const unsigned long minor = std::strtoul(minor_text, &end, 10);
  if (end == minor_text || major > 255 || minor > 255) return 0;
  unsigned long micro = 0;
  if (*end == '.') micro = std::strtoul(end + 1, nullptr, 10) & 0xFF;
  return static_cast<uint32_t>((major << 24) | (minor << 16) | (micro << 8));
}

}  // namespace

PythonRuntime& Runtime() {
  alignas(PythonRuntime) static unsigned char storage[sizeof(PythonRuntime)];
  static PythonRuntime* runtime = new (storage) PythonRuntime();
  return *runtime;
}

void PythonRuntime::Fail(const char* why, uint32_t version_hex) {
  char version[16];
  FormatPythonVersion(version_hex, version, sizeof version);
  std::snprintf(why_, sizeof why_, "CPython %s: %s", version, why);
  state_.store(RuntimeState::kUnsupported, std::memory_order_release);
}

RuntimeState PythonRuntime::Resolve() {
  const RuntimeState now = state_.load(std::memory_order_acquire);
  if (now != RuntimeState::kNotYet) return now;
  // Looking up symbols costs microseconds: not on every blocking CUDA call
  // of a program that is not Python (yet).
  const uint64_t time = MonotonicNs();
  if (time < next_try_ns_.load(std::memory_order_relaxed)) {
    return RuntimeState::kNotYet;
  }
  if (resolving_.exchange(true, std::memory_order_acquire)) {
    return RuntimeState::kNotYet;
  }
  RuntimeState result = RuntimeState::kNotYet;
  runtime_ = SymbolAddress("_PyRuntime");
  auto* is_initialized =
      reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  if (runtime_ == 0 || is_initialized == nullptr) {
    // The interpreter may be dlopen'ed later (an embedding host): only a
    // program that never maps one stays "not Python", which the caller
    // decides by asking again later.
    result = RuntimeState::kNotYet;
  } else if (is_initialized() != 0) {
    const auto* py_version = reinterpret_cast<const unsigned long*>(
        dlsym(RTLD_DEFAULT, "Py_Version"));
    uint32_t version = 0;
    if (py_version != nullptr) {
      version = static_cast<uint32_t>(*py_version);
    } else {
      auto* get_version = reinterpret_cast<const char* (*)()>(
          dlsym(RTLD_DEFAULT, "Py_GetVersion"));
      version = get_version != nullptr ? ParseVersion(get_version()) : 0;
    }
    version_hex_ = version;
    code_type_ = SymbolAddress("PyCode_Type");
    unicode_type_ = SymbolAddress("PyUnicode_Type");
    bytes_type_ = SymbolAddress("PyBytes_Type");
    this_thread_state_ = reinterpret_cast<void* (*)()>(
        dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState"));
    if (code_type_ == 0 || unicode_type_ == 0 || bytes_type_ == 0 ||
        this_thread_state_ == nullptr) {
      Fail("its type objects or thread-state lookup are not exported", version);
      result = RuntimeState::kUnsupported;
    } else if (ResolveLayout(version)) {
      result = RuntimeState::kReady;
    } else {
      result = RuntimeState::kUnsupported;
    }
  }
  if (result != RuntimeState::kNotYet) {
    state_.store(result, std::memory_order_release);
  } else {
    next_try_ns_.store(
        time + (++tries_ <= kSoonTries ? kTrySoonNs : kTryLaterNs),
        std::memory_order_relaxed);
  }
  resolving_.store(false, std::memory_order_release);
  return result;
}

bool PythonRuntime::ResolveLayout(uint32_t version_hex) {
  if (const PythonLayout* built_in = BuiltInLayout(version_hex)) {
    layout_ = *built_in;
    layout_.version_hex = version_hex;
    return true;
  }
  if (version_hex < 0x030A0000) {
    Fail("Python frames are read from 3.10 on; native frames only",
         version_hex);
    return false;
  }
  // 3.13 and later describe themselves. _PyRuntime is the interpreter's
  // own static state: always mapped, read directly.
  const char* why = "";
  if (!LayoutFromDebugOffsets(reinterpret_cast<const uint8_t*>(runtime_),
                              kDebugOffsetsBytes, &layout_, &why)) {
    Fail(why, version_hex);
    return false;
  }
  return true;
}

uint64_t PythonRuntime::ThisThreadState() const {
  if (state() != RuntimeState::kReady) return 0;
  return reinterpret_cast<uint64_t>(this_thread_state_());
}

}  // namespace feedprof::preload::python
