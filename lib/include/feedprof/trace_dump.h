// Prints feedprof trace files as JSON lines, packet by packet.
//
// `feedprof dump` is how users and maintainers look inside a trace: to check
// what a recording captured, to feed the events into other tools, to debug
// the recorder. It works on the raw packets rather than the timeline model,
// so every field the file holds is shown — including those the analyzer
// ignores — with interned names resolved and delta-encoded times decoded to
// absolute nanoseconds. The line format is documented in
// docs/trace-format.md.
#ifndef FEEDPROF_TRACE_DUMP_H_
#define FEEDPROF_TRACE_DUMP_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace feedprof {

struct DumpSummary {
  uint64_t files = 0;
  uint64_t packets = 0;
  uint64_t lines = 0;
  // Truncated or corrupt files, unreadable files in a directory.
  std::vector<std::string> warnings;
};

// Writes `path` (a trace file or session directory) to `out` as JSON lines:
// a header line per file, then one line per event or descriptive packet.
// Errors: the path does not exist or holds no trace file, no file held a
// readable packet, or writing to `out` failed.
absl::StatusOr<DumpSummary> DumpTraceAsJsonLines(const std::string& path,
                                                 std::FILE* out);

}  // namespace feedprof

#endif  // FEEDPROF_TRACE_DUMP_H_
