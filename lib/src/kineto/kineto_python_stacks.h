// The Python stack behind each CUDA call of a Kineto trace.
//
// A PyTorch profiler trace recorded with `with_stack=True` holds a
// `python_function` event for every Python call on every thread, nested as
// the calls were. A CUDA runtime call lies inside the Python functions that
// issued it, so the enclosing events on its thread, innermost first, are its
// call stack: the same call site feedprof's own recorder takes when a
// blocking call is made. With them, a sync point of a Kineto trace names the
// line of the user's code behind it instead of nothing.
#ifndef FEEDPROF_KINETO_KINETO_PYTHON_STACKS_H_
#define FEEDPROF_KINETO_KINETO_PYTHON_STACKS_H_

#include <string_view>

#include "feedprof/timeline.h"

namespace feedprof::kineto {

// A python_function event's name as a frame: "path/file.py(123): function"
// gives file, line and function; any other name ("<built-in method item of
// Tensor object>", "nn.Module: Linear_0") is a function with no file.
Frame PythonFrameOf(std::string_view name, StringTable& strings);

// Gives every API call of `timeline` that lies inside python_function ranges
// of its thread the call site made of them, innermost first
// (CallSite::python). Calls with the same stack share one site. Needs the
// ranges sorted and nested (timeline/range_nesting.h) and the calls sorted
// by start; leaves calls outside any Python function, and timelines without
// Python functions, as they are. Returns the number of calls given a site.
uint64_t AttachPythonCallSites(Timeline& timeline);

}  // namespace feedprof::kineto

#endif  // FEEDPROF_KINETO_KINETO_PYTHON_STACKS_H_
