// Opens a trace of any supported format by looking at it.
//
// Users point feedprof at whatever they have: a session directory from
// `feedprof record`, a PyTorch profiler JSON (maybe gzipped), an Nsight
// Systems SQLite export. File names lie (a `.json` that is gzip, a trace
// without an extension), so the loader sniffs the first bytes, falls back on
// the extension, and hands the path to the reader of that format.
#ifndef FEEDPROF_TRACE_LOADER_H_
#define FEEDPROF_TRACE_LOADER_H_

#include <string>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof {

// What `DetectTraceFormat` decided, with the reason in words for messages.
struct DetectedFormat {
  SourceFormat format = SourceFormat::kUnknown;
  std::string reason;  // e.g. "gzip magic bytes", "extension .fpt"
};

// Decides the format of `path` without reading it fully. Errors: the path
// cannot be opened, or the format is not recognised (the message names the
// file, shows its first bytes and lists the supported formats).
absl::StatusOr<DetectedFormat> DetectTraceFormat(const std::string& path);

// Detects the format and reads the trace into a timeline:
//  * a directory of `*.fpt` files (a session), a `.fpt` file, or bytes that
//    start with a feedprof header packet: feedprof's own format
//    (ReadFeedprofTrace);
//  * a directory of Kineto JSON traces (one per rank or worker, as
//    tensorboard_trace_handler writes them): one timeline with every file's
//    processes, a pid that two files share renumbered in the later one with
//    a warning. The files of a directory are read in parallel (one per core,
//    FEEDPROF_READ_THREADS to choose); the timeline is the same for any
//    number of threads. A directory that mixes formats is an error;
//  * gzip magic, a first non-blank character `{` or `[`, `.json`,
//    `.json.gz`: PyTorch profiler / Kineto JSON;
//  * the SQLite header "SQLite format 3": an Nsight Systems export.
absl::StatusOr<Timeline> LoadTrace(const std::string& path);

}  // namespace feedprof

#endif  // FEEDPROF_TRACE_LOADER_H_
