// Turns a run of EventRecords of one thread into one EventBatch packet.
//
// This is where the on-disk size per event is decided: each repeated field
// (api_calls, ranges, marks) is delta-encoded on its own as the schema says
// (the first event relative to base_ts_ns, each later one to the previous
// event of the same field, zig-zag), durations are plain varints and zero
// fields cost nothing. A typical NVTX range or API call takes 10-16 bytes.
#ifndef FEEDPROF_PRELOAD_EVENT_BATCH_ENCODER_H_
#define FEEDPROF_PRELOAD_EVENT_BATCH_ENCODER_H_

#include <cstddef>
#include <cstdint>

#include "preload/event_records.h"
#include "preload/wire_writer.h"

namespace feedprof::preload {

// Field numbers of EventBatch (proto/feedprof.proto), shared by this
// encoder and the CUPTI one (cupti_hooks/event_batch_encoder.h).
enum EventBatchField : uint32_t {
  kBatchTid = 1,
  kBatchBaseTs = 2,
  kBatchApiCalls = 3,
  kBatchRanges = 4,
  kBatchMarks = 5,
  kBatchKernels = 6,
  kBatchMemcpys = 7,
  kBatchMemsets = 8,
  kBatchSyncs = 9,
  kBatchOverheads = 10,
  kBatchMemory = 11,
  kBatchExternalCorrelations = 12,
  kBatchBaseCorrelation = 13,
};

// Upper bound of the encoded size of one event, tags and length included.
inline constexpr size_t kMaxEncodedEventBytes = 96;
// Upper bound of an EventBatch packet's own fields and framing.
inline constexpr size_t kEventBatchOverheadBytes = 48;

// Appends one framed Trace.packet holding EventBatch{tid, records[0..k)} to
// `w`, as many records as fit, and returns k. Returns 0 (and writes
// nothing) when `count` is 0 or not even one record fits.
size_t EncodeEventBatch(uint32_t tid, const EventRecord* records, size_t count,
                        wire::WireWriter& w);

// Start time of a record (its position on the timeline).
uint64_t RecordStartNs(const EventRecord& record);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_EVENT_BATCH_ENCODER_H_
