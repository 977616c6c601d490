#include "preload/python/python_layout.h"

#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace feedprof::preload::python {
namespace {

// Offsets printed by offsetof() against each version's own headers
// (Include/internal with Py_BUILD_CORE), the same for 3.x.0 and every patch
// release of the minor version: CPython keeps internal layouts stable
// within one.
constexpr PythonLayout k310 = [] {
  PythonLayout l;
  l.version_hex = 0x030A0000;
  l.frame_model = FrameModel::kFrameObjects;
  l.line_table = LineTableFormat::kLineTable310;
  l.runtime_interpreters_head = 32;
  l.runtime_finalizing = 16;
  l.interp_next = 0;
  l.interp_threads_head = 8;
  l.tstate_next = 8;
  l.tstate_thread_id = 176;
  l.tstate_frame = 24;
  l.tstate_read_size = 184;
  l.frame_previous = 24;  // f_back
  l.frame_code = 32;
  l.frame_instruction = 96;  // f_lasti
  l.frame_read_size = 104;
  l.code_filename = 104;
  l.code_name = 112;
  l.code_firstlineno = 40;
  l.code_linetable = 120;
  l.code_bytecode = 48;
  l.code_read_size = 128;
  l.unicode_ascii_data = 48;
  l.unicode_compact_data = 72;
  return l;
}();

constexpr PythonLayout k311 = [] {
  PythonLayout l;
  l.version_hex = 0x030B0000;
  l.runtime_interpreters_head = 40;
  l.runtime_finalizing = 24;
  l.interp_next = 0;
  l.interp_threads_head = 16;
  l.tstate_next = 8;
  l.tstate_thread_id = 152;
  l.tstate_native_thread_id = 160;
  l.tstate_cframe = 56;
  l.cframe_current_frame = 8;
  l.tstate_datastack_chunk = 296;
  l.tstate_read_size = 304;
  l.frame_previous = 48;
  l.frame_code = 32;
  l.frame_instruction = 56;  // prev_instr
  l.frame_owner = 69;
  l.frame_read_size = 72;
  l.code_filename = 112;
  l.code_name = 120;
  l.code_qualname = 128;
  l.code_firstlineno = 72;
  l.code_linetable = 136;
  l.code_adaptive = 184;
  l.code_read_size = 144;
  l.unicode_ascii_data = 48;
  l.unicode_compact_data = 72;
  return l;
}();

constexpr PythonLayout k312 = [] {
  PythonLayout l;
  l.version_hex = 0x030C0000;
  l.runtime_interpreters_head = 40;
  l.runtime_finalizing = 24;
  l.interp_next = 0;
  l.interp_threads_head = 72;
  l.tstate_next = 8;
  l.tstate_thread_id = 136;
  l.tstate_native_thread_id = 144;
  l.tstate_cframe = 56;
  l.cframe_current_frame = 0;
  l.tstate_datastack_chunk = 232;
  l.tstate_read_size = 240;
  l.frame_previous = 8;
  l.frame_code = 0;
  l.frame_instruction = 56;  // prev_instr
  l.frame_owner = 70;
  l.frame_read_size = 72;
  l.owner_cstack = 3;
  l.code_filename = 112;
  l.code_name = 120;
  l.code_qualname = 128;
  l.code_firstlineno = 68;
  l.code_linetable = 136;
  l.code_adaptive = 192;
  l.code_read_size = 144;
  l.unicode_ascii_data = 40;
  l.unicode_compact_data = 56;
  return l;
}();

// Byte offsets of the fields of the 3.13 `_Py_DebugOffsets` structure
// itself (Include/internal/pycore_runtime.h); every field is a uint64_t.
namespace debug313 {
constexpr size_t kVersion = 8, kFreeThreaded = 16;
constexpr size_t kRuntimeFinalizing = 32, kRuntimeInterpretersHead = 40;
constexpr size_t kInterpNext = 64, kInterpThreadsHead = 72;
constexpr size_t kTstateSize = 152, kTstateNext = 168,
                 kTstateCurrentFrame = 184, kTstateThreadId = 192,
                 kTstateNativeThreadId = 200, kTstateDatastackChunk = 208;
constexpr size_t kFramePrevious = 232, kFrameExecutable = 240,
                 kFrameInstrPtr = 248, kFrameOwner = 264;
constexpr size_t kCodeFilename = 280, kCodeName = 288, kCodeQualname = 296,
                 kCodeLinetable = 304, kCodeFirstlineno = 312,
                 kCodeAdaptive = 344;
constexpr size_t kBytesSize = 520, kBytesData = 528;
constexpr size_t kUnicodeState = 544, kUnicodeLength = 552,
                 kUnicodeAsciiSize = 560;
constexpr size_t kEnd = 584;
}  // namespace debug313

uint64_t Field(const uint8_t* bytes, size_t offset) {
  uint64_t v;
  std::memcpy(&v, bytes + offset, sizeof v);
  return v;
}

// An offset into a structure: small, or the bytes are not offsets at all.
bool Plausible(uint64_t offset) { return offset < (uint64_t{1} << 20); }

uint32_t MaxPlus8(std::initializer_list<uint32_t> offsets) {
  uint32_t m = 0;
  for (uint32_t o : offsets) m = o > m ? o : m;
  return m + 8;
}

}  // namespace

