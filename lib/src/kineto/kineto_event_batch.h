// A batch of consecutive trace events: their JSON text, cut out of the
// traceEvents array by the splitter, and the events read from it.
//
// Why: events are read on worker threads and mapped in file order on the
// reader's thread; a batch of a few thousand is the unit handed between
// them, so the hand-over costs nothing per event. The events' strings point
// into the batch's text (or its kept copies), which stays put until the
// batch is released. Batches are recycled: the text buffer, the events and
// the kept copies keep their capacity, so reading allocates nothing once the
// batches have warmed up.
#ifndef FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_H_
#define FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kineto/kept_strings.h"
#include "kineto/kineto_event.h"

namespace feedprof::kineto {

// Where one event's object lies in the batch text and in the whole
// document (for error messages).
struct KinetoEventSpan {
  uint32_t begin = 0;   // its '{' in `KinetoEventBatch::text`
  uint32_t size = 0;    // through its '}'
  uint64_t offset = 0;  // its '{' in the (inflated) document
};

// The first JSON error in a batch, exactly as the tokenizer reports it when
// it reads the document from the start.
struct JsonFailure {
  std::string message;  // JsonTokenizer::error()
  uint64_t offset = 0;  // JsonTokenizer::error_offset()
  bool truncated = false;
};

struct KinetoEventBatch {
  std::string text;
  std::vector<KinetoEventSpan> spans;
  // After ReadKinetoEventBatch: events[0, parsed) hold the first `parsed`
  // spans' events; when `failed`, span `parsed` has the JSON error
  // `failure` and the spans after it were not read.
  std::vector<KinetoEvent> events;
  // Strings of the events read token by token.
  KeptStrings kept;
  size_t parsed = 0;
  bool failed = false;
  JsonFailure failure;

  void Clear() {
    text.clear();
    spans.clear();
    kept.Clear();
    parsed = 0;
    failed = false;
  }
};

// Reads every span of `batch` as ReadKinetoEvent would read it in the
// document: the one-pass scanner, and token by token where it declines.
void ReadKinetoEventBatch(KinetoEventBatch* batch);

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_H_
