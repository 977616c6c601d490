#include "symbols/module_locator.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace feedprof::symbols {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  if (!dir.empty() && dir.back() == '/') dir.remove_suffix(1);
  std::string path(dir);
  path += '/';
  path += name;
  return path;
}

}  // namespace

std::vector<std::string> CandidatePaths(const std::string& recorded_path,
                                        const std::string& build_id,
                                        const SymbolizeOptions& options) {
  std::vector<std::string> paths;
  const std::string_view base = BaseName(recorded_path);
  if (!base.empty()) {
    for (const std::string& dir : options.symbol_paths) {
      if (!dir.empty()) paths.push_back(JoinPath(dir, base));
    }
  }
  if (!recorded_path.empty()) paths.push_back(recorded_path);
  if (build_id.size() > 2) {
    for (const std::string& root : options.debug_roots) {
      if (root.empty()) continue;
      paths.push_back(
          JoinPath(root, absl::StrCat(".build-id/", build_id.substr(0, 2), "/",
                                      build_id.substr(2), ".debug")));
    }
  }
  return paths;
}

LocatedModule LocateModule(const std::string& recorded_path,
                           const std::string& build_id,
                           const SymbolizeOptions& options) {
  LocatedModule located;
  std::string mismatch;
  std::string unreadable;
  const std::vector<std::string> candidates =
      CandidatePaths(recorded_path, build_id, options);
  // The first candidates are the --symbol-path ones (CandidatePaths).
  size_t chosen_by_user = 0;
  if (!BaseName(recorded_path).empty()) {
    for (const std::string& dir : options.symbol_paths) {
      chosen_by_user += !dir.empty();
    }
  }
  bool unverifiable = false;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& path = candidates[i];
    ElfFileFacts facts = ReadElfFileFacts(path);
    if (facts.state == ElfFileFacts::State::kMissing) continue;
    if (facts.state == ElfFileFacts::State::kUnreadable) {
      if (unreadable.empty()) {
        unreadable = absl::StrCat(path, " is unusable: ", facts.problem);
      }
      continue;
    }
    // Without a recorded build id only a file the user pointed at is
    // trusted: a file at the recorded path on another machine, or after
    // a rebuild, gives plausible and wrong lines.
    if (build_id.empty() && i >= chosen_by_user) {
      unverifiable = true;
      continue;
    }
    if (!build_id.empty() && facts.build_id != build_id) {
      if (mismatch.empty()) {
        mismatch =
            absl::StrCat("build id differs (recorded ", ShortBuildId(build_id),
                         ", ", path, " has ", ShortBuildId(facts.build_id),
                         "; pass --symbol-path DIR with the binary "
                         "that ran)");
      }
      continue;
    }
    located.found = true;
    located.path = path;
    located.facts = std::move(facts);
    located.checked = !build_id.empty();
    return located;
  }
  if (!mismatch.empty()) {
    located.reason = std::move(mismatch);
  } else if (unverifiable) {
    located.reason = absl::StrCat(
        "the trace recorded no build id for it (written before feedprof "
        "recorded them), so ",
        recorded_path,
        " here may be another build; pass --symbol-path DIR with the "
        "binary that ran to use it unchecked");
  } else if (!unreadable.empty()) {
    located.reason = std::move(unreadable);
  } else {
    located.reason =
        absl::StrCat("module not found on this machine (looked in ",
                     candidates.empty() ? std::string("no place")
                                        : absl::StrJoin(candidates, ", "),
                     "; pass --symbol-path DIR)");
  }
  return located;
}

}  // namespace feedprof::symbols
