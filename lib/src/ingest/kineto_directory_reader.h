// Reads a directory of Kineto JSON traces as one multi-process run.
//
// A DDP run profiled with torch.profiler's tensorboard_trace_handler leaves
// one trace per rank (and per worker that profiled itself), each a complete
// single-process Kineto trace. Each file is read by ReadKinetoTrace on a
// worker thread, one file per core, and the timelines are appended in
// file-name order into one timeline with the processes of every file, as a
// feedprof session has, so the analysis reports and compares the ranks.
//
// Process ids of different files can collide: ranks on different hosts, a
// container's pid 1, the same trace copied twice. A pid that an earlier
// file of the directory already used is renumbered in the later file, in
// all its events, to the next number above every pid of both, and a warning
// says so; the processes stay apart. The reader's negative stand-ins for
// string pids ("Spans", "Traces") are per-file labels: a colliding one
// moves below every one seen, without a warning.
//
// Files that do not look like the ranks of one run (two claim one rank, or
// their time ranges do not overlap) are still read as one, with a warning
// each (rank_files_one_run_check.h), after the files' own warnings.
#ifndef FEEDPROF_INGEST_KINETO_DIRECTORY_READER_H_
#define FEEDPROF_INGEST_KINETO_DIRECTORY_READER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof::ingest {

// `files` are the Kineto traces of `dir` in name order. A file that cannot
// be read is skipped with a warning (its reader's error); the result is an
// error only when no file could be read, naming each file's problem.
absl::StatusOr<Timeline> ReadKinetoDirectory(
    const std::string& dir, const std::vector<std::string>& files);

}  // namespace feedprof::ingest

#endif  // FEEDPROF_INGEST_KINETO_DIRECTORY_READER_H_
