// The source line of a bytecode offset, from a code object's line table.
//
// The interpreter computes a frame's line only when asked (and only with
// the GIL); the recorder reads the code object's `co_linetable` bytes and
// decodes them itself, in the two formats CPython has used since 3.10.
// Pure functions over a byte copy: nothing here touches the interpreter.
#ifndef FEEDPROF_PRELOAD_PYTHON_LINE_TABLE_H_
#define FEEDPROF_PRELOAD_PYTHON_LINE_TABLE_H_

#include <cstddef>
#include <cstdint>

#include "preload/python/python_layout.h"

namespace feedprof::preload::python {

// The line of the instruction at byte offset `offset` into the bytecode,
// or 0 when the table has no line for it (or is cut short).
uint32_t LineOfOffset(LineTableFormat format, const uint8_t* table, size_t size,
                      int32_t first_line, uint32_t offset);

}  // namespace feedprof::preload::python

#endif  // FEEDPROF_PRELOAD_PYTHON_LINE_TABLE_H_
