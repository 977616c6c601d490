// Reads the innermost Python frames of the calling thread, when the
// process runs CPython, without linking libpython.
//
// A blocking CUDA call in a PyTorch program is issued from C++, but the
// line the user can change is the Python line that called `.item()` or
// `.to(device)`. The interpreter's own stable C API (Python 3.9+:
// PyThreadState_GetFrame, PyFrame_GetCode, PyFrame_GetBack,
// PyFrame_GetLineNumber) is looked up with dlsym in the running process;
// nothing is done unless the interpreter is initialized and the calling
// thread holds the GIL (PyGILState_Check), so no Python object is touched
// without the lock that protects it. The hot path records (code object,
// line) pairs only; turning a code object into file and function names is
// a separate step taken once per new call site.
#ifndef FEEDPROF_CUPTI_HOOKS_PYTHON_FRAMES_H_
#define FEEDPROF_CUPTI_HOOKS_PYTHON_FRAMES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace feedprof::cupti {

class PythonFrames {
 public:
  // Looks the C API up in the process (cheap after the first call). True
  // when CPython >= 3.9 is loaded and initialized.
  bool Available();

  // Innermost frames of this thread, innermost first: code object address
  // and current line. Returns 0 without the GIL or without Python.
  uint32_t Capture(uint64_t* code, uint32_t* line, uint32_t max);

  // File and function (qualified when the interpreter has co_qualname) of
  // a code object captured by this thread just now, GIL still held.
  bool Describe(uint64_t code, char* file, size_t file_size, char* function,
                size_t function_size);

 private:
  using PyObject = void;
  enum State : int { kUnknown, kResolving, kAvailable, kAbsent };

  bool Resolve();

  std::atomic<int> state_{kUnknown};
  int (*is_initialized_)() = nullptr;
  int (*gil_check_)() = nullptr;
  int (*is_finalizing_)() = nullptr;  // optional
  PyObject* (*this_thread_state_)() = nullptr;
  PyObject* (*thread_state_get_frame_)(PyObject*) = nullptr;
  PyObject* (*frame_get_code_)(PyObject*) = nullptr;
  PyObject* (*frame_get_back_)(PyObject*) = nullptr;
  int (*frame_get_line_number_)(PyObject*) = nullptr;
  void (*dec_ref_)(PyObject*) = nullptr;
  PyObject* (*get_attr_string_)(PyObject*, const char*) = nullptr;
  const char* (*unicode_as_utf8_)(PyObject*) = nullptr;
  void (*err_clear_)() = nullptr;
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_PYTHON_FRAMES_H_
