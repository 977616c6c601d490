// Reads feedprof's own trace files into the one timeline model.
//
// `feedprof record` leaves a session directory with one `*.fpt` file per
// process (and per rank). Each file is a stream of length-delimited packets
// (proto/feedprof.proto, docs/trace-format.md) whose strings are interned per
// file and whose timestamps are delta-encoded per batch. The reader streams
// the packets with bounded memory, resolves the per-file ids into the
// timeline's own string table, decodes absolute times, and merges every
// process of the run into one `Timeline` tagged with pids.
//
// Damage is expected — a process killed with SIGKILL leaves a file cut off at
// any byte — so a truncated or corrupt file is read up to its last whole
// packet and a warning says what was lost. Only when nothing at all could be
// read is the result an error.
#ifndef FEEDPROF_TRACE_READER_H_
#define FEEDPROF_TRACE_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof {

// `path` is one trace file or a session directory (every `*.fpt` file in it,
// in name order, read in parallel: one file per core, FEEDPROF_READ_THREADS
// to choose; the timeline is the same for any number of threads). Errors:
// the path does not exist, the directory holds no trace file, or no file
// held a single readable packet; each names the file and says what to do
// next. Salvaged damage goes to `Timeline::warnings`.
absl::StatusOr<Timeline> ReadFeedprofTrace(const std::string& path);

}  // namespace feedprof

#endif  // FEEDPROF_TRACE_READER_H_
