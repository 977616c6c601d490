// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`) into
// the one timeline model.
//
// Nsight Systems is the profiler most CUDA users already have; reading its
// exports lets feedprof diagnose runs it did not record. The schema changes
// between nsys versions (tables and columns come and go, enum numberings
// shift), so the reader inspects what is present before every query and maps
// only what it finds. See docs/nsight.md for the traps and how each is
// handled.
#ifndef FEEDPROF_NSIGHT_READER_H_
#define FEEDPROF_NSIGHT_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof {

// Reads the export at `path` (opened read-only; works on read-only
// directories). Errors (not a SQLite file, no CUPTI/NVTX tables at all) name
// the file and say what to do next. Partial problems (a corrupt table, a
// trace without GPU activity) are salvaged and recorded in
// Timeline::warnings.
absl::StatusOr<Timeline> ReadNsightTrace(const std::string& path);

// True when the file starts with the SQLite header; lets a format sniffer
// route a path to ReadNsightTrace without opening it as a database.
bool LooksLikeSqliteFile(const std::string& path);

}  // namespace feedprof

#endif  // FEEDPROF_NSIGHT_READER_H_
