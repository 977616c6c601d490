// A call site as a report prints it: one frame that names where a blocking
// call came from.
//
// Python frames and native frames with line information print as
// "function (file:line)". Native frames without a line (release builds,
// stripped libraries: what a profiled framework usually is) print as
// "function (module+0xoffset)", with C++ names demangled and the module's
// file name alone, so the offset can be looked up (addr2line) in that
// module. A stripped library's innermost frames are often its own static
// functions with no name; the innermost frame that has one says more
// ("at::native::copy_(...)" rather than "libtorch_cuda.so"), so that frame
// is printed, unless the only names left are the C library's process start.
#ifndef FEEDPROF_ANALYSIS_CALL_SITE_TEXT_H_
#define FEEDPROF_ANALYSIS_CALL_SITE_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof::analysis {

// Call site `id` as printed (see above), "" when unknown. Traces give every
// call its own site id even where the frame is the same, so groups compare
// this text, not ids.
// `rule` says which Python frames are the user's (user_code.h).
std::string CallSiteText(const Timeline& timeline, uint32_t id,
                         const UserCodeRule& rule = {});

// A frame with its source line as printed: "function (file:line)", or
// whichever of the two is known. Call sites and the idle-by-code locations
// (code_spans.h) print through it, so one line reads the same in both.
std::string LineFrameText(std::string_view function, std::string_view file,
                          uint32_t line);

// Every frame of call site `id` as printed, innermost first (frames that
// print as nothing left out); empty for an unknown site.
std::vector<std::string> CallStackText(const Timeline& timeline, uint32_t id);

// One frame of a site as printed (see above); `python` is the site's.
std::string FrameText(const Timeline& timeline, const Frame& frame,
                      bool python);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_CALL_SITE_TEXT_H_
