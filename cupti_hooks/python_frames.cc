#include "cupti_hooks/python_frames.h"

#include "preload/python/line_table.h"
#include "preload/python/process_memory.h"
#include "preload/python/python_frame_walker.h"
#include "preload/python/python_objects.h"
#include "preload/python/python_runtime.h"

namespace feedprof::cupti {
namespace {

using preload::python::CodeFields;
using preload::python::DirectMemory;
using preload::python::PythonFrameRef;
using preload::python::RuntimeState;

uint64_t Identity(const CodeFields& f) {
  uint64_t h = f.filename * 0x9e3779b97f4a7c15ULL;
  h ^= f.name + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2);
  h ^= static_cast<uint64_t>(static_cast<uint32_t>(f.first_line)) +
       (f.linetable << 1) + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

uint32_t PythonFrames::Capture(uint64_t* code, uint32_t* offset,
                               uint64_t* identity, uint32_t max) {
  auto& runtime = preload::python::Runtime();
  if (runtime.Resolve() != RuntimeState::kReady) return 0;
  const uint64_t tstate = runtime.ThisThreadState();
  if (tstate == 0) return 0;
  const auto& layout = runtime.layout();
  const DirectMemory memory;
  uint8_t tstate_bytes[512];
  if (layout.tstate_read_size > sizeof tstate_bytes ||
      !memory.Read(tstate, tstate_bytes, layout.tstate_read_size)) {
    return 0;
  }
  uint64_t frame = 0;
  if (!preload::python::CurrentFrame(layout, memory, tstate_bytes, &frame) ||
      frame == 0) {
    return 0;
  }
  constexpr uint32_t kMax = 32;
  PythonFrameRef frames[kMax];
  uint32_t n = 0;
  const auto result = preload::python::WalkFrames(layout, memory, frame, frames,
                                                  max < kMax ? max : kMax, &n);
  if (result == preload::python::WalkResult::kTorn) return 0;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; ++i) {
    CodeFields fields;
    if (!preload::python::ReadCodeFields(layout, memory, frames[i].code,
                                         runtime.code_type(), &fields)) {
      continue;
    }
    code[kept] = frames[i].code;
    offset[kept] =
        frames[i].offset >= 0 ? static_cast<uint32_t>(frames[i].offset) : 0;
    identity[kept] = Identity(fields);
    ++kept;
  }
  return kept;
}

bool PythonFrames::Describe(uint64_t code, uint32_t offset, char* file,
                            size_t file_size, char* function,
                            size_t function_size, uint32_t* line) {
  file[0] = '\0';
  function[0] = '\0';
  *line = 0;
  auto& runtime = preload::python::Runtime();
  if (runtime.state() != RuntimeState::kReady) return false;
  const auto& layout = runtime.layout();
  const DirectMemory memory;
  CodeFields fields;
  if (!preload::python::ReadCodeFields(layout, memory, code,
                                       runtime.code_type(), &fields)) {
    return false;
  }
  preload::python::ReadUnicode(layout, memory, fields.filename,
                               runtime.unicode_type(), file, file_size);
  preload::python::ReadUnicode(layout, memory, fields.name,
                               runtime.unicode_type(), function, function_size);
  uint8_t table[16384];
  const int64_t size =
      preload::python::ReadBytes(layout, memory, fields.linetable,
                                 runtime.bytes_type(), table, sizeof table);
  if (size > 0) {
    *line = preload::python::LineOfOffset(layout.line_table, table,
                                          static_cast<size_t>(size),
                                          fields.first_line, offset);
  }
  return file[0] != '\0' || function[0] != '\0';
}

const char* PythonFrames::UnsupportedReason() {
  auto& runtime = preload::python::Runtime();
  return runtime.state() == RuntimeState::kUnsupported ? runtime.why()
                                                       : nullptr;
}

}  // namespace feedprof::cupti
