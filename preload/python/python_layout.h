// Where CPython keeps a thread's frames, per interpreter version.
//
// A Python stack is read from the interpreter's own structures (threads,
// frames, code objects, strings) without its C API, which would need the
// GIL. Their layout is private and changes with every minor version, so
// each supported version has a table of field offsets: 3.10, 3.11 and
// 3.12 from their headers (x86-64 and aarch64 Linux, release builds); 3.13
// from the `_Py_DebugOffsets` the interpreter keeps at the start of
// `_PyRuntime` for debuggers, checked by its cookie and version. Any other
// version gets no layout, and the caller records no Python frames.
#ifndef FEEDPROF_PRELOAD_PYTHON_PYTHON_LAYOUT_H_
#define FEEDPROF_PRELOAD_PYTHON_PYTHON_LAYOUT_H_

#include <cstddef>
#include <cstdint>

namespace feedprof::preload::python {

// How frames are linked.
enum class FrameModel : uint8_t {
  // 3.10: heap PyFrameObjects linked by f_back; the instruction is f_lasti
  // (an index of 2-byte code units into co_code).
  kFrameObjects,
  // 3.11+: _PyInterpreterFrames in the thread's data stack (or inside
  // generator objects) linked by `previous`; the instruction is a pointer
  // into the code object's own bytecode.
  kInterpreterFrames,
};

// How a code object maps bytecode offsets to lines.
enum class LineTableFormat : uint8_t {
  kLineTable310,  // co_linetable: (byte delta, line delta) pairs
  kLocations311,  // co_linetable: the 3.11+ location table
};

struct PythonLayout {
  uint32_t version_hex = 0;  // PY_VERSION_HEX
  FrameModel frame_model = FrameModel::kInterpreterFrames;
  LineTableFormat line_table = LineTableFormat::kLocations311;

  // _PyRuntimeState
  uint32_t runtime_interpreters_head = 0;
  uint32_t runtime_finalizing = 0;
  // PyInterpreterState
  uint32_t interp_next = 0;
  uint32_t interp_threads_head = 0;
  // PyThreadState
  uint32_t tstate_next = 0;
  uint32_t tstate_thread_id = 0;         // pthread_self() of the thread
  uint32_t tstate_native_thread_id = 0;  // 0: not kept (3.10)
  // The current frame: at tstate_frame directly, or, when tstate_cframe
  // is set, at cframe_current_frame inside the _PyCFrame it points to.
  uint32_t tstate_frame = 0;
  uint32_t tstate_cframe = 0;
  uint32_t cframe_current_frame = 0;
  // The data stack chunk the newest frames live in, and its top (3.11+;
  // 0 when unknown): the sampler reads the frames there in one piece.
  uint32_t tstate_datastack_chunk = 0;
  uint32_t tstate_datastack_top = 0;
  // Bytes of PyThreadState read at once (covers every field above).
  uint32_t tstate_read_size = 0;

  // Frames (PyFrameObject for 3.10, _PyInterpreterFrame after).
  uint32_t frame_previous = 0;
  uint32_t frame_code = 0;
  uint32_t frame_instruction = 0;  // f_lasti (int) or the instruction pointer
  uint32_t frame_owner = 0;        // 0: none (3.10)
  uint32_t frame_read_size = 0;
  // Values of frame_owner (3.11+): a frame owned by the C stack is a shim
  // of the interpreter's own, not Python code (3.12+; -1 when none).
  int32_t owner_cstack = -1;

  // PyCodeObject
  uint32_t code_filename = 0;
  uint32_t code_name = 0;
  uint32_t code_qualname = 0;  // 0: none (3.10)
  uint32_t code_firstlineno = 0;
  uint32_t code_linetable = 0;
  uint32_t code_bytecode = 0;   // co_code (a bytes object) in 3.10
  uint32_t code_adaptive = 0;   // co_code_adaptive (inline bytecode), 3.11+
  uint32_t code_read_size = 0;  // bytes from the start covering the above

  // PyVarObject, PyBytesObject, PyASCIIObject/PyCompactUnicodeObject
  uint32_t var_size = 16;
  uint32_t bytes_data = 32;
  uint32_t unicode_length = 16;
  uint32_t unicode_state = 32;
  uint32_t unicode_ascii_data = 0;    // sizeof(PyASCIIObject)
  uint32_t unicode_compact_data = 0;  // sizeof(PyCompactUnicodeObject)
};

// The built-in layout of a CPython minor version (3.10 to 3.12; the patch
// level is ignored), or nullptr.
const PythonLayout* BuiltInLayout(uint32_t version_hex);

// The 3.13 layout from the `_Py_DebugOffsets` bytes at the start of
// `_PyRuntime` (`size` of them readable). False with the reason in
// `*why` when the cookie is wrong or the version is not one whose
// debug-offsets structure is known.
bool LayoutFromDebugOffsets(const uint8_t* bytes, size_t size,
                            PythonLayout* out, const char** why);

// Bytes of _PyRuntime to read for LayoutFromDebugOffsets.
inline constexpr size_t kDebugOffsetsBytes = 640;

// "3.12" of a PY_VERSION_HEX, for messages.
void FormatPythonVersion(uint32_t version_hex, char* out, size_t size);

}  // namespace feedprof::preload::python

#endif  // FEEDPROF_PRELOAD_PYTHON_PYTHON_LAYOUT_H_
