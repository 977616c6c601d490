// Which files make up a feedprof trace path.
//
// A recorded run is a session directory holding one `*.fpt` file per
// process; users also point at a single file. Both the reader and
// `feedprof dump` expand a path the same way, in name order so that output
// is reproducible.
#ifndef FEEDPROF_FPT_TRACE_FILES_H_
#define FEEDPROF_FPT_TRACE_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace feedprof::fpt {

inline constexpr char kTraceFileExtension[] = ".fpt";

// `path` itself when it is a file; the `*.fpt` files directly inside it,
// sorted by name, when it is a directory. Errors name the path: it does not
// exist, or the directory holds no trace file.
absl::StatusOr<std::vector<std::string>> ListTraceFiles(
    const std::string& path);

}  // namespace feedprof::fpt

#endif  // FEEDPROF_FPT_TRACE_FILES_H_
