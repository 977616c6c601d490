// `feedprof digest TRACE -o OUT`: reduces one rank's trace (any format) to
// a rank digest, for `feedprof analyze DIR` over the digests of a whole
// job (docs/cluster.md).
//
// Exit codes: 0 written, 1 the input could not be read or OUT could not be
// written (nothing is left at OUT then), 2 usage error.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "feedprof/rank_digest.h"
#include "tools/analysis_args.h"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

struct DigestArgs {
  std::string path;
  std::string out;
  std::optional<int32_t> rank;
  AnalysisArgs analysis;
};

int Run(const DigestArgs& args) {
  std::optional<Timeline> timeline =
      LoadForCommand("digest", args.path, args.analysis);
  if (!timeline) return kExitFailed;
  absl::StatusOr<DigestStats> stats = WriteRankDigest(
      *timeline, ToAnalysisOptions(args.analysis), args.rank, args.out);
  if (!stats.ok()) {
    std::fprintf(stderr, "feedprof digest: %s\n",
                 std::string(stats.status().message()).c_str());
    return kExitFailed;
  }
  std::fprintf(stderr,
               "feedprof digest: wrote %s (%u rank%s, %llu collectives, "
               "%llu bytes)\n",
               args.out.c_str(), stats->ranks, stats->ranks == 1 ? "" : "s",
               static_cast<unsigned long long>(stats->collectives),
               static_cast<unsigned long long>(stats->bytes));
  return kExitOk;
}

}  // namespace

void AddDigestCommand(CLI::App& root, int* exit_code) {
  auto args = std::make_shared<DigestArgs>();
  CLI::App* sub = AddCommand(
      root, "digest", "TRACE -o OUT [options]",
      "reduce a rank's trace to a digest for analysis at cluster scale",
      "Reads one rank's trace (a feedprof trace file or session, a PyTorch\n"
      "profiler / Kineto .json or .json.gz, an Nsight Systems .sqlite) and\n"
      "writes its digest: per step and per collective timings, the GPU's\n"
      "idle by cause before each collective, the rank's own figures,\n"
      "verdict, next steps and top code location. 'feedprof analyze DIR'\n"
      "over a directory of digests gives the multi-rank report (ranks,\n"
      "collectives, the rank the others wait for, the job's verdict) without\n"
      "the traces. Run it where the traces are, one rank per task: see\n"
      "docs/cluster.md for Slurm, mpirun and Kubernetes.",
      "Exit codes: 0 written, 1 the input could not be read or OUT not\n"
      "written (no partial OUT is left), 2 usage error.");
  sub->add_option("TRACE", args->path, "The rank's trace")->required();
  sub->add_option("-o,--output", args->out, "The digest file to write")
      ->type_name("OUT")
      ->required();
  sub->add_option("--as-rank", args->rank,
                  "The rank of a trace that does not record it (one GPU "
                  "process)")
      ->type_name("N");
  AddAnalysisOptions(sub, &args->analysis, "Digest", /*pre_window=*/true,
                     /*what_if=*/false);
  sub->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace feedprof::cli
