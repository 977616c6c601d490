// Tells when the files of a rank directory are not the ranks of one run.
//
// A directory of Kineto traces is read as one multi-rank run, every file on
// the first file's clock by their baseTimeNanoseconds (a file's time range
// below moves with it). Pointed at traces that were not recorded
// together (two runs' rank-0 traces, months apart), the merged timeline
// still reads, and the report then shows a window as long as the time
// between the recordings, GPU busy shares of that window, and two
// processes of one rank, without a word. Two facts of the files give that
// away, and each becomes a warning of the timeline:
//  - two files claim one rank (Kineto's `distributedInfo` rank): the ranks
//    of one run are distinct;
//  - the files' time ranges fall apart: the ranks of one run are profiled
//    over the same steps, so their ranges overlap, and a gap between them
//    means different recordings (or clocks that disagree by that much).
// A directory of one run's ranks gets no warning and no other change.
#ifndef FEEDPROF_INGEST_RANK_FILES_ONE_RUN_CHECK_H_
#define FEEDPROF_INGEST_RANK_FILES_ONE_RUN_CHECK_H_

#include <string>
#include <vector>

#include "feedprof/timeline.h"
#include "timeline/time_extent.h"

namespace feedprof::ingest {

// What the check needs of one file, taken from its own timeline before it
// is merged (on the thread that read it: the scan over its events then
// runs in parallel with the other files').
struct RankFileFacts {
  std::string file;
  std::vector<int32_t> ranks;  // the distinct ranks (>= 0) of its processes
  // Its events' and processes' extent; none when it has neither.
  timeline::TimeExtent time_range;
};

RankFileFacts FactsOfRankFile(const Timeline& file_timeline,
                              const std::string& file);

// The warnings for `files` (in the directory's file-name order): first one
// per rank that more than one file claims, by rank, naming those files,
// then one per gap in the files' time ranges, in time order, naming the
// file that ends last before the gap and the one that starts first after
// it.
std::vector<std::string> NotOneRunWarnings(
    const std::vector<RankFileFacts>& files);

// "a", "a and b", "a, b and c": names of files in a warning.
std::string ListWithAnd(const std::vector<std::string>& items);

}  // namespace feedprof::ingest

#endif  // FEEDPROF_INGEST_RANK_FILES_ONE_RUN_CHECK_H_
