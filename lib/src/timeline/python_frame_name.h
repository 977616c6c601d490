// A Python function's name as profilers write it: "path/file.py(123): name".
//
// The PyTorch profiler names each `python_function` event so, and the
// timeline keeps those events as ranges (RangeSource::kPythonFunction).
// Both the Kineto reader (which makes call sites of them) and the analysis
// (which follows each thread's Python code over time) read the file, line
// and function back out of the name.
#ifndef FEEDPROF_TIMELINE_PYTHON_FRAME_NAME_H_
#define FEEDPROF_TIMELINE_PYTHON_FRAME_NAME_H_

#include <cstdint>
#include <string_view>

namespace feedprof::timeline {

struct PythonFrameName {
  std::string_view file;  // empty: no file (a C function, "nn.Module: X")
  uint32_t line = 0;
  std::string_view function;  // the whole name when there is no file
};

// "file(line): function" gives file, line and function (the line is the
// last parenthesis before the first "): "); any other name is a function
// without a file. The views point into `name`.
PythonFrameName ParsePythonFrameName(std::string_view name);

}  // namespace feedprof::timeline

#endif  // FEEDPROF_TIMELINE_PYTHON_FRAME_NAME_H_
