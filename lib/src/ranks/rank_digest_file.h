// The rank digest file (proto/digest.proto): the summaries of a trace's
// ranks written with the trace's clock base, and read back.
//
// A digest holds a RankSummary field for field, so the analysis across
// ranks gives the same answer from digests as from the ranks' events.
// Times stay on the trace's clock; the clock base (Kineto's
// baseTimeNanoseconds) travels with them, so digests of files recorded on
// different bases are put on one clock when read together, as the Kineto
// directory reader does for the files themselves.
#ifndef FEEDPROF_RANKS_RANK_DIGEST_FILE_H_
#define FEEDPROF_RANKS_RANK_DIGEST_FILE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/file_magic.h"
#include "feedprof/timeline.h"
#include "ranks/rank_summary.h"

namespace feedprof::ranks {

// Every digest file starts with these 16 bytes.
inline constexpr std::string_view kDigestMagic = common::kRankDigestMagic;

struct DigestContents {
  std::string source_path;
  SourceFormat source_format = SourceFormat::kUnknown;
  TimeNs time_base_ns = 0;
  std::vector<RankSummary> ranks;
  std::vector<std::string> warnings;
};

// The bytes of a digest file.
std::string EncodeDigest(const DigestContents& contents);
// A digest file's contents; errors name `path` and what is wrong.
absl::StatusOr<DigestContents> DecodeDigest(std::string_view bytes,
                                            const std::string& path);

}  // namespace feedprof::ranks

#endif  // FEEDPROF_RANKS_RANK_DIGEST_FILE_H_
