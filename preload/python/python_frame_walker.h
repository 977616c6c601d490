// Walks one thread's Python frames, innermost first: for each frame the
// code object's address and the byte offset of its current instruction.
//
// Templated on how memory is read: DirectMemory for the calling thread's
// own frames (call sites, process_memory.h), SafeMemory or a window over it
// for another thread's (the sampler). What was read is checked as it goes:
// pointers aligned and non-null, depth bounded, a frame never its own
// predecessor; shims of the interpreter (3.12+ frames owned by the C
// stack) and frames not started yet are skipped. Whether a code address
// really is a code object is the caller's check (it reads the object).
#ifndef FEEDPROF_PRELOAD_PYTHON_PYTHON_FRAME_WALKER_H_
#define FEEDPROF_PRELOAD_PYTHON_PYTHON_FRAME_WALKER_H_

#include <cstdint>
#include <cstring>

#include "preload/python/python_layout.h"

namespace feedprof::preload::python {

struct PythonFrameRef {
  uint64_t code = 0;
  // Byte offset of the instruction into the code object's bytecode; -1
  // when the frame has not started.
  int32_t offset = -1;
};

enum class WalkResult : uint8_t {
  kComplete,   // reached the outermost frame
  kTruncated,  // `max` frames taken, more follow
  kTorn,       // a read failed or read nonsense: the stack changed
};

// The innermost frame of thread state `tstate` (0 when it runs no Python),
// from the thread state bytes already read (`tstate_bytes`, at least
// layout.tstate_read_size of them). For 3.11 and 3.12 this takes one more
// read (the _PyCFrame).
template <typename Memory>
bool CurrentFrame(const PythonLayout& layout, const Memory& memory,
                  const uint8_t* tstate_bytes, uint64_t* frame) {
  uint64_t at = 0;
  if (layout.tstate_cframe != 0) {
    uint64_t cframe = 0;
    std::memcpy(&cframe, tstate_bytes + layout.tstate_cframe, sizeof cframe);
    if (cframe == 0) {
      *frame = 0;
      return true;
    }
    if ((cframe & 7) != 0 ||
        !memory.Read(cframe + layout.cframe_current_frame, &at, sizeof at)) {
      return false;
    }
  } else {
    std::memcpy(&at, tstate_bytes + layout.tstate_frame, sizeof at);
  }
  if ((at & 7) != 0) return false;
  *frame = at;
  return true;
}

template <typename Memory>
WalkResult WalkFrames(const PythonLayout& layout, const Memory& memory,
                      uint64_t frame, PythonFrameRef* out, uint32_t max,
                      uint32_t* count) {
  // Deeper than this is a loop or garbage, not a program (CPython's own
  // recursion limit defaults to 1000).
  constexpr uint32_t kMaxWalk = 4096;
  uint8_t bytes[128];
  *count = 0;
  const uint32_t read_size = layout.frame_read_size;
  if (read_size > sizeof bytes) return WalkResult::kTorn;
  const bool frame_objects = layout.frame_model == FrameModel::kFrameObjects;
  for (uint32_t walked = 0; frame != 0; ++walked) {
    if (walked >= kMaxWalk || (frame & 7) != 0) return WalkResult::kTorn;
    if (!memory.Read(frame, bytes, read_size)) return WalkResult::kTorn;
    uint64_t previous = 0;
    uint64_t code = 0;
    std::memcpy(&previous, bytes + layout.frame_previous, sizeof previous);
    std::memcpy(&code, bytes + layout.frame_code, sizeof code);
    if (previous == frame) return WalkResult::kTorn;
    bool python = code != 0;
    int64_t offset = -1;
    if (frame_objects) {
      int32_t lasti = 0;
      std::memcpy(&lasti, bytes + layout.frame_instruction, sizeof lasti);
      offset = lasti >= 0 ? int64_t{lasti} * 2 : -1;
    } else {
      const auto owner = static_cast<int8_t>(bytes[layout.frame_owner]);
      if (layout.owner_cstack >= 0 && owner == layout.owner_cstack) {
        python = false;
      }
      uint64_t instruction = 0;
      std::memcpy(&instruction, bytes + layout.frame_instruction,
                  sizeof instruction);
      const uint64_t start = code + layout.code_adaptive;
      offset =
          instruction >= start ? static_cast<int64_t>(instruction - start) : -1;
      // A frame just pushed (3.11: prev_instr before the first
      // instruction) has no line yet; it is still the frame being called.
      if (offset > (int64_t{1} << 30)) return WalkResult::kTorn;
    }
    if (python) {
      if ((code & 7) != 0) return WalkResult::kTorn;
      if (*count == max) return WalkResult::kTruncated;
      out[*count].code = code;
      out[*count].offset = static_cast<int32_t>(offset);
      ++*count;
    }
    frame = previous;
  }
  return WalkResult::kComplete;
}

}  // namespace feedprof::preload::python

#endif  // FEEDPROF_PRELOAD_PYTHON_PYTHON_FRAME_WALKER_H_
