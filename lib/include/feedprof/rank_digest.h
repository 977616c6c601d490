// Rank digests (docs/cluster.md): a job of thousands of ranks does not fit
// one analysing machine, so each rank's trace is reduced where it lies —
// `feedprof digest TRACE -o OUT`, run by the cluster's scheduler — to what
// the analysis across ranks needs (per step and per collective timings,
// the GPU's lead-up to each collective by idle cause, the rank's own
// figures, verdict, next steps and top code location), and `feedprof
// analyze DIR` compares the digests as it compares the ranks of one
// merged trace.
#ifndef FEEDPROF_RANK_DIGEST_H_
#define FEEDPROF_RANK_DIGEST_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof {

struct DigestStats {
  uint32_t ranks = 0;        // ranks (or GPU processes) written
  uint64_t collectives = 0;  // communication kernels written
  uint64_t bytes = 0;        // size of the digest file
};

// Writes the digest of every rank (or, without ranks, every GPU process) of
// `timeline` to `path` (replaced only once complete); options.rank keeps
// that rank only. `rank` names the rank of a trace that records none and
// holds one GPU process. Errors: no GPU work in the window, `rank` given
// for a trace of several processes, an unwritable path.
absl::StatusOr<DigestStats> WriteRankDigest(const Timeline& timeline,
                                            const AnalysisOptions& options,
                                            std::optional<int32_t> rank,
                                            const std::string& path);

// Whether `path` is a digest file, or a directory whose files include
// digests.
bool IsRankDigestInput(const std::string& path);

// The report of the digests at `path` (a digest file, or a directory of
// them): the ranks table, the collectives matched across ranks, the rank
// the others wait for and the job's verdict, as Analyze() gives them for
// the ranks' merged traces; Report::rank_digests counts the digests. The
// sections that need events (devices, gaps, launches, the what-if) are
// empty. Errors: no digest, a digest that cannot be read.
absl::StatusOr<Report> AnalyzeRankDigests(const std::string& path);

}  // namespace feedprof

#endif  // FEEDPROF_RANK_DIGEST_H_
