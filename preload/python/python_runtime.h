// The CPython interpreter running in this process, if any: where its
// runtime state is, which layout its structures have, and the addresses of
// the type objects that tell a code object or a string from garbage.
//
// Found with dlsym in the running process, so it works whether the
// `python3` executable embeds libpython (Debian, pyenv by default) or loads
// it as a shared library (conda, pyenv --enable-shared), and costs nothing
// in a program that is not Python. The version comes from `Py_Version`
// (3.11+) or `Py_GetVersion()` (3.10, called once); 3.13+ layouts come from
// the interpreter's own `_Py_DebugOffsets`. Nothing here takes the GIL or
// touches a reference count.
#ifndef FEEDPROF_PRELOAD_PYTHON_PYTHON_RUNTIME_H_
#define FEEDPROF_PRELOAD_PYTHON_PYTHON_RUNTIME_H_

#include <atomic>
#include <cstdint>

#include "preload/python/python_layout.h"

namespace feedprof::preload::python {

enum class RuntimeState : uint8_t {
  kNotYet,       // no interpreter yet, or not initialized: look again later
  kReady,        // layout known
  kNotPython,    // the process has no CPython
  kUnsupported,  // a CPython whose layout feedprof does not know (why())
};

class PythonRuntime {
 public:
  // Looks the interpreter up; cheap once the state is final, and while
  // there is none looked for again only every 20 ms for 5 s, then every
  // second. Thread-safe: the first caller resolves, others see kNotYet
  // meanwhile.
  RuntimeState Resolve();
  RuntimeState state() const { return state_.load(std::memory_order_acquire); }
  // Why stacks are off, for kUnsupported ("CPython 3.14: ...").
  const char* why() const { return why_; }

  const PythonLayout& layout() const { return layout_; }
  // PY_VERSION_HEX of the interpreter found (also when unsupported); 0
  // before.
  uint32_t version_hex() const { return version_hex_; }
  uint64_t runtime_address() const { return runtime_; }
  // Type objects, to validate what was read.
  uint64_t code_type() const { return code_type_; }
  uint64_t unicode_type() const { return unicode_type_; }
  uint64_t bytes_type() const { return bytes_type_; }

  // The calling thread's PyThreadState, or 0 (a thread that never ran
  // Python). Reads the interpreter's thread-specific slot: no GIL needed.
  uint64_t ThisThreadState() const;

 private:
  bool ResolveLayout(uint32_t version_hex);
  void Fail(const char* why, uint32_t version_hex);

  std::atomic<RuntimeState> state_{RuntimeState::kNotYet};
  std::atomic<bool> resolving_{false};
  // When to look again while kNotYet, and how often it was looked for.
  std::atomic<uint64_t> next_try_ns_{0};
  uint32_t tries_ = 0;  // under resolving_
  PythonLayout layout_;
  uint64_t runtime_ = 0;
  uint32_t version_hex_ = 0;
  uint64_t code_type_ = 0;
  uint64_t unicode_type_ = 0;
  uint64_t bytes_type_ = 0;
  void* (*this_thread_state_)() = nullptr;
  char why_[200] = {};
};

// The process's interpreter (one per process; never destroyed).
PythonRuntime& Runtime();

}  // namespace feedprof::preload::python

#endif  // FEEDPROF_PRELOAD_PYTHON_PYTHON_RUNTIME_H_
