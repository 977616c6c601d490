// Finds where whole event objects lie in the buffered text of the
// traceEvents array, without reading them.
//
// Why: parsing events is most of the reader's work, and it can run on many
// cores only once the text is cut into pieces that each hold whole events.
// Where an event ends depends on every quote and backslash before it, so the
// cut is found by one serial pass; this pass only classifies bytes (64 at a
// time: quotes, backslashes, brackets, with the widest vector instructions
// the CPU has) and follows bracket depth, several times faster than parsing,
// so it does not become the bottleneck. Each byte is classified once, in
// windows of a few KiB that stay in the L1 cache while the events in them
// are cut.
//
// It accepts only what the tokenizer would read the same way: an element is
// taken when it is an object whose brackets match (strings and escapes
// delimited by the tokenizer's rule) and is preceded by nothing but
// whitespace and, after the first element, one comma. The object's inside is
// not checked: the reader of the event checks it, and any error it finds lies
// inside the object. Anything else — a non-object element, the closing ']',
// mismatched brackets, deep nesting, an event longer than the limit — stops
// the split there and is left to the tokenizer.
#ifndef FEEDPROF_LIB_SRC_KINETO_TRACE_EVENT_SPLITTER_H_
#define FEEDPROF_LIB_SRC_KINETO_TRACE_EVENT_SPLITTER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace feedprof::kineto {

// One event object: `size` bytes from its '{' at `begin` to its '}'.
struct SplitEventSpan {
  uint32_t begin = 0;
  uint32_t size = 0;
};

enum class SplitStop : uint8_t {
  kFull,      // `max_consumed` bytes were taken
  kNeedMore,  // the text ends inside an element: refill and split again
  kOther,     // something the tokenizer must read comes next
};

struct SplitResult {
  // Bytes taken from the start of the text, up to the last taken event's
  // '}' (0 when none was taken).
  size_t consumed = 0;
  SplitStop stop = SplitStop::kOther;
};

// The instructions that classify the bytes. Every kind finds the same
// events; kBest takes the widest the CPU runs, the others are for tests.
enum class ByteClassifier : uint8_t {
  kBest,
  kPortable,  // SSE2 on x86-64 (always there), one byte at a time elsewhere
  kAvx2,
  kAvx512,  // AVX-512BW
};
// Whether this CPU (and this build) can run `classifier`.
bool ByteClassifierAvailable(ByteClassifier classifier);

struct SplitLimits {
  // Longer events (from the first byte of their element on) are left to
  // the tokenizer.
  size_t max_event_bytes = 256 * 1024;
  // Deeper nesting inside one event is left to the tokenizer.
  int max_depth = 32;
  // An unavailable one is taken as kBest.
  ByteClassifier classifier = ByteClassifier::kBest;
};

// `text` starts inside the traceEvents array where an element may begin:
// right after '[' when `after_element` is false, else right after an
// element. Appends the events taken to `spans` (offsets into `text`) and
// stops once at least `max_consumed` bytes are taken.
SplitResult SplitTraceEvents(std::string_view text, bool after_element,
                             size_t max_consumed, const SplitLimits& limits,
                             std::vector<SplitEventSpan>* spans);

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_TRACE_EVENT_SPLITTER_H_
