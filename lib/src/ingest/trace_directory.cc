#include "ingest/trace_directory.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/input_file.h"
#include "feedprof/trace_loader.h"
#include "fpt/trace_files.h"

namespace feedprof::ingest {
namespace {

// `{"schema": "feedprof.` (blanks allowed between the tokens): a report of
// feedprof analyze, diff or doctor saved as JSON.
bool IsFeedprofJsonReport(const std::string& path) {
  absl::StatusOr<common::InputFile> file = common::InputFile::Open(path);
  if (!file.ok()) return false;
  char head[256];
  const int64_t n = file->ReadAt(0, head, sizeof head);
  if (n <= 0) return false;
  std::string_view rest(head, static_cast<size_t>(n));
  auto skip_blanks = [&rest] {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t' ||
                             rest.front() == '\r' || rest.front() == '\n')) {
      rest.remove_prefix(1);
    }
  };
  auto take = [&](std::string_view token) {
    skip_blanks();
    if (!rest.starts_with(token)) return false;
    rest.remove_prefix(token.size());
    return true;
  };
  return take("{") && take("\"schema\"") && take(":") && take("\"feedprof.");
}

std::string Describe(size_t count, const char* one, const char* many,
                     std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  const bool more = names.size() > 3;
  if (more) names.resize(3);
  return absl::StrFormat("%d %s (%s%s)", count, count == 1 ? one : many,
                         absl::StrJoin(names, ", "), more ? ", ..." : "");
}

}  // namespace

absl::StatusOr<TraceDirectory> ListTraceDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> feedprof;
  std::vector<std::string> kineto;
  std::vector<std::string> nsight;
  std::error_code error;
  fs::directory_iterator it(dir, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    std::error_code ignored;
    if (!it->is_regular_file(ignored)) continue;
    const std::string path = it->path().string();
    const std::string name = it->path().filename().string();
    if (absl::EndsWith(name, fpt::kTraceFileExtension)) {
      feedprof.push_back(path);
    } else if (absl::EndsWith(name, ".sqlite") ||
               absl::EndsWith(name, ".sqlite3")) {
      nsight.push_back(path);
    } else if (absl::EndsWith(name, ".json") ||
               absl::EndsWith(name, ".json.gz")) {
      // A file whose format cannot be told (empty, damaged) is taken for
      // what its name says, so that its reader's error names the damage.
      absl::StatusOr<DetectedFormat> detected = DetectTraceFormat(path);
      const SourceFormat format =
          detected.ok() ? detected->format : SourceFormat::kKineto;
      // A feedprof trace misnamed .json is left out, as from 'feedprof
      // dump' of the directory: sessions are their *.fpt files.
      if (format == SourceFormat::kFeedprof) continue;
      if (format == SourceFormat::kNsight) {
        nsight.push_back(path);
      } else if (!IsFeedprofJsonReport(path)) {
        kineto.push_back(path);
      }
    }
  }
  if (error) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s: cannot list the directory: %s; check that it is readable", dir,
        error.message()));
  }

  const int formats = static_cast<int>(!feedprof.empty()) +
                      static_cast<int>(!kineto.empty()) +
                      static_cast<int>(!nsight.empty());
  if (formats > 1) {
    std::vector<std::string> held;
    auto names = [](const std::vector<std::string>& paths) {
      std::vector<std::string> out;
      for (const std::string& p : paths) {
        out.push_back(fs::path(p).filename().string());
      }
      return out;
    };
    if (!feedprof.empty()) {
      held.push_back(Describe(feedprof.size(), "feedprof trace",
                              "feedprof traces", names(feedprof)));
    }
    if (!kineto.empty()) {
      held.push_back(Describe(kineto.size(), "Kineto JSON trace",
                              "Kineto JSON traces", names(kineto)));
    }
    if (!nsight.empty()) {
      held.push_back(Describe(nsight.size(), "Nsight Systems export",
                              "Nsight Systems exports", names(nsight)));
    }
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the directory holds traces of more than one format: %s; a "
        "directory is read as one run only when all its traces have one "
        "format: move the others out, or pass one trace file",
        dir, absl::StrJoin(held, ", ")));
  }

  TraceDirectory out;
  if (!feedprof.empty()) {
    out.format = SourceFormat::kFeedprof;
    out.files = std::move(feedprof);
  } else if (!kineto.empty()) {
    out.format = SourceFormat::kKineto;
    out.files = std::move(kineto);
  } else if (!nsight.empty()) {
    out.format = SourceFormat::kNsight;
    out.files = std::move(nsight);
  }
  std::sort(out.files.begin(), out.files.end());
  return out;
}

}  // namespace feedprof::ingest
