// Reads the elements of a Kineto trace's traceEvents array into the mapper,
// in file order: token by token on the calling thread, or cut into batches
// that worker threads read while the calling thread maps them.
//
// Why two ways: the batched way is what makes big traces fast on many
// cores, and the serial way is what it must match — the same events in the
// same order, the same first error at the same byte, the same events kept
// before a truncated end. The batched way hands everything it is not sure
// of to the serial way, one element at a time, after mapping every event
// before it: the closing ']', elements that are not objects, events longer
// or deeper than the splitter takes, and the end of the input.
#ifndef FEEDPROF_LIB_SRC_KINETO_TRACE_EVENTS_ARRAY_H_
#define FEEDPROF_LIB_SRC_KINETO_TRACE_EVENTS_ARRAY_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "kineto/json_tokenizer.h"
#include "kineto/kineto_event_batch.h"
#include "kineto/kineto_event_batch_pipeline.h"
#include "kineto/kineto_event_mapper.h"
#include "kineto/kineto_read_options.h"
#include "kineto/trace_event_splitter.h"

namespace feedprof::kineto {

struct TraceEventsBatching {
  KinetoEventBatchPipeline* pipeline = nullptr;
  // A batch's text: a share of the text read before it
  // (kBatchShareOfTextRead), at least `batch_bytes` and at most
  // `max_batch_bytes` (or `batch_bytes`, where that is larger).
  size_t batch_bytes = kFirstBatchBytes;
  size_t max_batch_bytes = kLargestBatchBytes;
  SplitLimits split;
};

// A batch holds at most this share of the text read before it: on a big
// file batches grow, and with them fewer hand-overs between threads,
// while the ring of batches stays small next to the events read so far.
inline constexpr uint64_t kBatchShareOfTextRead = 1024;  // 1/1024

// The text bytes of the batch begun at text offset `text_read`.
size_t BatchBytesAt(const TraceEventsBatching& batching, uint64_t text_read);

// Both start right after the array's '[' and return true after its ']'.
// On a JSON error they return false with `*failure` set (the tokenizer's
// error, or one found in a batch, which is the same error the tokenizer
// would have reported). `on_mapped` is called after events were mapped.
bool ReadTraceEventsSerially(JsonTokenizer& tokens, KinetoEventMapper& mapper,
                             const std::function<void()>& on_mapped,
                             JsonFailure* failure);
bool ReadTraceEventsInBatches(JsonTokenizer& tokens, KinetoEventMapper& mapper,
                              const TraceEventsBatching& batching,
                              const std::function<void()>& on_mapped,
                              JsonFailure* failure);

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_TRACE_EVENTS_ARRAY_H_