const PythonLayout* BuiltInLayout(uint32_t version_hex) {
  switch (version_hex >> 16) {
    case 0x030A:
      return &k310;
    case 0x030B:
      return &k311;
    case 0x030C:
      return &k312;
    default:
      return nullptr;
  }
}

bool LayoutFromDebugOffsets(const uint8_t* bytes, size_t size,
                            PythonLayout* out, const char** why) {
  using namespace debug313;
  if (size < kEnd || std::memcmp(bytes, "xdebugpy", 8) != 0) {
    *why =
        "the interpreter's debug offsets are missing (no \"xdebugpy\" "
        "cookie at the start of _PyRuntime)";
    return false;
  }
  const uint64_t version = Field(bytes, kVersion);
  if ((version >> 16) != 0x030D) {
    *why =
        "this CPython's debug offsets are of a version feedprof does not "
        "know";
    return false;
  }
  if (Field(bytes, kFreeThreaded) != 0) {
    *why = "free-threaded CPython builds are not supported";
    return false;
  }
  PythonLayout l;
  l.version_hex = static_cast<uint32_t>(version);
  l.frame_model = FrameModel::kInterpreterFrames;
  l.line_table = LineTableFormat::kLocations311;
  const size_t fields[] = {kRuntimeFinalizing,
                           kRuntimeInterpretersHead,
                           kInterpNext,
                           kInterpThreadsHead,
                           kTstateNext,
                           kTstateCurrentFrame,
                           kTstateThreadId,
                           kTstateNativeThreadId,
                           kTstateDatastackChunk,
                           kFramePrevious,
                           kFrameExecutable,
                           kFrameInstrPtr,
                           kFrameOwner,
                           kCodeFilename,
                           kCodeName,
                           kCodeQualname,
                           kCodeLinetable,
                           kCodeFirstlineno,
                           kCodeAdaptive,
                           kBytesSize,
                           kBytesData,
                           kUnicodeState,
                           kUnicodeLength,
                           kUnicodeAsciiSize};
  for (size_t f : fields) {
    if (!Plausible(Field(bytes, f))) {
      *why = "this CPython's debug offsets do not look like offsets";
      return false;
    }
  }
  const auto at = [bytes](size_t f) {
    return static_cast<uint32_t>(Field(bytes, f));
  };
  l.runtime_finalizing = at(kRuntimeFinalizing);
  l.runtime_interpreters_head = at(kRuntimeInterpretersHead);
  l.interp_next = at(kInterpNext);
  l.interp_threads_head = at(kInterpThreadsHead);
  l.tstate_next = at(kTstateNext);
  l.tstate_frame = at(kTstateCurrentFrame);
  l.tstate_thread_id = at(kTstateThreadId);
  l.tstate_native_thread_id = at(kTstateNativeThreadId);
  l.tstate_datastack_chunk = at(kTstateDatastackChunk);
  l.tstate_read_size =
      MaxPlus8({l.tstate_next, l.tstate_frame, l.tstate_thread_id,
                l.tstate_native_thread_id, l.tstate_datastack_chunk});
  if (l.tstate_read_size > Field(bytes, kTstateSize)) {
    *why = "this CPython's debug offsets do not look like offsets";
    return false;
  }
  l.frame_previous = at(kFramePrevious);
  l.frame_code = at(kFrameExecutable);
  l.frame_instruction = at(kFrameInstrPtr);
  l.frame_owner = at(kFrameOwner);
  // The owner is one byte: the read ends at the word that holds it.
  l.frame_read_size = MaxPlus8({l.frame_previous, l.frame_code,
                                l.frame_instruction, l.frame_owner / 8 * 8});
  l.owner_cstack = 3;
  l.code_filename = at(kCodeFilename);
  l.code_name = at(kCodeName);
  l.code_qualname = at(kCodeQualname);
  l.code_linetable = at(kCodeLinetable);
  l.code_firstlineno = at(kCodeFirstlineno);
  l.code_adaptive = at(kCodeAdaptive);
  l.code_read_size = MaxPlus8({l.code_filename, l.code_name, l.code_qualname,
                               l.code_linetable, l.code_firstlineno});
  l.var_size = at(kBytesSize);
  l.bytes_data = at(kBytesData);
  l.unicode_state = at(kUnicodeState);
  l.unicode_length = at(kUnicodeLength);
  l.unicode_ascii_data = at(kUnicodeAsciiSize);
  // PyCompactUnicodeObject adds utf8_length and utf8 (3.12+).
  l.unicode_compact_data = l.unicode_ascii_data + 16;
  *out = l;
  return true;
}

void FormatPythonVersion(uint32_t version_hex, char* out, size_t size) {
  std::snprintf(out, size, "%u.%u", version_hex >> 24,
                (version_hex >> 16) & 0xFF);
}

}  // namespace feedprof::preload::python
