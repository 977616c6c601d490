// The times --from and --to take on the command line.
//
// A window is given in the units people read off a report: "12.5ms" or
// "3us" as well as plain nanoseconds. The parser is the command line's, not
// the library's: a program using feedprof::analysis sets
// AnalysisOptions::from/to in nanoseconds.
#ifndef FEEDPROF_TOOLS_TIME_ARG_H_
#define FEEDPROF_TOOLS_TIME_ARG_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof {

// Parses a time for --from/--to: a plain integer is nanoseconds; a number
// with a unit suffix (ns, us, µs, ms, s) may be fractional ("12.5ms").
// Errors say what was expected.
absl::StatusOr<TimeNs> ParseTimeArg(std::string_view text);

}  // namespace feedprof

#endif  // FEEDPROF_TOOLS_TIME_ARG_H_
