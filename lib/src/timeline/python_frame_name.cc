// Python function names as profilers write them (python_frame_name.h).
#include "timeline/python_frame_name.h"

#include <charconv>

namespace feedprof::timeline {

PythonFrameName ParsePythonFrameName(std::string_view name) {
  PythonFrameName out;
  const size_t close = name.find("): ");
  const size_t open =
      close == std::string_view::npos ? close : name.rfind('(', close);
  if (open != std::string_view::npos && open > 0 && open + 1 < close) {
    const char* first = name.data() + open + 1;
    const char* last = name.data() + close;
    uint32_t line = 0;
    const auto [end, error] = std::from_chars(first, last, line);
    if (error == std::errc() && end == last) {
      out.file = name.substr(0, open);
      out.line = line;
      out.function = name.substr(close + 3);
      return out;
    }
  }
  out.function = name;
  return out;
}

}  // namespace feedprof::timeline
