#include "fpt/trace_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace feedprof::fpt {

absl::StatusOr<std::vector<std::string>> ListTraceFiles(
    const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status)) {
    return absl::NotFoundError(absl::StrFormat(
        "%s: no such file or directory; pass a session directory written by "
        "'feedprof record' or one of its *.fpt files",
        path));
  }
  if (fs::is_regular_file(status)) return std::vector<std::string>{path};
  if (!fs::is_directory(status)) {
    // A pipe would block the open until someone writes, and a device never
    // ends; neither is a trace.
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: not a regular file or directory (a pipe, socket or device); "
        "pass a session directory written by 'feedprof record' or one of "
        "its *.fpt files, saved to disk first",
        path));
  }

  std::vector<std::string> files;
  std::vector<std::string> other_traces;  // for a better error message
  fs::directory_iterator it(path, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const fs::path& entry = it->path();
    if (!it->is_regular_file(error)) continue;
    const std::string name = entry.filename().string();
    if (entry.extension() == kTraceFileExtension) {
      files.push_back(entry.string());
    } else if (name.ends_with(".json") || name.ends_with(".json.gz") ||
               name.ends_with(".sqlite")) {
      other_traces.push_back(name);
    }
  }
  if (error) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s: cannot list the directory: %s; check that it is readable", path,
        error.message()));
  }
  if (files.empty() && !other_traces.empty()) {
    std::sort(other_traces.begin(), other_traces.end());
    if (other_traces.size() > 3) other_traces.resize(3);
    return absl::NotFoundError(absl::StrFormat(
        "%s: the directory holds no feedprof trace files (*%s), but other "
        "traces (%s); pass one of those files instead",
        path, kTraceFileExtension, absl::StrJoin(other_traces, ", ")));
  }
  if (files.empty()) {
    return absl::NotFoundError(absl::StrFormat(
        "%s: the directory holds no feedprof trace files (*%s); pass a "
        "session directory written by 'feedprof record', or a trace file",
        path, kTraceFileExtension));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace feedprof::fpt
