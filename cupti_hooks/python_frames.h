// Reads the innermost Python frames of the calling thread, when the
// process runs CPython, without the GIL.
//
// A blocking CUDA call in a PyTorch program is issued from C++, but the
// line the user can change is the Python line that called `.item()` or
// `.to(device)` — and PyTorch releases the GIL around such calls. So the
// frames are read from the interpreter's own structures
// (preload/python/): the thread's state from the interpreter's
// thread-specific slot, then its frame chain, with plain loads. That is
// safe because only the owning thread pushes and pops its frames, and it
// is sitting in the call; each code object is still checked against the
// code type before it is described. No Python API, no allocation, no
// reference count, no lock. The hot path records (code object, bytecode
// offset, code identity) triples; file, function and line are decoded once
// per new call site.
#ifndef FEEDPROF_CUPTI_HOOKS_PYTHON_FRAMES_H_
#define FEEDPROF_CUPTI_HOOKS_PYTHON_FRAMES_H_

#include <cstddef>
#include <cstdint>

namespace feedprof::cupti {

class PythonFrames {
 public:
  // Innermost frames of this thread, innermost first: code object address,
  // byte offset of the current instruction, and a value that changes when
  // another code object reuses the address. Returns 0 without Python (or
  // with a CPython whose layout is unknown; UnsupportedReason() says why).
  uint32_t Capture(uint64_t* code, uint32_t* offset, uint64_t* identity,
                   uint32_t max);

  // File, function (qualified from 3.11) and line of a frame this thread
  // captured and is still in.
  bool Describe(uint64_t code, uint32_t offset, char* file, size_t file_size,
                char* function, size_t function_size, uint32_t* line);

  // Why Python frames are not read in this process (a CPython feedprof
  // cannot read), or nullptr.
  static const char* UnsupportedReason();
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_PYTHON_FRAMES_H_
