// Reads one feedprof trace file with its EventBatch packets parsed and
// decoded on worker threads.
//
// Why: a large trace is almost all EventBatch packets, and parsing and
// decoding them is most of the time a file takes to read; each batch is
// independent of the others, while everything the builder does must happen
// in file order. So the calling thread frames the packets
// (PacketStreamReader::NextRaw), cuts runs of consecutive EventBatch
// packets of about kPacketBatchBytes into batches for the workers
// (common/ordered_batch_pipeline.h), parses every other packet itself, and
// hands the builder the decoded events and the other packets strictly in
// file order. The timeline, the warnings and where a damaged file stops
// are exactly what reading it packet by packet gives: a batch that does
// not parse ends the stream at that packet, and nothing after it is used.
#ifndef FEEDPROF_FPT_PARALLEL_PACKET_READER_H_
#define FEEDPROF_FPT_PARALLEL_PACKET_READER_H_

#include <cstddef>
#include <functional>

#include "fpt/feedprof_timeline_builder.h"
#include "fpt/packet_stream.h"

namespace feedprof::fpt {

// A cap on the worker threads for one file: the calling thread frames the
// packets and appends every event in file order, so past a few workers it
// is the limit, and more threads only add memory.
inline constexpr unsigned kMaxPacketWorkerThreads = 7;

struct ParallelPacketOptions {
  // Threads that parse and decode besides the calling one (which also
  // does, while it waits); 0 reads everything on the calling thread, in
  // the same batches.
  size_t worker_threads = 1;
  // EventBatch bytes per batch handed to a worker: large enough that the
  // hand-over costs nothing per event, small enough that a batch's events
  // are still in the caches when the builder appends them.
  size_t batch_bytes = size_t{256} << 10;
};

// Feeds every packet of `packets` (opened, nothing read yet) to `builder`,
// whose file has begun (BeginFile), as `builder.AddPacket(*packets.Next())`
// in a loop would. `on_progress` is called on the calling thread with the
// bytes of the file whose packets the builder has taken, after each batch.
void ReadPacketsInParallel(PacketStreamReader& packets,
                           FeedprofTimelineBuilder& builder,
                           const ParallelPacketOptions& options,
                           const std::function<void(uint64_t)>& on_progress);

}  // namespace feedprof::fpt

#endif  // FEEDPROF_FPT_PARALLEL_PACKET_READER_H_
