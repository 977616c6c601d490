// Which frames of a Python stack are the user's code.
//
// A stack a CUDA call was issued from runs from the interpreter's start
// through the user's script into the framework: `torch/cuda/__init__.py`,
// then a C function such as `<built-in function _cuda_synchronize>`. The
// line to change is the innermost one the user wrote or chose to call, so a
// report names the innermost frame outside the Python standard library and
// the frameworks (docs/metrics.md, "Call sites"). Other libraries
// (transformers, numpy, PIL) count as the user's: a slow call into them is
// a choice the user can change.
#ifndef FEEDPROF_ANALYSIS_USER_CODE_H_
#define FEEDPROF_ANALYSIS_USER_CODE_H_

#include <string_view>

#include "feedprof/analysis_report.h"

namespace feedprof::analysis {

// Whether a Python frame's file is the user's code: false for no file (C
// functions, "<string>", "<frozen ...>"), for the standard library (a
// relative path whose first part is a standard module, as the PyTorch
// profiler writes paths, or a file under a "pythonX.Y" directory outside
// site-packages) and for the frameworks (torch, torchvision, torchaudio,
// triton, jax, jaxlib, tensorflow, keras).
// `rule` (UserCodeRule) overrides that first.
bool IsUserPythonFile(std::string_view file, const UserCodeRule& rule = {});

// Whether a native module is the user's code: false for the system's
// libraries (under /lib, /usr/lib, the CUDA toolkit), the C and C++
// runtimes, CUDA's libraries, the Python interpreter, PyTorch's native
// libraries, MPI and the interconnects' libraries and the kernel; true for
// the rest (the program, its own libraries).
bool IsUserNativeModule(std::string_view module, const UserCodeRule& rule = {});

// The frame a report names for a Python stack: the first of [innermost,
// end) (innermost first) that `is_user` says is the user's code, else the
// innermost. The stack must not be empty.
template <typename Iterator, typename IsUser>
Iterator InnermostUserFrame(Iterator innermost, Iterator end, IsUser is_user) {
  for (Iterator it = innermost; it != end; ++it) {
    if (is_user(*it)) return it;
  }
  return innermost;
}

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_USER_CODE_H_
