// feedprof/rank_digest.h: a trace's ranks written as a digest, and the
// report of a job made from its ranks' digests.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/analysis_passes.h"
#include "feedprof/rank_digest.h"
#include "ranks/rank_analysis.h"
#include "ranks/rank_digest_file.h"
#include "ranks/rank_summary.h"

namespace feedprof {
namespace {

// The first bytes of `path`, up to `n` ("" when it cannot be read).
std::string Head(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(n, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  bytes.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return bytes;
}

bool IsDigestFile(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) &&
         Head(path, ranks::kDigestMagic.size()) == ranks::kDigestMagic;
}

// The digest files at `path`, in name order.
std::vector<std::string> DigestFiles(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    return IsDigestFile(path) ? std::vector<std::string>{path}
                              : std::vector<std::string>{};
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
    const std::string file = entry.path().string();
    if (IsDigestFile(file)) files.push_back(file);
  }
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The job's verdict where no late rank decides it: the verdict most ranks
// have on their own (the lowest rank's among equals), with their next
// steps.
void MajorityVerdict(const std::vector<ranks::RankSummary>& summaries,
                     Report* report) {
  std::map<VerdictClass, size_t> counts;
  for (const ranks::RankSummary& s : summaries) ++counts[s.verdict];
  VerdictClass best = summaries.front().verdict;
  for (const auto& [verdict, n] : counts) {
    if (n > counts[best]) best = verdict;
  }
  Verdict& v = report->verdict;
  v.primary = best;
  v.confidence =
      static_cast<double>(counts[best]) / static_cast<double>(summaries.size());
  v.confidence_label = v.confidence >= 0.7   ? "high"
                       : v.confidence >= 0.4 ? "medium"
                                             : "low";
  std::vector<std::string> others;
  for (const auto& [verdict, n] : counts) {
    if (verdict == best) continue;
    others.push_back(absl::StrCat(n, " ", VerdictClassName(verdict)));
    if (!v.runner_up || n > counts[*v.runner_up]) v.runner_up = verdict;
  }
  v.evidence.push_back(absl::StrCat(
      "Analysed from the digests of ", summaries.size(),
      " ranks: ", counts[best], " of them are ", VerdictClassName(best),
      " on their own", others.empty() ? "" : " (", absl::StrJoin(others, ", "),
      others.empty() ? "" : ")",
      "; the figures of the merged run (devices, gaps, the what-if) need the "
      "traces themselves."));
  for (const ranks::RankSummary& s : summaries) {
    if (s.verdict == best) {
      v.next_steps = s.next_steps;
      break;
    }
  }
}

}  // namespace

absl::StatusOr<DigestStats> WriteRankDigest(const Timeline& timeline,
                                            const AnalysisOptions& options,
                                            std::optional<int32_t> rank,
                                            const std::string& path) {
  AnalysisOptions all = options;
  all.rank.reset();
  ranks::DigestContents contents;
  contents.ranks = ranks::SummarizeRanks(timeline, all, /*min_groups=*/1);
  if (options.rank.has_value()) {
    std::erase_if(contents.ranks, [&options](const ranks::RankSummary& s) {
      return s.rank != *options.rank;
    });
    if (contents.ranks.empty()) {
      return absl::NotFoundError(absl::StrCat(timeline.source_path,
                                              ": no rank ", *options.rank,
                                              " with GPU work in this trace"));
    }
  }
  if (contents.ranks.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        timeline.source_path,
        ": no GPU work to digest (no kernel, copy or memset in the window)"));
  }
  if (rank.has_value()) {
    if (contents.ranks.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          timeline.source_path, " holds ", contents.ranks.size(),
          " ranks or GPU processes: --as-rank names the rank of a trace of "
          "one"));
    }
    contents.ranks.front().rank = *rank;
    contents.ranks.front().figures.rank = *rank;
  }
  contents.source_path = timeline.source_path;
  contents.source_format = timeline.format;
  contents.time_base_ns = timeline.time_base_ns;
  contents.warnings = timeline.warnings;
  const std::string bytes = ranks::EncodeDigest(contents);
  const std::string tmp = absl::StrCat(path, ".tmp-", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      const int err = errno;
      std::remove(tmp.c_str());
      return absl::UnavailableError(
          absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat(
        "cannot write ", path, ": rename failed: ", std::strerror(err)));
  }
  DigestStats stats;
  stats.ranks = static_cast<uint32_t>(contents.ranks.size());
  for (const ranks::RankSummary& s : contents.ranks) {
    stats.collectives += s.collectives.size();
  }
  stats.bytes = bytes.size();
  return stats;
}

bool IsRankDigestInput(const std::string& path) {
  return !DigestFiles(path).empty();
}

absl::StatusOr<Report> AnalyzeRankDigests(const std::string& path) {
  const std::vector<std::string> files = DigestFiles(path);
  if (files.empty()) {
    return absl::NotFoundError(
        absl::StrCat(path,
                     ": no rank digest here (write them with 'feedprof digest "
                     "TRACE -o OUT')"));
  }
  Report report;
  report.source_path = path;
  report.rank_digests = static_cast<uint32_t>(files.size());
  std::vector<ranks::RankSummary> summaries;
  std::set<int32_t> seen_ranks;
  TimeNs first_base = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    absl::StatusOr<std::string> bytes = ReadWhole(files[i]);
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<ranks::DigestContents> contents =
        ranks::DecodeDigest(*bytes, files[i]);
    if (!contents.ok()) return contents.status();
    if (i == 0) {
      first_base = contents->time_base_ns;
      report.source_format = contents->source_format;
    }
    for (const std::string& w : contents->warnings) {
      report.warnings.push_back(absl::StrCat(files[i], ": ", w));
    }
    // Each digest's times onto the first one's clock base.
    const TimeNs shift = contents->time_base_ns - first_base;
    for (ranks::RankSummary& s : contents->ranks) {
      if (s.rank >= 0 && !seen_ranks.insert(s.rank).second) {
        report.warnings.push_back(absl::StrCat(
            files[i], ": rank ", s.rank,
            " is also in an earlier digest (the same trace twice, or two "
            "runs?); this one is left out"));
        continue;
      }
      for (StepInfo& step : s.steps) {
        step.start += shift;
        step.end += shift;
      }
      for (TimeNs& t : s.step_first_op) t += t != 0 ? shift : 0;
      for (ranks::CollectiveArrival& c : s.collectives) {
        c.start += shift;
        c.end += shift;
      }
      summaries.push_back(std::move(s));
    }
  }
  std::sort(summaries.begin(), summaries.end(),
            [](const ranks::RankSummary& a, const ranks::RankSummary& b) {
              return std::make_pair(a.rank, a.pids.front()) <
                     std::make_pair(b.rank, b.pids.front());
            });
  for (const ranks::RankSummary& s : summaries) {
    if (s.figures.busy_ns > 0) report.has_gpu_activity = true;
    report.ranks.push_back(s.figures);
  }
  if (summaries.size() < 2) {
    report.ranks.clear();
  }
  analysis::MarkSlowest(&report.ranks);
  report.what_if.unavailable_reason =
      "analysed from rank digests, which hold no events to replay; analyse "
      "a rank's trace for its what-if";
  MajorityVerdict(summaries, &report);
  ranks::AddRankAnalysis(summaries, &report);
  ranks::AddStragglerNextSteps(&report);
  return report;
}

}  // namespace feedprof
