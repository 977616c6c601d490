// How ReadKinetoTrace spreads its work over threads, for tests and
// benchmarks that must take a given path; ReadKinetoTrace uses the
// defaults.
//
// Why internal: the defaults follow the machine (the file size, the number
// of cores); a test needs to force the parallel path on a small input, with
// small buffers and batches so that events straddle every border, and
// compare it with the serial path on the same bytes.
#ifndef FEEDPROF_LIB_SRC_KINETO_KINETO_READ_OPTIONS_H_
#define FEEDPROF_LIB_SRC_KINETO_KINETO_READ_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof::kineto {

// A cap on the threads that read events (one fewer than the cores): the
// calling thread maps every event in file order, so past a few readers it
// is the limit, and more threads only add memory. Measured on 2 cores only.
inline constexpr unsigned kMaxKinetoEventThreads = 7;

// The text of the first batch handed to a thread, and of the largest
// (KinetoReadOptions::batch_bytes, max_batch_bytes).
inline constexpr size_t kFirstBatchBytes = 64 * 1024;
inline constexpr size_t kLargestBatchBytes = 256 * 1024;

struct KinetoReadOptions {
  // Threads that read events besides the calling thread: -1 picks from
  // the usable cores (platform/usable_cores.h; serially on one core);
  // 0 reads every event on the calling thread, token by token as it goes
  // (the serial path); N > 0 splits the traceEvents array into batches
  // read by N threads and the calling thread.
  int event_threads = -1;
  // Files smaller than this (on disk) are read serially on the calling
  // thread whatever `event_threads` says: threads cost more than they save.
  uint64_t threads_from_file_bytes = 512 * 1024;
  // Bytes of event text per batch handed to a thread, at the start of the
  // file: small enough that a batch's text and events stay in the caches
  // between the thread that reads them and the one that maps them. Later
  // batches take 1/1024 of the text read before them, up to
  // `max_batch_bytes`: on a 1 GB file that took 5-6 % off the whole
  // command's time, for 3.5 MB more peak (the ring of batches).
  size_t batch_bytes = kFirstBatchBytes;
  size_t max_batch_bytes = kLargestBatchBytes;
  // The tokenizer's buffer (JsonTokenizer::Limits::initial_buffer_bytes);
  // events longer than half of it (or 256 KiB) are read by the tokenizer.
  size_t buffer_bytes = 1 << 20;
};

absl::StatusOr<Timeline> ReadKinetoTraceWithOptions(
    const std::string& path, const KinetoReadOptions& options);

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KINETO_READ_OPTIONS_H_
