// How ReadFeedprofTrace spreads a file's packets over threads, for tests
// and benchmarks that must take a given path; ReadFeedprofTrace uses the
// defaults.
//
// Why internal: the defaults follow the machine (the file size, the cores,
// how many files are read side by side); a test must force the parallel
// path on a small file, with small batches so that a file holds many, and
// compare it with reading packet by packet.
#ifndef FEEDPROF_FPT_FEEDPROF_READ_OPTIONS_H_
#define FEEDPROF_FPT_FEEDPROF_READ_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof::fpt {

struct FeedprofReadOptions {
  // Threads that parse and decode a file's EventBatch packets besides the
  // thread reading it (parallel_packet_reader.h): -1 picks from the cores
  // left per file when several files are read side by side; 0 reads packet
  // by packet on that thread; N > 0 uses N.
  int packet_worker_threads = -1;
  // Files smaller than this are read packet by packet whatever
  // `packet_worker_threads` says: threads cost more than they save.
  uint64_t parallel_from_file_bytes = uint64_t{16} << 20;
  // ParallelPacketOptions::batch_bytes.
  size_t batch_bytes = size_t{256} << 10;
};

absl::StatusOr<Timeline> ReadFeedprofTraceWithOptions(
    const std::string& path, const FeedprofReadOptions& options);

}  // namespace feedprof::fpt

#endif  // FEEDPROF_FPT_FEEDPROF_READ_OPTIONS_H_
