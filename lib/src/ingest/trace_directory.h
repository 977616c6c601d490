// What a directory given as a trace holds, and so which reader reads it.
//
// `feedprof record` leaves a session directory of `*.fpt` files, one per
// process; the PyTorch profiler's tensorboard_trace_handler leaves one
// Kineto JSON file per rank or worker (`*.pt.trace.json[.gz]`) in the
// directory it is given. Either is read as one multi-process run. JSON files
// are told by their content, as LoadTrace tells a single file; a feedprof
// JSON report saved beside the traces is no trace and is passed over. A
// directory holding traces of more than one format is refused: which files
// make up the run cannot be guessed.
#ifndef FEEDPROF_INGEST_TRACE_DIRECTORY_H_
#define FEEDPROF_INGEST_TRACE_DIRECTORY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof::ingest {

struct TraceDirectory {
  // kFeedprof, kKineto or kNsight; kUnknown when no file in it is a trace.
  SourceFormat format = SourceFormat::kUnknown;
  std::vector<std::string> files;  // the traces, sorted by name
};

// The trace files directly inside `dir`: `*.fpt` are feedprof traces,
// `*.json` and `*.json.gz` Kineto traces unless their first bytes say
// otherwise, `*.sqlite` Nsight Systems exports. Errors: the directory
// cannot be listed, or it mixes formats (the message names what it holds
// and says what to pass).
absl::StatusOr<TraceDirectory> ListTraceDirectory(const std::string& dir);

}  // namespace feedprof::ingest

#endif  // FEEDPROF_INGEST_TRACE_DIRECTORY_H_
